/**
 * The fetch thread's entry point (a Worker): builds the fetch path from the init message, runs each task it
 * is sent, and answers with the task's output. It owns what it builds (HTTP fetcher, WARC writer, content
 * index) and closes them when told to.
 */
import type { FetchTask } from "../../core/model/index.ts";
import { openFetchPath, type FetchPath } from "../../fetch-node/fetch-path.ts";
import type { WorkOutput } from "../../fetch-node/pipeline/index.ts";
import { SqliteContentIndex } from "../sqlite-content-index.ts";
import type { FromThread, ToThread } from "./protocol.ts";

declare const self: { onmessage: ((e: MessageEvent<ToThread>) => void) | null; postMessage(m: FromThread): void };

let path: FetchPath | undefined;
let content: SqliteContentIndex | undefined;
let controller = new AbortController();
let outbox: Array<{ taskId: string; output: WorkOutput }> = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/** Sends finished outputs together, a few milliseconds after the first of them. */
function flushSoon(): void {
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    const outputs = outbox;
    outbox = [];
    self.postMessage({ type: "done", outputs });
  }, 2);
}

self.onmessage = (event) => {
  const msg = event.data;
  switch (msg.type) {
    case "init":
      void init(msg.init);
      break;
    case "tasks":
      for (const task of msg.tasks) void run(task);
      break;
    case "abort":
      controller.abort(new Error("crawl stopping"));
      controller = new AbortController();
      break;
    case "close":
      void close();
      break;
  }
};

async function init(init: Extract<ToThread, { type: "init" }>["init"]): Promise<void> {
  try {
    content = SqliteContentIndex.open(init.contentDbPath);
    path = await openFetchPath({
      policy: init.policy,
      warcDir: init.warcDir,
      warcPrefix: "crawl",
      proxyUrl: init.proxyUrl,
      allowPrivateAddresses: init.allowPrivateAddresses,
      maxConcurrentRequests: init.maxConcurrentRequests,
      content,
    });
    self.postMessage({ type: "ready" });
  } catch (error) {
    self.postMessage({ type: "fatal", message: (error as Error).stack ?? String(error) });
  }
}

async function run(task: FetchTask): Promise<void> {
  const signal = controller.signal;
  try {
    const output = await path!.worker.run(task, signal);
    outbox.push({ taskId: task.taskId, output });
    flushSoon();
  } catch (error) {
    self.postMessage({ type: "failed", taskId: task.taskId, message: (error as Error).stack ?? String(error), aborted: signal.aborted });
  }
}

async function close(): Promise<void> {
  try {
    await path?.close();
    await content?.close();
  } finally {
    self.postMessage({ type: "closed" });
  }
}

/**
 * The fetch thread's entry point (a Worker): builds the fetch path from the init message, runs each task it
 * is sent, and answers with the task's output. It owns what it builds (HTTP fetcher, WARC writer) and closes
 * them when told to; content-index claims go to the main thread.
 */
import type { FetchTask } from "../../core/model/index.ts";
import { preciseNow } from "../../core/politeness/index.ts";
import { openFetchPath, type FetchPath } from "../../engine/fetch/index.ts";
import type { WorkOutput, ContentIndex } from "../../core/ports/index.ts";
import { packLinks, type Claim, type FromThread, type PackedOutput, type ToThread } from "./protocol.ts";
import { ThreadAddressGate } from "./thread-address-gate.ts";

declare const self: { onmessage: ((e: MessageEvent<ToThread>) => void) | null; postMessage(m: FromThread): void };

let path: FetchPath | undefined;
const gate = new ThreadAddressGate((asks, arrivals, leaves) => self.postMessage({ type: "gate", asks, arrivals, leaves }));
let claimIds = 0;
const claims = new Map<number, (owner: string | undefined) => void>();

/**
 * The content index as this thread sees it: each claim is a question to the main thread, which answers from
 * the index all fetch threads share (so a duplicate fetched by another thread is still a duplicate).
 */
const content: ContentIndex = {
  claimExact: (fingerprint, url) => ask("exact", fingerprint, url),
  claimNear: (simhash, url) => ask("near", simhash.toString(16), url),
  close: async () => {},
};

/**
 * Claims go out at the end of the current turn, all those asked in it in one message (a page waits for
 * its answer, so no timer), or with outputs that leave first.
 */
function ask(kind: "exact" | "near", key: string, url: string): Promise<string | undefined> {
  const id = claimIds++;
  return new Promise((resolve) => {
    claims.set(id, resolve);
    claimBox.push({ id, kind, key, url });
    if (claimBox.length === 1) queueMicrotask(flushClaims);
  });
}

function flushClaims(): void {
  if (claimBox.length === 0) return;
  const asked = claimBox;
  claimBox = [];
  self.postMessage({ type: "done", outputs: [], claims: asked });
}
let controller = new AbortController();
let outbox: Array<{ taskId: string; output: WorkOutput }> = [];
let claimBox: Claim[] = [];
let flushTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Sends finished outputs together (with any claims not sent yet), a few milliseconds after the first of
 * them, each stamped with this thread's clock as it leaves: the main thread moves the result's times onto
 * its own clock from there.
 */
function flushSoon(): void {
  flushTimer ??= setTimeout(() => {
    flushTimer = undefined;
    const sentAt = preciseNow();
    const outputs: PackedOutput[] = outbox.map(({ taskId, output }) => {
      output.result.sentAt = sentAt;
      return { taskId, result: output.result, links: packLinks(output.links) };
    });
    const asked = claimBox;
    outbox = [];
    claimBox = [];
    self.postMessage({ type: "done", outputs, claims: asked });
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
    case "passes":
      gate.answered(msg.answers);
      break;
    case "claimed":
      for (const { id, owner } of msg.answers) {
        claims.get(id)?.(owner);
        claims.delete(id);
      }
      break;
  }
};

async function init(init: Extract<ToThread, { type: "init" }>["init"]): Promise<void> {
  try {
    // Loaded only when this crawl renders (playwright-core alone is about 100 MB of RSS a thread).
    const renderer = init.render ? (await import("../../engine/render/index.ts")).chromiumRenderer(init.render) : undefined;
    path = await openFetchPath({
      policy: init.policy,
      warcDir: init.warcDir,
      warcPrefix: init.warcPrefix,
      proxyUrl: init.proxyUrl,
      maxConcurrentRequests: init.maxConcurrentRequests,
      warc: init.warc,
      content,
      ...(renderer ? { renderer } : {}),
      ...(init.addressGate ? { addressGate: gate } : {}),
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
    gate.close();
    await path?.close();
  } finally {
    self.postMessage({ type: "closed" });
  }
}

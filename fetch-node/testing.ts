/**
 * Test support for the fetch node's tests (not used by the node itself): the node's options as the tests
 * start it (node f1 of region us, 16 partitions, hosts under .de in eu), a bus that records every call in
 * order and lets a test deliver tasks to the node's handler, the test server's pages (one with links to
 * both regions, and a slow one that says whether it was answered or hung up on), and the fetch path over a
 * directory. Runtime-neutral like the node: no Bun module here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { MemoryContentIndex } from "../adapters/memory/index.ts";
import { parseRegionRules } from "../core/cluster/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../core/model/index.ts";
import type { Delivery, MessageBus, Subscription, TaskInbox } from "../core/ports/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { openFetchPath, type FetchPath } from "../engine/fetch/index.ts";
import type { FetchNodeOptions } from "./node.ts";

export const P = 16;
export const rules = parseRegionRules("eu=.de", "us");

/** A bus that records every call in order and lets the test deliver tasks to the node's handler. */
export class RecordingBus implements MessageBus {
  readonly events: string[] = [];
  readonly urls: Array<{ region: string; partition: number; urls: DiscoveredUrl[] }> = [];
  readonly results: Array<{ region: string; result: FetchResult }> = [];
  failPublishes = 0;
  /** Every result the node tried to publish, refused ones included. */
  readonly attempted: FetchResult[] = [];
  private handler: ((d: Delivery<FetchTask>) => Promise<void>) | undefined;
  consumed: { region: string; concurrency: number } | undefined;
  ensured: string[] = [];
  stopped = false;

  async ensureRegion(region: string): Promise<void> {
    this.ensured.push(region);
  }
  async publishTask(): Promise<void> {
    throw new Error("a fetch node never publishes tasks");
  }
  onTasksMayBeLost(): () => void {
    throw new Error("a fetch node never re-offers tasks");
  }
  async publishResult(region: string, result: FetchResult): Promise<void> {
    this.attempted.push(result);
    if (this.failPublishes > 0) {
      this.failPublishes--;
      throw new Error("bus down");
    }
    this.results.push({ region, result });
    this.events.push(`result ${region}.${result.partition}`);
  }
  async publishUrls(region: string, partition: number, urls: readonly DiscoveredUrl[]): Promise<void> {
    this.urls.push({ region, partition, urls: [...urls] });
    this.events.push(`urls ${region}.${partition}`);
  }
  consumeTasks(
    region: string,
    handler: (d: Delivery<FetchTask>) => Promise<void>,
    opts: { concurrency: number; inbox?: string },
  ): Subscription {
    this.handler = handler;
    // The node's own inbox is what it pulls at full concurrency; the shared queue and adopted inboxes are its fallbacks.
    if (opts.inbox !== undefined && !this.inboxes.has(opts.inbox)) this.consumed ??= { region, concurrency: opts.concurrency };
    if (opts.inbox !== undefined) this.inboxes.add(opts.inbox);
    return { stop: async () => void (this.stopped = true) };
  }
  /** Inboxes the node subscribed to. */
  readonly inboxes = new Set<string>();
  async ensureTaskInbox(): Promise<void> {}
  async taskInboxes(): Promise<TaskInbox[]> {
    return [];
  }
  async removeTaskInbox(): Promise<boolean> {
    return true;
  }
  consumeUrls(): Subscription {
    throw new Error("not used");
  }
  consumeResults(): Subscription {
    throw new Error("not used");
  }
  async close(): Promise<void> {}

  /** Delivers `task` (stored as `copy`) as the bus would and resolves when the handler returns. */
  deliver(task: FetchTask, deliveryCount = 1, copy = 1): { done: Promise<void>; outcome: () => string | undefined } {
    let outcome: string | undefined;
    const d: Delivery<FetchTask> = {
      data: task,
      deliveryCount,
      copy,
      ack: async () => {
        outcome = "ack";
        this.events.push(`ack ${task.taskId}`);
      },
      nak: (delayMs) => {
        outcome = `nak ${delayMs ?? 0}`;
        this.events.push(`nak ${task.taskId} ${delayMs ?? 0}`);
      },
      term: (reason) => {
        outcome = `term ${reason}`;
        this.events.push(`term ${task.taskId}`);
      },
    };
    if (!this.handler) throw new Error("nobody consumes tasks");
    return { done: this.handler(d), outcome: () => outcome };
  }
}

export function pageTask(url: string, id = "t1", hostGapMs = 0): FetchTask {
  const host = new URL(url).host;
  return {
    taskId: id,
    kind: "page",
    url,
    host,
    partition: partitionOf(host, P),
    depth: 0,
    redirectHops: 0,
    hostGapMs,
    issuedAt: Date.now(),
  };
}

/** The delay of a `nak N` outcome. */
export function nakDelay(outcome: string | undefined): number {
  const m = /^nak (\d+)$/.exec(outcome ?? "");
  if (!m) throw new Error(`expected a nak, got ${outcome}`);
  return Number(m[1]);
}

/** What the slow page of the test server went through: answered after 3 s, or closed by the client first. */
export const slowPage = { answered: false, closedEarly: false };

/**
 * The test server's pages: `/slow` answers after 3 s (noted in `slowPage`, reset at each request), any
 * other path a page with words and five links (two on the server's own host, one under .de, two on
 * www.example.com).
 */
export function servePages(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === "/slow") {
    Object.assign(slowPage, { answered: false, closedEarly: false });
    const timer = setTimeout(() => {
      slowPage.answered = true;
      res.end("late");
    }, 3_000);
    res.on("close", () => {
      clearTimeout(timer);
      slowPage.closedEarly = !slowPage.answered;
    });
    return;
  }
  res.setHeader("content-type", "text/html");
  res.end(`<html><body><p>hello there, a page with words</p>
        <a href="/a">a</a> <a href="/b">b</a>
        <a href="http://shop.example.de/x">de</a> <a href="http://www.example.com/y">com</a>
        <a href="http://www.example.com/z">com2</a></body></html>`);
}

/** The fetch path writing its WARC files to `warcDir`, allowed to fetch from the loopback test servers. */
export function openTestFetchPath(warcDir: string, warcPrefix: string, maxConcurrentRequests: number): Promise<FetchPath> {
  return openFetchPath({
    policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true },
    warcDir,
    warcPrefix,
    maxConcurrentRequests,
    content: new MemoryContentIndex(),
  });
}

/** Options of node f1 of region us as the tests start it; `given` adds what each test chooses. */
export function nodeOptions(
  given: Pick<FetchNodeOptions, "bus" | "state" | "worker" | "claims"> & Partial<FetchNodeOptions>,
): FetchNodeOptions {
  return {
    nodeId: "f1",
    region: "us",
    runtime: "bun",
    httpAddress: "",
    regionRules: rules,
    partitions: P,
    concurrency: 2,
    heartbeatMs: 60_000,
    nakDelayMs: 10,
    claimTtlMs: 60_000,
    ...given,
  };
}

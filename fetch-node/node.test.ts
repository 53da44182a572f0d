import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus, MemoryClusterState, MemoryContentIndex, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { connectRedis, RedisFetchClaims, type RedisClient } from "../adapters/redis/index.ts";
import { startRedis, type RedisServer } from "../tests/support/redis.ts";
import { parseRegionRules } from "../core/cluster/index.ts";
import { type Delivery, type MessageBus, type Subscription } from "../core/ports/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import { preciseNow } from "../core/politeness/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { openFetchPath, type FetchPath } from "../engine/fetch/fetch-path.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import type { TaskRunner } from "../core/ports/index.ts";
import { checkDiskRoom } from "../kit/fs/index.ts";
import { mountSmallDisk } from "../tests/support/small-disk.ts";
import { FetchNode } from "./node.ts";

const P = 16;
const rules = parseRegionRules("eu=.de", "us");

/** A bus that records every call in order and lets the test deliver tasks to the node's handler. */
class RecordingBus implements MessageBus {
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
  consumeTasks(region: string, handler: (d: Delivery<FetchTask>) => Promise<void>, opts: { concurrency: number }): Subscription {
    this.handler = handler;
    this.consumed = { region, concurrency: opts.concurrency };
    return { stop: async () => void (this.stopped = true) };
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

function pageTask(url: string, id = "t1", hostGapMs = 0): FetchTask {
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
function nakDelay(outcome: string | undefined): number {
  const m = /^nak (\d+)$/.exec(outcome ?? "");
  if (!m) throw new Error(`expected a nak, got ${outcome}`);
  return Number(m[1]);
}

/** What the slow page of the test server went through: answered after 3 s, or closed by the client first. */
const slowPage = { answered: false, closedEarly: false };

describe("fetch node", () => {
  let server: TestServer;
  let dir: string;
  let path: FetchPath;
  let bus: RecordingBus;
  let state: MemoryClusterState;
  let node: FetchNode | undefined;

  beforeEach(async () => {
    server = await startHttpServer((req, res) => {
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
    });
    dir = await mkdtemp(join(tmpdir(), "fetch-node-test-"));
    path = await openFetchPath({
      policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true },
      warcDir: dir,
      warcPrefix: "f1",
      maxConcurrentRequests: 8,
      content: new MemoryContentIndex(),
    });
    bus = new RecordingBus();
    state = new MemoryClusterState();
    node = undefined;
  });

  afterEach(async () => {
    await node?.stop(0);
    await path.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const startNode = async (worker: TaskRunner = path.worker, heartbeatMs = 60_000, claims = new MemoryFetchClaims()) => {
    node = new FetchNode({
      nodeId: "f1",
      region: "us",
      runtime: "bun",
      httpAddress: "http://127.0.0.1:1",
      regionRules: rules,
      partitions: P,
      concurrency: 4,
      heartbeatMs,
      nakDelayMs: 1_000,
      bus,
      state,
      worker,
      claims,
      claimTtlMs: 60_000,
    });
    await node.start();
    return node;
  };

  test("fetch node - a task is fetched, its links go to their partitions' subjects, the result to its owner, and the ack comes last", async () => {
    await startNode();
    expect(bus.ensured).toEqual(["us"]);
    expect(bus.consumed).toEqual({ region: "us", concurrency: 4 });
    const task = pageTask(`${server.origin}/`);
    await bus.deliver(task).done;

    expect(bus.results).toHaveLength(1);
    const { region, result } = bus.results[0]!;
    expect(region).toBe("us");
    expect(result).toMatchObject({ taskId: "t1", kind: "response", status: 200, partition: task.partition, linksFound: 5 });
    // Links grouped by their host's region and partition.
    const byHost = new Map(bus.urls.flatMap((g) => g.urls.map((u) => [u.url, g] as const)));
    expect(byHost.size).toBe(5);
    for (const [url, group] of byHost) {
      const host = new URL(url).host;
      expect(group.partition).toBe(partitionOf(host, P));
      expect(group.region).toBe(host.endsWith(".de") ? "eu" : "us");
    }
    const com = bus.urls.filter((g) => g.urls.some((u) => u.host === "www.example.com"));
    expect(com).toHaveLength(1);
    // One publish per (region, partition): a host's links travel together, in page order (the test server's
    // host may share the partition, so only this host's links are compared).
    expect(com[0]!.urls.filter((u) => u.host === "www.example.com").map((u) => u.url)).toEqual([
      "http://www.example.com/y",
      "http://www.example.com/z",
    ]);
    expect(new Set(bus.urls.map((g) => `${g.region}.${g.partition}`)).size).toBe(bus.urls.length);
    // Every output is published before the ack.
    expect(bus.events.at(-1)).toBe("ack t1");
    expect(bus.events.filter((e) => e.startsWith("ack"))).toHaveLength(1);
    expect(bus.events.indexOf("result us." + task.partition)).toBe(bus.events.length - 2);
    // The page is in the WARC index, and the counters saw it.
    expect(await readFile(join(dir, "index.cdxj"), "utf8")).toContain("127.0.0.1");
    expect(node!.counters.get("fetcher.status.200")).toBe(1);
    expect(node!.counters.get("fetcher.pages")).toBe(1);
    expect(node!.counters.get("fetcher.links.published")).toBe(5);
    expect(node!.counters.get("fetcher.bytes")).toBeGreaterThan(100);
  });

  test("fetch node - a full WARC disk: the task comes back no sooner than its host's gap, and tasks go back unfetched until there is room", async () => {
    const disk = mountSmallDisk(8 * 1024 * 1024); // room for the disk probe's few MiB once freed
    let requests = 0;
    const site = await startHttpServer((_req, res) => {
      requests++;
      res.setHeader("content-type", "text/html");
      res.end(`<html><body>${"<p>some words of a page</p>".repeat(200)}</body></html>`);
    });
    const full = await openFetchPath({
      policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true },
      warcDir: disk.dir,
      warcPrefix: "full",
      maxConcurrentRequests: 8,
      content: new MemoryContentIndex(),
    });
    let clock = Date.now();
    try {
      node = new FetchNode({
        nodeId: "f1",
        region: "us",
        runtime: "bun",
        httpAddress: "http://127.0.0.1:1",
        regionRules: rules,
        partitions: P,
        concurrency: 4,
        heartbeatMs: 60_000,
        nakDelayMs: 1_000,
        bus,
        state,
        worker: full.worker,
        claims: new MemoryFetchClaims(),
        claimTtlMs: 60_000,
        now: () => clock,
        diskProbe: async () => checkDiskRoom(disk.dir),
      });
      await node.start();
      disk.fill(0);
      const first = bus.deliver({ ...pageTask(`${site.origin}/a`, "t1"), hostGapMs: 7_000 });
      await first.done;
      // Its request was made: not again before the host's gap (and 10 x the attempt's time) after it.
      expect(nakDelay(first.outcome())).toBeGreaterThanOrEqual(7_000);
      expect(requests).toBe(1);
      expect(node.counters.get("fetcher.disk-full")).toBe(1);
      // Still full: the next task goes back without a request.
      const second = bus.deliver(pageTask(`${site.origin}/b`, "t2"));
      await second.done;
      expect(second.outcome()).toStartWith("nak");
      expect(requests).toBe(1);
      disk.free();
      clock += 3_000; // the next probe is due
      const third = bus.deliver(pageTask(`${site.origin}/b`, "t3"));
      await third.done;
      expect(third.outcome()).toBe("ack");
      expect(requests).toBe(2);
    } finally {
      await node?.stop(0);
      node = undefined;
      await full.close();
      await site.close();
      disk.unmount();
    }
  });

  test("fetch node - a publish the bus refuses holds the task's outputs until the bus takes them, then acks: the page is fetched once", async () => {
    let requests = 0;
    const counting: TaskRunner = {
      run: (task, signal) => {
        requests++;
        return path.worker.run(task, signal);
      },
    };
    await startNode(counting);
    bus.failPublishes = 3;
    const first = bus.deliver(pageTask(`${server.origin}/`));
    await first.done;
    expect(first.outcome()).toBe("ack");
    expect(requests).toBe(1);
    expect(bus.results).toHaveLength(1);
    // The ack comes only after the result is published.
    expect(bus.events.indexOf("ack t1")).toBeGreaterThan(bus.events.findIndex((e) => e.startsWith("result")));
    expect(node!.counters.get("fetcher.outbox.held")).toBe(1);
    expect(node!.counters.get("fetcher.outbox.published-late")).toBe(1);
    expect(node!.counters.get("fetcher.tasks.failed")).toBe(0);
    expect(node!.gauges().outboxWaiting).toBe(0);
  });

  test("fetch node - a repeat of a task whose outputs wait here for the bus is handed back unfetched, and dropped once the first attempt is done", async () => {
    let requests = 0;
    const counting: TaskRunner = { run: (task, signal) => (requests++, path.worker.run(task, signal)) };
    await startNode(counting);
    bus.failPublishes = 1_000_000;
    const first = bus.deliver(pageTask(`${server.origin}/`, "t1", 250));
    await waitFor(() => node!.gauges().outboxWaiting === 1);
    // The restarted server forgot the delivery and sends the same copy again as a first delivery.
    const repeat = bus.deliver(pageTask(`${server.origin}/`, "t1", 250));
    await repeat.done;
    expect(nakDelay(repeat.outcome())).toBeGreaterThanOrEqual(250);
    expect(requests).toBe(1);
    expect(node!.counters.get("fetcher.tasks.repeat-of-own-attempt")).toBe(1);
    bus.failPublishes = 0;
    await first.done;
    expect(first.outcome()).toBe("ack");
    // The nak'ed repeat comes back after the first attempt's ack: done, dropped unfetched.
    const after = bus.deliver(pageTask(`${server.origin}/`, "t1", 250), 2);
    await after.done;
    expect(after.outcome()).toBe("ack");
    expect(requests).toBe(1);
    expect(bus.results).toHaveLength(1);
  });

  test("fetch node - another stored copy of a task whose outputs wait here is acked unfetched at once, and the attempt still acks its own", async () => {
    let requests = 0;
    const counting: TaskRunner = { run: (task, signal) => (requests++, path.worker.run(task, signal)) };
    await startNode(counting);
    bus.failPublishes = 1_000_000;
    const first = bus.deliver(pageTask(`${server.origin}/`, "t1", 250), 1, 1);
    await waitFor(() => node!.gauges().outboxWaiting === 1);
    // A frontier's re-offer after a NATS drop: copy 2 of the same task.
    const reoffer = bus.deliver(pageTask(`${server.origin}/`, "t1", 250), 1, 2);
    await reoffer.done;
    expect(reoffer.outcome()).toBe("ack");
    expect(requests).toBe(1);
    expect(node!.counters.get("fetcher.tasks.duplicate-copy-dropped")).toBe(1);
    bus.failPublishes = 0;
    await first.done;
    expect(first.outcome()).toBe("ack");
    expect(bus.results).toHaveLength(1);
  });

  test("fetch node - a node stopping while outputs wait for the bus hands their tasks back unacked", async () => {
    await startNode();
    bus.failPublishes = 1_000_000;
    const since = performance.now();
    const held = bus.deliver(pageTask(`${server.origin}/`, "t1", 60_000));
    await waitFor(() => node!.gauges().outboxWaiting === 1);
    await node!.stop(50);
    await held.done;
    // Its request was made: it comes back no sooner than the host's gap after the fetch, less what it waited here.
    expect(nakDelay(held.outcome())).toBeGreaterThanOrEqual(60_000 - (performance.now() - since));
    expect(bus.results).toHaveLength(0);
    expect(node!.counters.get("fetcher.tasks.abandoned")).toBe(1);
  });

  test("fetch node - a task delivered again after another node's attempt first waits its host's gap, then is done", async () => {
    let asked = 0;
    const counting: TaskRunner = { run: (task, signal) => (asked++, path.worker.run(task, signal)) };
    await startNode(counting);
    // Another node took this task and died mid-fetch: its request to the host ended as it died, just now.
    const first = bus.deliver(pageTask(`${server.origin}/`, "t9", 1_500), 2);
    await first.done;
    expect(first.outcome()).toBe("nak 1500");
    expect(asked).toBe(0);
    const again = bus.deliver(pageTask(`${server.origin}/`, "t9", 1_500), 3);
    await again.done;
    expect(again.outcome()).toBe("ack");
    expect(asked).toBe(1);
    expect(node!.counters.get("fetcher.tasks.redelivered-spaced")).toBe(1);
  });

  test("fetch node - a task done is never fetched again: neither a second stored copy nor a repeat of its own copy", async () => {
    let asked = 0;
    const counting: TaskRunner = { run: (task, signal) => (asked++, path.worker.run(task, signal)) };
    await startNode(counting);
    const first = bus.deliver(pageTask(`${server.origin}/`, "t5"), 1, 7);
    await first.done;
    expect(first.outcome()).toBe("ack");
    // The same task stored again (a frontier published it again after a NATS restart), and copy 7 again
    // (its ack was lost): both acked unfetched.
    for (const [count, copy] of [
      [1, 8],
      [2, 7],
      [1, 7],
    ] as const) {
      const repeat = bus.deliver(pageTask(`${server.origin}/`, "t5"), count, copy);
      await repeat.done;
      expect(repeat.outcome()).toBe("ack");
    }
    expect(asked).toBe(1);
    expect(bus.results).toHaveLength(1);
    expect(node!.counters.get("fetcher.tasks.done-dropped")).toBe(3);
  });

  test("fetch node - a second stored copy of a task under way is dropped, and the first copy's redelivery is fetched", async () => {
    let asked = 0;
    const failingOnce: TaskRunner = {
      run: async (task, signal) => {
        if (asked++ === 0) throw new Error("the WARC store failed");
        return path.worker.run(task, signal);
      },
    };
    await startNode(failingOnce);
    const first = bus.deliver(pageTask(`${server.origin}/`, "t6"), 1, 3);
    await first.done;
    expect(first.outcome()).toStartWith("nak");
    const other = bus.deliver(pageTask(`${server.origin}/`, "t6"), 1, 4);
    await other.done;
    expect(other.outcome()).toBe("ack");
    expect(node!.counters.get("fetcher.tasks.duplicate-copy-dropped")).toBe(1);
    // Copy 3 comes back after its nak, which already spaced it by the host's gap: done now.
    const again = bus.deliver(pageTask(`${server.origin}/`, "t6"), 2, 3);
    await again.done;
    expect(again.outcome()).toBe("ack");
    expect(asked).toBe(2);
    expect(bus.results).toHaveLength(1);
  });

  test("fetch node - a repeat the bus did not count waits until the first attempt must have ended, plus the host's gap", async () => {
    let asked = 0;
    const counting: TaskRunner = { run: (task, signal) => (asked++, path.worker.run(task, signal)) };
    const claims = new MemoryFetchClaims();
    await startNode(counting, 60_000, claims);
    // Another node took copy 9 just now; the restarted NATS server forgot that and delivers it as new.
    await claims.claim("t7", 9, 60_000);
    const repeat = bus.deliver(pageTask(`${server.origin}/`, "t7", 1_500), 1, 9);
    await repeat.done;
    const attemptMaxMs = DEFAULT_POLICY.connectTimeoutMs + DEFAULT_POLICY.responseTimeoutMs;
    expect(nakDelay(repeat.outcome())).toBeGreaterThan(attemptMaxMs + 1_500 - 1_000);
    expect(nakDelay(repeat.outcome())).toBeLessThanOrEqual(attemptMaxMs + 1_500);
    expect(asked).toBe(0);
    expect(node!.counters.get("fetcher.tasks.redelivered-unannounced")).toBe(1);
    // Its next delivery was spaced here: fetched.
    const later = bus.deliver(pageTask(`${server.origin}/`, "t7", 1_500), 2, 9);
    await later.done;
    expect(later.outcome()).toBe("ack");
    expect(asked).toBe(1);
  });

  test("fetch node - a worker that throws gets the task redelivered, later at each delivery", async () => {
    const broken: TaskRunner = { run: async () => Promise.reject(new Error("disk full")) };
    await startNode(broken);
    const outcomes: Array<string | undefined> = [];
    for (const n of [1, 2, 3, 9]) {
      const d = bus.deliver(pageTask(`${server.origin}/`), n);
      await d.done;
      outcomes.push(d.outcome());
    }
    expect(outcomes).toEqual(["nak 1000", "nak 2000", "nak 4000", "nak 64000"]);
    expect(bus.results).toHaveLength(0);
    expect(bus.urls).toHaveLength(0);
  });

  test("fetch node - the heartbeat announces a fetcher with its counters, and a clean stop removes it", async () => {
    await startNode(path.worker, 20);
    await bus.deliver(pageTask(`${server.origin}/`)).done;
    let record = (await state.listNodes())[0];
    expect(record).toMatchObject({ id: "f1", role: "fetcher", region: "us", runtime: "bun", status: "active", grpcAddress: "" });
    // A later beat carries the counters.
    const until = Date.now() + 2_000;
    while (Date.now() < until && !(record?.counters["fetcher.status.200"] === 1)) {
      await new Promise((r) => setTimeout(r, 10));
      record = (await state.listNodes())[0];
    }
    expect(record!.counters["fetcher.status.200"]).toBe(1);
    expect(record!.gauges["concurrency"]).toBe(4);
    await node!.stop(1_000);
    expect(await state.listNodes()).toEqual([]);
    expect(bus.stopped).toBe(true);
    expect(node!.ready).toBe(false);
  });

  test("fetch node - stop lets a task in flight finish and publishes it before leaving", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: TaskRunner = {
      run: async (task, signal) => {
        await gate;
        return path.worker.run(task, signal);
      },
    };
    await startNode(slow);
    const d = bus.deliver(pageTask(`${server.origin}/`));
    await waitFor(() => node!.tasksInFlight === 1);
    const stopping = node!.stop(5_000);
    expect(node!.ready).toBe(false);
    // A task delivered while stopping goes straight back.
    const late = bus.deliver(pageTask(`${server.origin}/`, "t2"));
    await late.done;
    expect(late.outcome()).toBe("nak 0");
    release();
    await stopping;
    await d.done;
    expect(d.outcome()).toBe("ack");
    expect(bus.results.map((r) => r.result.taskId)).toEqual(["t1"]);
  });

  test("fetch node - past the grace period a task in flight is aborted and handed back after its host's gap, with nothing published", async () => {
    await startNode();
    const d = bus.deliver(pageTask(`${server.origin}/slow`, "t1", 1_500));
    await waitFor(() => node!.tasksInFlight === 1);
    await node!.stop(100);
    // The stop did not wait for the answer: the node hung up on the request before the server answered.
    expect(slowPage.answered).toBe(false);
    await waitFor(() => slowPage.closedEarly);
    await d.done;
    // Another node may fetch it again, but the host saw a request end just now: not before its gap, and
    // 10 x the attempt's time (about 100 ms here) on top, in case a response had come in full.
    expect(nakDelay(d.outcome())).toBeGreaterThanOrEqual(1500 + 10 * 100);
    expect(bus.results).toHaveLength(0);
    expect(node!.counters.get("fetcher.tasks.abandoned")).toBe(1);
  });

  test("fetch node - a result leaves stamped with the node's clock, so the frontier can move its times onto its own", async () => {
    await startNode();
    const before = preciseNow();
    await bus.deliver(pageTask(`${server.origin}/`)).done;
    const after = preciseNow();
    const result = bus.results[0]!.result;
    expect(result.sentAt).toBeGreaterThanOrEqual(result.endedAt);
    expect(result.endedAt).toBeGreaterThan(result.startedAt);
    expect(result.startedAt).toBeGreaterThanOrEqual(before);
    expect(result.sentAt).toBeLessThanOrEqual(after);
  });
});

describe("fetch node on the in-process bus", () => {
  let server: TestServer;
  let dir: string;
  let path: FetchPath;
  let bus: MemoryBus;
  let node: FetchNode;

  beforeEach(async () => {
    server = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(`<p>links to two regions</p><a href="/next">n</a><a href="http://shop.example.de/x">de</a>`);
    });
    dir = await mkdtemp(join(tmpdir(), "fetch-node-bus-test-"));
    path = await openFetchPath({
      policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true },
      warcDir: dir,
      warcPrefix: "f1",
      maxConcurrentRequests: 4,
      content: new MemoryContentIndex(),
    });
    bus = new MemoryBus({ viaCodec: true, onError: () => {} });
    await bus.ensureRegion("us", P);
    await bus.ensureRegion("eu", P);
  });

  afterEach(async () => {
    await node.stop(1_000);
    await bus.close();
    await path.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (worker: TaskRunner) => {
    node = new FetchNode({
      nodeId: "f1",
      region: "us",
      runtime: "bun",
      httpAddress: "",
      regionRules: rules,
      partitions: P,
      concurrency: 2,
      heartbeatMs: 60_000,
      nakDelayMs: 10,
      bus,
      state: new MemoryClusterState(),
      worker,
      claims: new MemoryFetchClaims(),
      claimTtlMs: 60_000,
    });
    await node.start();
  };

  /** Collects what arrives on a consumer's queue, acking it as the frontier would. */
  const collect = <T>(consume: (h: (d: Delivery<T>) => Promise<void>) => Subscription) => {
    const got: T[] = [];
    const sub = consume(async (d) => {
      got.push(d.data);
      await d.ack();
    });
    return { got, sub };
  };

  test("fetch node - a published task comes back as links on their partitions and a result on its owner's partition", async () => {
    await start(path.worker);
    const task = pageTask(`${server.origin}/`);
    const localHost = new URL(server.origin).host;
    const results = collect<FetchResult>((h) => bus.consumeResults("us", task.partition, h));
    const local = collect<DiscoveredUrl[]>((h) => bus.consumeUrls("us", partitionOf(localHost, P), h));
    const de = collect<DiscoveredUrl[]>((h) => bus.consumeUrls("eu", partitionOf("shop.example.de", P), h));
    await bus.publishTask("us", task);
    await waitFor(() => results.got.length === 1 && local.got.length === 1 && de.got.length === 1);
    expect(results.got[0]).toMatchObject({ taskId: "t1", status: 200, linksFound: 2 });
    expect(local.got[0]!.map((u) => u.url)).toEqual([`${server.origin}/next`]);
    expect(de.got[0]!.map((u) => u.url)).toEqual(["http://shop.example.de/x"]);
    await waitFor(() => bus.depth("us/fetchers") === 0);
    for (const s of [results, local, de]) await s.sub.stop();
  });

  test("fetch node - a task whose handling failed is redelivered by the bus and then completed", async () => {
    let calls = 0;
    await start({
      run: async (task, signal) => {
        if (calls++ === 0) throw new Error("content index unavailable");
        return path.worker.run(task, signal);
      },
    });
    const task = pageTask(`${server.origin}/`);
    const results = collect<FetchResult>((h) => bus.consumeResults("us", task.partition, h));
    await bus.publishTask("us", task);
    await waitFor(() => results.got.length === 1);
    expect(calls).toBe(2);
    expect(node.counters.get("fetcher.tasks.failed")).toBe(1);
    expect(node.counters.get("fetcher.tasks.redelivered")).toBe(1);
    await waitFor(() => bus.depth("us/fetchers") === 0);
    await results.sub.stop();
  });
});

describe("fetch nodes of a region sharing their fetch claims in Redis", () => {
  let redis: RedisServer;
  let server: TestServer;
  let dir: string;
  let bus: MemoryBus;
  const requests = new Map<string, number>();
  const opened: Array<{ close(): Promise<void> }> = [];
  const nodes: FetchNode[] = [];
  const clients: RedisClient[] = [];

  beforeEach(async () => {
    requests.clear();
    redis = await startRedis();
    server = await startHttpServer((req, res) => {
      requests.set(req.url ?? "", (requests.get(req.url ?? "") ?? 0) + 1);
      res.setHeader("content-type", "text/html");
      res.end(`<p>a page</p><a href="/next">n</a>`);
    });
    dir = await mkdtemp(join(tmpdir(), "fetch-node-claims-test-"));
    // No duplicate window: a task published twice is stored twice, as after a NATS restart.
    bus = new MemoryBus({ viaCodec: true, duplicateWindowMs: 0, onError: () => {} });
    await bus.ensureRegion("us", P);
  });

  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.stop(1_000)));
    await bus.close();
    for (const o of opened.splice(0)) await o.close();
    for (const c of clients.splice(0)) if (c.isOpen) await c.close();
    await server.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A fetch node with its own fetch path and its own connection to the region's Redis. */
  const startFetchNode = async (id: string, worker?: (path: FetchPath) => TaskRunner, busOf: (b: MemoryBus) => MessageBus = (b) => b) => {
    const path = await openFetchPath({
      policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true },
      warcDir: join(dir, id),
      warcPrefix: id,
      maxConcurrentRequests: 4,
      content: new MemoryContentIndex(),
    });
    opened.push(path);
    const client = await connectRedis(redis.url, { commandTimeoutMs: 500 });
    clients.push(client);
    const node = new FetchNode({
      nodeId: id,
      region: "us",
      runtime: "bun",
      httpAddress: "",
      regionRules: rules,
      partitions: P,
      concurrency: 2,
      heartbeatMs: 60_000,
      nakDelayMs: 10,
      bus: busOf(bus),
      state: new MemoryClusterState(),
      worker: worker?.(path) ?? path.worker,
      claims: new RedisFetchClaims(client),
      claimTtlMs: 60_000,
    });
    nodes.push(node);
    await node.start();
    return node;
  };

  const results = () => {
    const got: FetchResult[] = [];
    const sub = bus.consumeResults("us", partitionOf(new URL(server.origin).host, P), async (d) => {
      got.push(d.data);
      await d.ack();
    });
    return { got, sub };
  };
  /** Deliveries acked unfetched: another copy under way, or the task done. */
  const dropped = () =>
    nodes.reduce(
      (n, node) => n + node.counters.get("fetcher.tasks.duplicate-copy-dropped") + node.counters.get("fetcher.tasks.done-dropped"),
      0,
    );

  test("fetch nodes - a task stored twice is fetched once, whether its copies come together or one after the other", async () => {
    await startFetchNode("f1");
    await startFetchNode("f2");
    const got = results();
    // Two copies at once: each node takes one, they race for the claim.
    const together = pageTask(`${server.origin}/together`, "task-together");
    await bus.publishTask("us", together);
    await bus.publishTask("us", together);
    await waitFor(() => bus.depth("us/fetchers") === 0 && got.got.length === 1, 10_000);
    expect(requests.get("/together")).toBe(1);
    expect(dropped()).toBe(1);
    // The second copy stored after the first was fetched and acked (the restarted server's window lacks it).
    const later = pageTask(`${server.origin}/later`, "task-later");
    await bus.publishTask("us", later);
    await waitFor(() => bus.depth("us/fetchers") === 0 && got.got.length === 2, 10_000);
    await bus.publishTask("us", later);
    await waitFor(() => bus.depth("us/fetchers") === 0 && dropped() === 2, 10_000);
    expect(requests.get("/later")).toBe(1);
    expect(got.got.map((r) => r.taskId)).toEqual(["task-together", "task-later"]);
    await got.sub.stop();
  });

  test("fetch nodes - a re-offered copy of a task whose delivery was lost is fetched once, and the original's late redelivery is dropped", async () => {
    // The original copy comes back after a short ack wait here (60 s in the cluster).
    await bus.close();
    bus = new MemoryBus({ viaCodec: true, duplicateWindowMs: 0, fetchAckWaitMs: 1_000, onError: () => {} });
    await bus.ensureRegion("us", P);
    const lostTask = pageTask(`${server.origin}/lost`, "task-lost");
    await bus.publishTask("us", lostTask);
    // The original is handed out and lost on the way: the bus counts it as out until its ack wait.
    let takenAway = 0;
    const blackHole = bus.consumeTasks("us", async () => void takenAway++, { concurrency: 1 });
    await waitFor(() => takenAway === 1, 5_000);
    await blackHole.stop();
    // The frontier re-offers it as a new copy, which the fetch nodes get at once.
    await bus.publishTask("us", lostTask, 1);
    await startFetchNode("f1");
    await startFetchNode("f2");
    const got = results();
    await waitFor(() => got.got.length === 1, 10_000);
    await waitFor(() => bus.depth("us/fetchers") === 0 && dropped() === 1, 10_000);
    expect(requests.get("/lost")).toBe(1);
    expect(got.got.map((r) => r.taskId)).toEqual(["task-lost"]);
    await got.sub.stop();
  });

  test("fetch nodes - a copy redelivered after a failed attempt is still fetched, on whichever node takes it", async () => {
    let attempts = 0;
    const failingOnce = (path: FetchPath): TaskRunner => ({
      run: async (task, signal) => {
        if (attempts++ === 0) throw new Error("the WARC store failed (expected in this test)");
        return path.worker.run(task, signal);
      },
    });
    await startFetchNode("f1", failingOnce);
    await startFetchNode("f2", failingOnce);
    const got = results();
    await bus.publishTask("us", pageTask(`${server.origin}/retried`, "task-retried"));
    await waitFor(() => got.got.length === 1 && bus.depth("us/fetchers") === 0, 10_000);
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(requests.get("/retried")).toBe(1);
    expect(dropped()).toBe(0);
    await got.sub.stop();
  });

  test("fetch nodes - while one node holds a task's outputs for the bus, a repeat of it on another node is handed back unfetched", async () => {
    // Redelivered after a short ack wait while the first attempt's result cannot be published.
    await bus.close();
    bus = new MemoryBus({ viaCodec: true, duplicateWindowMs: 0, fetchAckWaitMs: 300, onError: () => {} });
    await bus.ensureRegion("us", P);
    const refusing = { on: true };
    const refusingResults = (b: MemoryBus): MessageBus =>
      new Proxy(b, {
        get(target, key) {
          if (key === "publishResult")
            return async (...args: Parameters<MessageBus["publishResult"]>) => {
              if (refusing.on) throw new Error("the bus refuses (expected in this test)");
              return target.publishResult(...args);
            };
          const value = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const holder = await startFetchNode("f1", undefined, refusingResults);
    const got = results();
    await bus.publishTask("us", pageTask(`${server.origin}/held`, "task-held"));
    await waitFor(() => holder.gauges().outboxWaiting === 1, 10_000);
    const other = await startFetchNode("f2");
    // The ack wait runs out while f1 holds the outputs: the bus redelivers the task, f2 takes it.
    await waitFor(() => other.counters.get("fetcher.tasks.held-elsewhere") >= 1, 10_000);
    expect(requests.get("/held")).toBe(1);
    expect(got.got).toHaveLength(0);
    refusing.on = false;
    await waitFor(() => got.got.length === 1 && holder.gauges().outboxWaiting === 0, 10_000);
    // Whatever delivery of it comes now is dropped as done; the host was asked once.
    await waitFor(() => bus.depth("us/fetchers") === 0, 30_000);
    expect(requests.get("/held")).toBe(1);
    expect(got.got.map((r) => r.taskId)).toEqual(["task-held"]);
    await got.sub.stop();
  });

  test("fetch nodes - when Redis cannot answer, a task is fetched anyway and counted as unclaimed", async () => {
    const node = await startFetchNode("f1");
    const got = results();
    await redis.kill();
    await bus.publishTask("us", pageTask(`${server.origin}/unclaimed`, "task-unclaimed"));
    await waitFor(() => got.got.length === 1 && bus.depth("us/fetchers") === 0, 10_000);
    expect(requests.get("/unclaimed")).toBe(1);
    // Its claim and its done mark, both unanswered.
    expect(node.counters.get("fetcher.claims.unavailable")).toBe(2);
    await got.sub.stop();
    const killed = redis.dir;
    redis = await startRedis({ port: redis.port });
    await rm(killed, { recursive: true, force: true });
  });
});

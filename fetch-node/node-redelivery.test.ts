/**
 * The fetch node when a task comes more than once, with a bus that records every call: outputs the bus
 * refuses are held and the task acked once they are published; a repeat or another stored copy of a task
 * whose outputs wait here, under way, or done is never fetched twice; a redelivery after another node's
 * attempt waits its host's gap first.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryClusterState, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { TaskRunner } from "../core/ports/index.ts";
import type { FetchPath } from "../engine/fetch/fetch-path.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { FetchNode } from "./node.ts";
import { nakDelay, nodeOptions, openTestFetchPath, pageTask, RecordingBus, servePages } from "./testing.ts";

describe("fetch node", () => {
  let server: TestServer;
  let dir: string;
  let path: FetchPath;
  let bus: RecordingBus;
  let state: MemoryClusterState;
  let node: FetchNode | undefined;

  beforeEach(async () => {
    server = await startHttpServer(servePages);
    dir = await mkdtemp(join(tmpdir(), "fetch-node-test-"));
    path = await openTestFetchPath(dir, "f1", 8);
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
    node = new FetchNode(
      nodeOptions({ httpAddress: "http://127.0.0.1:1", concurrency: 4, heartbeatMs, nakDelayMs: 1_000, bus, state, worker, claims }),
    );
    await node.start();
    return node;
  };

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
});

/**
 * The fetch node with a bus that records every call: a task end to end (links to their partitions, the
 * result to its owner, the ack last), a full WARC disk, a worker that throws, the heartbeat, stopping with
 * a task in flight, and the clock a result leaves with. Redeliveries and copies: node-redelivery.test.ts;
 * on the in-process bus: node-memory-bus.test.ts; several nodes sharing claims in Redis:
 * node-shared-claims.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryClusterState, MemoryContentIndex, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import { preciseNow } from "../core/politeness/index.ts";
import type { TaskRunner } from "../core/ports/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { openFetchPath, type FetchPath } from "../engine/fetch/fetch-path.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { checkDiskRoom } from "../kit/fs/index.ts";
import { mountSmallDisk } from "../tests/support/small-disk.ts";
import { FetchNode } from "./node.ts";
import { nakDelay, nodeOptions, openTestFetchPath, P, pageTask, RecordingBus, rules, servePages, slowPage } from "./testing.ts";

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

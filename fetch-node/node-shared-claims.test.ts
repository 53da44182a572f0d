/**
 * Fetch nodes of a region sharing their fetch claims in Redis (a real redis-server): a task stored twice,
 * re-offered after a lost delivery, redelivered after a failed attempt, or repeated while another node
 * holds its outputs is fetched once; with Redis down a task is fetched anyway and counted as unclaimed.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus, MemoryClusterState } from "../adapters/memory/index.ts";
import { connectRedis, RedisFetchClaims, type RedisClient } from "../adapters/redis/index.ts";
import type { FetchResult } from "../core/model/index.ts";
import type { MessageBus, TaskRunner } from "../core/ports/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import type { FetchPath } from "../engine/fetch/fetch-path.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { startRedis, type RedisServer } from "../tests/support/redis.ts";
import { FetchNode } from "./node.ts";
import { nodeOptions, openTestFetchPath, P, pageTask } from "./testing.ts";

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
    const path = await openTestFetchPath(join(dir, id), id, 4);
    opened.push(path);
    const client = await connectRedis(redis.url, { commandTimeoutMs: 500 });
    clients.push(client);
    const node = new FetchNode(
      nodeOptions({
        nodeId: id,
        bus: busOf(bus),
        state: new MemoryClusterState(),
        worker: worker?.(path) ?? path.worker,
        claims: new RedisFetchClaims(client),
      }),
    );
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
    await bus.publishTask("us", lostTask, { reoffer: 1 });
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

  test("fetch nodes - a task of a former owner of its partition, claimed after the new owner's first task, is dropped unfetched", async () => {
    const f1 = await startFetchNode("f1");
    const f2 = await startFetchNode("f2");
    const got = results();
    const stamped = (path: string, id: string, ownerEpoch: number) => ({ ...pageTask(`${server.origin}${path}`, id), ownerEpoch });
    // The partition's owner since epoch 2, then a new owner since epoch 4 (the first was declared dead while paused).
    await bus.publishTask("us", stamped("/first-owner", "task-first-owner", 2));
    await waitFor(() => got.got.length === 1, 10_000);
    await bus.publishTask("us", stamped("/new-owner", "task-new-owner", 4));
    await waitFor(() => got.got.length === 2, 10_000);
    // The former owner, thawed, hands out a task before it learns the ring: never sent to the host.
    await bus.publishTask("us", stamped("/former-owner", "task-former-owner", 2));
    const staleDropped = () => f1.counters.get("fetcher.tasks.stale-owner-dropped") + f2.counters.get("fetcher.tasks.stale-owner-dropped");
    await waitFor(() => bus.depth("us/fetchers") === 0 && staleDropped() === 1, 10_000);
    expect(requests.get("/former-owner")).toBeUndefined();
    expect(got.got.map((r) => r.taskId)).toEqual(["task-first-owner", "task-new-owner"]);
    // A task without an epoch (embedded, an older release) is not fenced.
    await bus.publishTask("us", pageTask(`${server.origin}/unstamped`, "task-unstamped"));
    await waitFor(() => got.got.length === 3, 10_000);
    expect(requests.get("/unstamped")).toBe(1);
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

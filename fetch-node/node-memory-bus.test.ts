/**
 * The fetch node on the in-process bus (MemoryBus through the wire codec): a published task comes back as
 * links on their partitions and a result on its owner's partition, and a task whose handling failed is
 * redelivered by the bus and then completed.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus, MemoryClusterState, MemoryFetchClaims } from "../adapters/memory/index.ts";
import type { DiscoveredUrl, FetchResult } from "../core/model/index.ts";
import type { Delivery, Subscription, TaskRunner } from "../core/ports/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import type { FetchPath } from "../engine/fetch/fetch-path.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { FetchNode } from "./node.ts";
import { nodeOptions, openTestFetchPath, P, pageTask } from "./testing.ts";

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
    path = await openTestFetchPath(dir, "f1", 4);
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
    node = new FetchNode(nodeOptions({ bus, state: new MemoryClusterState(), worker, claims: new MemoryFetchClaims() }));
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

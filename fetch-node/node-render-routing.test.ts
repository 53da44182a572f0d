/**
 * Which fetch node renders: a task asking for rendering goes to the region's render queue, which only a
 * node with a browser pulls (it announces its pool as the `renderPool` gauge of its record, which frontier
 * nodes read through FetchersWatch). With only a node without a browser, the task waits in the queue and
 * the region is seen without a renderer; once a node with Chromium starts, it takes the task, renders the
 * page (real Chromium, real HTTP server) and finds the link only the page's script makes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryBus, MemoryClusterState, MemoryContentIndex, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { DiscoveredUrl, FetchResult } from "../core/model/index.ts";
import type { Delivery, Subscription } from "../core/ports/index.ts";
import { openFetchPath, type FetchPath } from "../engine/fetch/index.ts";
import { startHttpServer, waitFor, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { chromiumRenderer } from "../engine/render/index.ts";
import { FetchersWatch } from "../frontier-node/node/fetchers-watch.ts";
import { FetchNode } from "./node.ts";
import { nodeOptions, openTestFetchPath, P, pageTask } from "./testing.ts";

const SHELL = `<!doctype html><html><head><title>app</title></head><body><div id="root"></div>
<script>document.getElementById("root").innerHTML = '<a href="/only-by-script">x</a>';</script></body></html>`;

describe("fetch node render routing", () => {
  let server: TestServer;
  let dir: string;
  const paths: FetchPath[] = [];
  const nodes: FetchNode[] = [];
  let bus: MemoryBus;
  let state: MemoryClusterState;

  beforeEach(async () => {
    server = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(SHELL);
    });
    dir = await mkdtemp(join(tmpdir(), "fetch-node-render-test-"));
    bus = new MemoryBus({ viaCodec: true, onError: () => {} });
    state = new MemoryClusterState();
    await bus.ensureRegion("us", P);
  });

  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop(1_000);
    await bus.close();
    for (const p of paths.splice(0)) await p.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const collect = <T>(consume: (h: (d: Delivery<T>) => Promise<void>) => Subscription) => {
    const got: T[] = [];
    const sub = consume(async (d) => {
      got.push(d.data);
      await d.ack();
    });
    return { got, sub };
  };

  test("fetch node - a task asking for rendering goes only to a node that renders, which finds the script's link", async () => {
    const plainPath = await openTestFetchPath(join(dir, "plain"), "plain", 2);
    paths.push(plainPath);
    const plain = new FetchNode(nodeOptions({ nodeId: "plain", bus, state, worker: plainPath.worker, claims: new MemoryFetchClaims() }));
    nodes.push(plain);
    await plain.start();
    const watch = new FetchersWatch({ state, region: "us", staleMs: () => 60_000, renderStaleMs: 60_000 });
    await watch.start();
    expect(watch.renderAvailable).toBe(false);

    const task = { ...pageTask(`${server.origin}/`, "r1"), render: "always" as const };
    const results = collect<FetchResult>((h) => bus.consumeResults("us", task.partition, h));
    const links = collect<DiscoveredUrl[]>((h) => bus.consumeUrls("us", task.partition, h));
    await bus.publishTask("us", task);
    // The node without a browser never takes it: it waits in the render queue.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(results.got).toEqual([]);
    expect(bus.depth("us/renderers")).toBe(1);

    const policy = { ...DEFAULT_POLICY, allowPrivateAddresses: true, render: "always" as const, renderPool: 2 };
    const renderPath = await openFetchPath({
      policy,
      warcDir: join(dir, "render"),
      warcPrefix: "render",
      maxConcurrentRequests: 2,
      content: new MemoryContentIndex(),
      renderer: chromiumRenderer(policy),
    });
    paths.push(renderPath);
    const renderer = new FetchNode(
      nodeOptions({ nodeId: "renderer", bus, state, worker: renderPath.worker, claims: new MemoryFetchClaims(), renderPool: 2 }),
    );
    nodes.push(renderer);
    await renderer.start();
    await waitFor(() => results.got.length === 1, 60_000);
    expect(results.got[0]!.render).toMatchObject({ outcome: "rendered", extraLinks: 1 });
    await waitFor(() => links.got.length === 1);
    expect(links.got[0]!.find((u) => u.url.endsWith("/only-by-script"))).toMatchObject({ foundByRender: true });
    // The rendering node's record announces its pool: the frontier nodes of the region now ask for rendering.
    watch.stop();
    const after = new FetchersWatch({ state, region: "us", staleMs: () => 60_000, renderStaleMs: 60_000 });
    await after.start();
    expect(after.renderAvailable).toBe(true);
    after.stop();
    for (const s of [results, links]) await s.sub.stop();
  }, 90_000);
});

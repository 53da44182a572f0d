/**
 * A fetch node whose egress proxy stops taking connections: the task that meets the refusal publishes no
 * result (the host was never asked, so the frontier must not hear of a failure) and is handed back for the
 * node's next probe; tasks delivered meanwhile are handed back unfetched; once the proxy is back, the next
 * task is fetched as usual. One warning names the proxy as the cause.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryClusterState, MemoryContentIndex, MemoryFetchClaims } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { Log } from "../core/ports/index.ts";
import { openFetchPath, type FetchPath } from "../engine/fetch/fetch-path.ts";
import { proxyListens } from "../engine/fetch/index.ts";
import { startHttpServer, type TestServer } from "../engine/fetch/http/test-servers.ts";
import { startTcpGate, type TcpGate } from "../tests/support/tcp-gate.ts";
import { FetchNode } from "./node.ts";
import { nakDelay, nodeOptions, pageTask, RecordingBus, servePages } from "./testing.ts";

let server: TestServer;
let gate: TcpGate;
let dir: string;
let path: FetchPath;
let node: FetchNode | undefined;
const warnings: string[] = [];
const log: Log = { info() {}, warn: (m) => void warnings.push(m), error() {}, child: () => log };

beforeEach(async () => {
  // The pages server answers absolute-form requests too, so behind the gate it stands in for a forward proxy.
  server = await startHttpServer(servePages);
  gate = await startTcpGate(server.port);
  dir = await mkdtemp(join(tmpdir(), "fetch-node-local-"));
  path = await openFetchPath({
    policy: { ...DEFAULT_POLICY, allowPrivateAddresses: true, keepAliveMs: 1 },
    warcDir: dir,
    warcPrefix: "f1",
    maxConcurrentRequests: 4,
    content: new MemoryContentIndex(),
    proxyUrl: gate.url,
  });
  warnings.length = 0;
});

afterEach(async () => {
  await node?.stop(0);
  await path.close();
  await gate.stop();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

test("a refusing proxy: no result, the task handed back, the next ones handed back unfetched, then all goes on", async () => {
  const bus = new RecordingBus();
  node = new FetchNode(
    nodeOptions({ bus, state: new MemoryClusterState(), worker: path.worker, claims: new MemoryFetchClaims(), nakDelayMs: 10, log }),
  );
  await node.start();
  await gate.close();
  const first = bus.deliver(pageTask("http://site-a.example/", "t1"));
  await first.done;
  // Handed back for about the first backoff (1 s), not for the host's retry schedule; nothing published.
  expect(nakDelay(first.outcome())).toBeGreaterThan(900);
  expect(nakDelay(first.outcome())).toBeLessThanOrEqual(1_000);
  expect(bus.attempted).toEqual([]);
  expect(bus.urls).toEqual([]);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toStartWith("fetching paused: the egress proxy refused the connection or could not be reached");
  // Meanwhile another task is handed back without a request.
  const accepted = gate.accepted;
  const second = bus.deliver(pageTask("http://site-b.example/", "t2"));
  await second.done;
  expect(nakDelay(second.outcome())).toBeGreaterThan(0);
  // For the nak delay at most (10 ms here), not until this node's next probe (~1 s): another node may take it.
  expect(nakDelay(second.outcome())).toBeLessThanOrEqual(10);
  expect(node.counters.get("fetcher.tasks.deferred-local-trouble")).toBe(1);
  expect(gate.accepted).toBe(accepted);
  // The proxy is back; once the backoff has passed, the task is fetched and its result published.
  await gate.open();
  await new Promise((r) => setTimeout(r, 1_050));
  const again = bus.deliver(pageTask("http://site-b.example/", "t2"), 2);
  await again.done;
  expect(again.outcome()).toBe("ack");
  expect(bus.results.map((r) => r.result)).toMatchObject([{ taskId: "t2", kind: "response", status: 200 }]);
  expect(node.counters.get("fetch.local.proxy-unreachable")).toBe(1);
  expect(warnings).toHaveLength(1);
});

test("a node in local trouble that gets no task (its hosts sent to other nodes) stands aside from its inbox, finds the proxy back by itself and takes hosts again", async () => {
  const bus = new RecordingBus();
  const pulled: string[] = [];
  const consume = bus.consumeTasks.bind(bus);
  bus.consumeTasks = (region, handler, opts) => {
    pulled.push(opts.inbox ?? "shared");
    return consume(region, handler, opts);
  };
  node = new FetchNode(
    nodeOptions({
      bus,
      state: new MemoryClusterState(),
      worker: path.worker,
      claims: new MemoryFetchClaims(),
      nakDelayMs: 10,
      log,
      localCheck: { covers: (cause) => cause === "proxy-unreachable", check: () => proxyListens(gate.url, 500) },
    }),
  );
  await node.start();
  await gate.close();
  await bus.deliver(pageTask("http://site-a.example/", "t1")).done;
  expect(node.gauges().localTrouble).toBe(1);
  // It stopped pulling its own inbox at once, so that its heir gets its hosts' tasks meanwhile.
  expect(node.counters.get("fetcher.inbox.stood-aside")).toBe(1);
  expect(bus.stopped).toBe(true);
  // Still cut past the first backoff: its own check finds it so, and it stays out.
  await Bun.sleep(1_600);
  expect(node.gauges().localTrouble).toBe(1);
  // Back, and no task arrives: the next check (after a 2 s backoff at most) ends the trouble.
  await gate.open();
  const until = performance.now() + 4_000;
  while (node.gauges().localTrouble === 1 && performance.now() < until) await Bun.sleep(50);
  expect(node.gauges().localTrouble).toBe(0);
  expect(bus.attempted).toEqual([]);
  // And it pulls its inbox again (the tick after the check at the latest).
  await Bun.sleep(1_100);
  expect(pulled.filter((inbox) => inbox === "f1")).toHaveLength(2);
  // Its waits add up to 6.7 s at most (1.6 + 4 + 1.1), past bun's 5 s default: it timed out once on a busy box.
}, 15_000);

/**
 * The frontier node process over real services: nats-server (JetStream, KV) and redis-server on loopback,
 * the node run as `bun frontier-node/main.ts` in a fresh data dir. Waits on conditions, never on sleeps.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectNats, JetStreamBus, NatsKvClusterState, type NatsConnection } from "../adapters/nats/index.ts";
import { FrontierClient } from "../adapters/grpc/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { startNats, type NatsServer } from "../tests/support/nats.ts";
import { startRedis, type RedisServer } from "../tests/support/redis.ts";
import { resultFor, ringOf, waitFor, writeRing } from "./node/testing.ts";

const REPO = resolve(import.meta.dir, "..");
const P = 4;
const REGION = "r1";

let nats: NatsServer;
let redis: RedisServer;
let nc: NatsConnection;
let state: NatsKvClusterState;
let bus: JetStreamBus;
const dirs: string[] = [];
/** Every node process started: a test that fails half-way must not leave one running. */
const children: ChildProcess[] = [];

beforeAll(async () => {
  [nats, redis] = await Promise.all([startNats(), startRedis()]);
  nc = await connectNats(nats.url, "main-test");
  state = await NatsKvClusterState.open(nc);
  bus = new JetStreamBus(nc, { onError: () => {} });
  await bus.ensureRegion(REGION, P);
}, 30_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await bus?.close();
  await state?.close();
  await nc?.close();
  await Promise.all([nats?.stop(), redis?.stop()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function runNode(dataDir: string, extra: string[] = []): Child {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CRAWL_")));
  const proc = spawn(
    "bun",
    [
      "frontier-node/main.ts",
      "--region",
      REGION,
      // The hosts these tests publish belong to the node's region: what the node forwards by the region rules
      // (the /sitemap.xml probe a robots.txt result brings) stays in a region that has streams here.
      "--default-region",
      REGION,
      "--nats-url",
      nats.url,
      "--redis-url",
      redis.url,
      "--data-dir",
      dataDir,
      "--heartbeat-interval",
      "100ms",
      "--partitions",
      String(P),
      "--min-gap",
      "0",
      ...extra,
    ],
    { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(proc);
  let out = "";
  let err = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
  return { proc, stdout: () => out, stderr: () => err, exited };
}

async function started(child: Child): Promise<{ nodeId: string; grpcAddress: string; httpAddress: string; partitions: number }> {
  await waitFor(() => child.stdout().includes("\n") || child.proc.exitCode !== null, "the node to print its addresses", 15_000);
  if (child.proc.exitCode !== null) throw new Error(`the node exited: ${child.stderr()}`);
  return JSON.parse(child.stdout().split("\n")[0]!);
}

test("main - a node process joins, serves the ring's partitions over NATS and Redis, and leaves cleanly on SIGTERM", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "frontier-node-"));
  dirs.push(dataDir);
  const child = runNode(dataDir);
  const info = await started(child);
  expect(info.partitions).toBe(P);
  await waitFor(async () => (await state.listNodes()).some((n) => n.id === info.nodeId), "the node record");
  await writeRing(
    state,
    ringOf(P, () => info.nodeId),
  );

  // A fetch node stand-in on the real bus answers every task.
  const tasks: FetchTask[] = [];
  const fetcher = bus.consumeTasks(
    REGION,
    async (d) => {
      tasks.push(d.data);
      await bus.publishResult(REGION, resultFor(d.data));
      await d.ack();
    },
    { concurrency: 4 },
  );
  try {
    await bus.publishUrls(REGION, partitionOf("h0.test", P), [
      { url: "http://h0.test/", host: "h0.test", depth: 0, redirectHops: 0, isSeed: true },
    ]);
    await waitFor(() => tasks.some((t) => t.kind === "page" && t.url === "http://h0.test/"), "the seed to be dispatched", 15_000);

    const client = new FrontierClient(info.grpcAddress);
    try {
      await waitFor(
        async () => (await client.explainUrl("http://h0.test/")).explanation?.state === "fetched",
        "the result to be applied",
        15_000,
      );
      const stats = await client.getStats();
      expect(stats.nodeId).toBe(info.nodeId);
      expect(stats.partitions).toEqual([0, 1, 2, 3]);
    } finally {
      client.close();
    }
    expect((await fetch(`${info.httpAddress}/healthz`)).status).toBe(200);

    child.proc.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    expect((await state.listNodes()).some((n) => n.id === info.nodeId)).toBe(false);

    // Restarted on the same data dir, it is the same node.
    const again = runNode(dataDir);
    const second = await started(again);
    expect(second.nodeId).toBe(info.nodeId);
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
  } finally {
    await fetcher.stop();
    child.proc.kill("SIGKILL");
  }
}, 60_000);

test("main - bad flags print the problems and the usage, and exit 2", async () => {
  const proc = Bun.spawn(["bun", "frontier-node/main.ts", "--credit", "0"], { cwd: REPO, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(2);
  expect(stderr).toContain("credit: must be between 1 and");
  expect(stderr).toContain("usage: bun frontier-node/main.ts");
});

/** Writes a few KB of garbage into a store file, as a bad disk or a stray write would. */
function scribble(path: string): void {
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.alloc(12 * 1024, 0x41), 0, 12 * 1024, 0);
  closeSync(fd);
}

test("main - a node whose store is damaged moves it aside and rebuilds its partitions from the replicated state", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "frontier-node-"));
  dirs.push(dataDir);
  const id = "frontier-damaged";
  const args = ["--node-id", id];
  const first = runNode(dataDir, args);
  const info = await started(first);
  await writeRing(
    state,
    ringOf(P, () => id),
  );
  // No fetch node: every admitted URL stays queued.
  const urls = Array.from({ length: 12 }, (_, i) => `http://d${i}.test/page`);
  for (const url of urls) {
    const host = new URL(url).host;
    await bus.publishUrls(REGION, partitionOf(host, P), [{ url, host, depth: 0, redirectHops: 0, isSeed: true }]);
  }
  const client = new FrontierClient(info.grpcAddress);
  try {
    await waitFor(async () => (await client.getStats()).queued === BigInt(urls.length), "every URL to be queued", 15_000);
  } finally {
    client.close();
  }
  await waitFor(
    async () => (await state.listNodes()).find((n) => n.id === id)?.gauges["replication.backlog.rows"] === 0,
    "the journal to be replicated",
    15_000,
  );
  first.proc.kill("SIGTERM");
  expect(await first.exited).toBe(0);

  scribble(join(dataDir, "frontier.sqlite"));
  const second = runNode(dataDir, args);
  const again = await started(second);
  try {
    expect(second.stderr()).toContain("the frontier store is damaged");
    expect(readdirSync(dataDir).some((f) => f.startsWith("frontier.sqlite.damaged-"))).toBe(true);
    const c2 = new FrontierClient(again.grpcAddress);
    try {
      await waitFor(async () => (await c2.getStats()).queued === BigInt(urls.length), "the queue to be rebuilt from the replica", 15_000);
      for (const url of urls) expect((await c2.explainUrl(url)).explanation?.state).toBe("queued");
    } finally {
      c2.close();
    }
    await waitFor(
      async () => (await state.listNodes()).find((n) => n.id === id)?.counters["replication.partitions.restored"] === P,
      "every partition to be restored",
      15_000,
    );
  } finally {
    second.proc.kill("SIGTERM");
    await second.exited;
  }
}, 90_000);

test("main - without a replica a damaged store stops the node with a message that names the file and what to do, and no stack", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "frontier-node-"));
  dirs.push(dataDir);
  writeFileSync(join(dataDir, "frontier.sqlite"), Buffer.alloc(8192, 0x41));
  const child = runNode(dataDir, ["--replicate-state", "false"]);
  expect(await child.exited).toBe(1);
  const stderr = child.stderr();
  expect(stderr).toContain(join(dataDir, "frontier.sqlite"));
  expect(stderr).toContain("is damaged");
  expect(stderr).toContain(".recover");
  expect(stderr).not.toMatch(/\n\s+at /);
}, 30_000);

/**
 * The frontier node process over real services: nats-server (JetStream, KV) and redis-server on loopback,
 * the node run as `bun frontier-node/main.ts` in a fresh data dir. Waits on conditions, never on sleeps.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

beforeAll(async () => {
  [nats, redis] = await Promise.all([startNats(), startRedis()]);
  nc = await connectNats(nats.url, "main-test");
  state = await NatsKvClusterState.open(nc);
  bus = new JetStreamBus(nc, { onError: () => {} });
  await bus.ensureRegion(REGION, P);
}, 30_000);

afterAll(async () => {
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

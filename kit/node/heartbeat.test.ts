/**
 * The heartbeat against the in-memory cluster state (what it writes, leaving) and against NATS KV on a real
 * nats-server that is killed and restarted (failures counted and logged once, recovery, a leave that cannot
 * delete). Waits on conditions, never on sleeps.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryClusterState } from "../../adapters/memory/index.ts";
import { connectNats, NatsKvClusterState } from "../../adapters/nats/index.ts";
import type { NodeRecord } from "../../core/cluster/index.ts";
import type { Log, LogFields } from "../../core/ports/index.ts";
import { startNats } from "../../tests/support/nats.ts";
import { NodeHeartbeat } from "./index.ts";

function recordOf(id: string, beats: { n: number }): () => NodeRecord {
  return () => ({
    id,
    role: "fetcher",
    region: "eu",
    runtime: "bun",
    status: "active",
    grpcAddress: "",
    httpAddress: "http://127.0.0.1:1",
    startedAt: 1,
    heartbeatAt: Date.now(),
    partitions: [],
    counters: { "fetcher.pages": ++beats.n },
    gauges: {},
  });
}

/** A Log that keeps every line, for what the heartbeat says. */
function recordingLog(): Log & { lines: Array<{ level: string; message: string; fields?: LogFields }> } {
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const log = {
    lines,
    info: (message: string, fields?: LogFields) => void lines.push({ level: "info", message, fields }),
    warn: (message: string, fields?: LogFields) => void lines.push({ level: "warn", message, fields }),
    error: (message: string, fields?: LogFields) => void lines.push({ level: "error", message, fields }),
    child: () => log,
  };
  return log;
}

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("heartbeat - writes a fresh record at start and every interval, and a clean leave deletes it", async () => {
  const state = new MemoryClusterState();
  const beats = { n: 0 };
  const hb = new NodeHeartbeat({ state, record: recordOf("f1", beats), intervalMs: 20, log: recordingLog() });
  expect(await hb.start()).toBe(true);
  expect(hb.healthy).toBe(true);
  expect((await state.listNodes()).map((n) => n.id)).toEqual(["f1"]);
  await waitFor(async () => ((await state.listNodes())[0]?.counters["fetcher.pages"] ?? 0) >= 3, "three beats");
  await hb.leave();
  expect(await state.listNodes()).toEqual([]);
  await hb.beat(); // stopped: a late beat writes nothing
  expect(await state.listNodes()).toEqual([]);
  expect(hb.failures).toBe(0);
});

test("heartbeat - a beat asked for while one is writing follows it with a record built after the call; calls meanwhile share it", async () => {
  const state = new MemoryClusterState();
  let partitions = [0];
  let release: () => void = () => {};
  let gated = false;
  const putNode = state.putNode.bind(state);
  const written: number[][] = [];
  state.putNode = async (record) => {
    written.push(record.partitions);
    if (gated) await new Promise<void>((resolve) => (release = resolve));
    return putNode(record);
  };
  const hb = new NodeHeartbeat({
    state,
    record: () => ({ ...recordOf("f1", { n: 0 })(), partitions }),
    intervalMs: 3_600_000,
    log: recordingLog(),
  });
  try {
    await hb.start();
    gated = true;
    const first = hb.beat();
    await waitFor(() => written.length === 2, "the beat to be writing [0]");
    partitions = [0, 1, 2];
    const second = hb.beat();
    const third = hb.beat();
    gated = false;
    release();
    await Promise.all([first, second, third]);
    expect(written).toEqual([[0], [0], [0, 1, 2]]);
    expect((await state.getNode("f1"))!.partitions).toEqual([0, 1, 2]);
  } finally {
    hb.stop();
  }
});

test("heartbeat - a failing beat is counted, logged once while failures last, and the recovery is logged", async () => {
  const state = new MemoryClusterState();
  const log = recordingLog();
  let down = true;
  const told: unknown[] = [];
  const hb = new NodeHeartbeat({
    state,
    record: recordOf("f2", { n: 0 }),
    intervalMs: 10,
    log,
    beforeWrite: async () => {
      if (down) throw new Error("the cluster state is unreachable");
    },
    onFailure: (error) => told.push(error),
  });
  expect(await hb.start()).toBe(false);
  await waitFor(() => hb.failures >= 3, "three failed beats");
  expect(hb.healthy).toBe(false);
  expect(hb.failuresInARow).toBe(hb.failures);
  expect(told.length).toBe(hb.failures);
  expect((hb.lastError as Error).message).toBe("the cluster state is unreachable");
  expect(await state.listNodes()).toEqual([]);
  down = false;
  await waitFor(() => hb.healthy, "a beat to get through");
  hb.stop();
  expect(hb.failuresInARow).toBe(0);
  expect(log.lines.map((l) => `${l.level} ${l.message}`)).toEqual([
    "warn heartbeat failed; retrying at every beat",
    "info heartbeat recovered",
  ]);
  expect(log.lines[0]!.fields).toMatchObject({ error: { message: "the cluster state is unreachable" } });
  expect(log.lines[1]!.fields!["failedBeats"]).toBeGreaterThanOrEqual(3);
});

test("heartbeat - over NATS KV: beats fail while nats-server is down and resume after its restart; a leave that cannot delete keeps beating", async () => {
  const storeDir = mkdtempSync(join(tmpdir(), "heartbeat-"));
  let server = await startNats({ storeDir });
  const nc = await connectNats(server.url, "heartbeat-test", { reconnectTimeWait: 50 });
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  const log = recordingLog();
  const beats = { n: 0 };
  const hb = new NodeHeartbeat({ state, record: recordOf("f3", beats), intervalMs: 50, log });
  try {
    expect(await hb.start()).toBe(true);
    await server.kill();
    await waitFor(() => hb.failures >= 1, "a beat to fail with nats-server down", 20_000);
    expect(hb.healthy).toBe(false);
    await expect(hb.leave()).rejects.toBeDefined();

    server = await startNats({ storeDir, port: server.port });
    await waitFor(() => hb.healthy, "beats to get through after the restart", 20_000);
    const stored = (await state.listNodes()).find((n) => n.id === "f3");
    expect(stored?.counters["fetcher.pages"]).toBeGreaterThan(1);
    expect(log.lines.filter((l) => l.message.startsWith("heartbeat failed"))).toHaveLength(1);
    expect(log.lines.filter((l) => l.message === "heartbeat recovered")).toHaveLength(1);

    await hb.leave();
    expect((await state.listNodes()).some((n) => n.id === "f3")).toBe(false);
  } finally {
    hb.stop();
    await state.close();
    await nc.close();
    await server.stop();
    rmSync(storeDir, { recursive: true, force: true });
  }
}, 60_000);

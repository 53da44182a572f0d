/**
 * What the ClusterState contract cannot see of the KV implementation: a ring watch outlives a restart of
 * nats-server (same port, same store), and records written before the restart are still there; on a
 * 3-server cluster with 3 copies, ring compare-and-sets made at once still let exactly one writer win. The
 * contract itself is in tests/contract/cluster-state.contract.test.ts.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RingRecord } from "../../core/cluster/index.ts";
import { startNats, startNatsCluster } from "../../tests/support/nats.ts";
import { connectNats, NatsKvClusterState } from "./index.ts";

test("kv-cluster-state - a ring watch keeps delivering across a nats-server restart", async () => {
  const storeDir = mkdtempSync(join(tmpdir(), "kv-restart-"));
  let server = await startNats({ storeDir });
  const nc = await connectNats(server.url, "kv-restart", { reconnectTimeWait: 100 });
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  const seen: number[] = [];
  const stop = state.watchRing((r) => seen.push(r.epoch));
  try {
    const r1 = (await state.casRing(ring(1), 0))!;
    await waitFor(() => seen.length === 1, "the first ring");

    const reconnected = (async () => {
      for await (const s of nc.status()) if (s.type === "reconnect") return;
    })();
    await server.kill();
    server = await startNats({ storeDir, port: server.port });
    await reconnected;
    // JetStream may still be recovering its streams right after a restart: retry the CAS until it goes through.
    let r2: number | undefined;
    await waitFor(
      async () => {
        r2 = await state.casRing(ring(2), r1).catch(() => undefined);
        return r2 !== undefined;
      },
      "the CAS after the restart",
      10_000,
    );
    await waitFor(() => seen.length === 2, "the watch hears the write after the restart", 15_000);
    expect(seen).toEqual([1, 2]);
    expect((await state.getRing())?.revision).toBe(r2!);
  } finally {
    stop();
    await state.close();
    await nc.close();
    await server.stop();
    rmSync(storeDir, { recursive: true, force: true });
  }
}, 30_000);

test("kv-cluster-state - on a 3-server cluster with 3 copies, ring writes made at once from the same revision: exactly one wins", async () => {
  // nats-server before 2.9.21 checks a clustered write's expected revision before proposing it, so two in
  // flight at once could both be accepted, the later silently undoing the earlier (a frontier node marking
  // many received partitions at once lost its own marks, and the ring never settled).
  const cluster = await startNatsCluster();
  const nc = await connectNats([...cluster.urls], "kv-cluster-cas");
  try {
    const state = await NatsKvClusterState.open(nc, { replicas: 3, onError: () => {} });
    let base: number | undefined;
    // A new bucket's stream elects its leader first (writes meanwhile have no responder).
    await waitFor(
      async () => {
        base = await state.casRing(ring(1), 0).catch(() => undefined);
        return base !== undefined;
      },
      "the first ring written",
      15_000,
    );
    const writers = Array.from({ length: 20 }, (_, i) => i + 2);
    const results = await Promise.all(writers.map((epoch) => state.casRing(ring(epoch), base!)));
    const winners = writers.filter((_, i) => results[i] !== undefined);
    expect(winners).toHaveLength(1);
    const stored = await state.getRing();
    expect(stored?.ring.epoch).toBe(winners[0]!);
    expect(stored?.revision).toBe(results[writers.indexOf(winners[0]!)]!);
    await state.close();
  } finally {
    await nc.close();
    await cluster.stop();
  }
}, 60_000);

async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function ring(epoch: number): RingRecord {
  return { epoch, partitions: 2, vnodes: 8, regions: { eu: { owners: ["a", "b"], previous: ["", ""] } } };
}

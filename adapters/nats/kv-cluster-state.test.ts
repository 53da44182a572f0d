/**
 * What the ClusterState contract cannot see of the KV implementation: a ring watch outlives a restart of
 * nats-server (same port, same store), and records written before the restart are still there. The
 * contract itself is in tests/contract/cluster-state.contract.test.ts.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RingRecord } from "../../core/cluster/index.ts";
import { startNats } from "../../tests/support/nats.ts";
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

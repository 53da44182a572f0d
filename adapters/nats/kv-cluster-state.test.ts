/**
 * What the ClusterState contract cannot see of the KV implementation: a ring watch outlives a restart of
 * nats-server (same port, same store), and records written before the restart are still there; a node
 * watch resumes after such a restart with the changes made since, deletes included, none repeated; a
 * node's history read while its record is being rewritten ends at its current record; on a
 * 3-server cluster with 3 copies, ring compare-and-sets made at once by writers on separate connections
 * still let exactly one win, also after the ring's stream leader is killed; a read NATS cannot answer is
 * UnavailableError; a request whose connection drops under it fails at once, and one made while the
 * connection is down goes out the moment it is back (a heartbeat is not held 5 s past a NATS restart).
 * The contract itself is in tests/contract/cluster-state.contract.test.ts.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { RING_BUCKET, type NodeRecord, type RingRecord } from "../../core/cluster/index.ts";
import { UnavailableError } from "../../core/errors/index.ts";
import { freeze } from "../../tests/support/freeze.ts";
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
    // Down: a read says "retry later" (UnavailableError: HTTP 503, gRPC UNAVAILABLE), not an internal error.
    const down = await state.getRing().catch((e: unknown) => e);
    expect(down).toBeInstanceOf(UnavailableError);
    expect(await state.listNodes().catch((e: unknown) => e)).toBeInstanceOf(UnavailableError);
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

test("kv-cluster-state - a node watch resumes across a nats-server restart: the changes since, deletes included, none repeated", async () => {
  const storeDir = mkdtempSync(join(tmpdir(), "kv-nodes-restart-"));
  let server = await startNats({ storeDir });
  const nc = await connectNats(server.url, "kv-nodes-restart", { reconnectTimeWait: 100 });
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  const heard: string[] = [];
  const stop = state.watchNodes((c) => heard.push(`${c.kind} ${c.id}`));
  try {
    await state.putNode(node("n1"));
    await state.putNode(node("n2"));
    await waitFor(() => heard.length === 2, "the first records");

    const reconnected = (async () => {
      for await (const s of nc.status()) if (s.type === "reconnect") return;
    })();
    await server.kill();
    server = await startNats({ storeDir, port: server.port });
    await reconnected;
    await waitFor(
      () =>
        state.deleteNode("n1").then(
          () => true,
          () => false,
        ),
      "the delete after the restart",
      10_000,
    );
    await state.putNode(node("n3"));
    await waitFor(() => heard.length === 4, "the watch hears the changes after the restart", 15_000);
    expect(heard).toEqual(["put n1", "put n2", "delete n1", "put n3"]);
  } finally {
    stop();
    await state.close();
    await nc.close();
    await server.stop();
    rmSync(storeDir, { recursive: true, force: true });
  }
}, 30_000);

test("kv-cluster-state - a request sent to a frozen server fails as soon as the connection drops, and one made while it is down is sent the moment it is back", async () => {
  // A heartbeat's path (tests/e2e/cluster/two-regions-...): region-2's server frozen, then killed and
  // restarted. nats.js left the beat sent to the frozen server waiting for its 5 s timeout after the kill,
  // and discarded one written while disconnected (its own 5 s timeout again): the node's record was written
  // 3.7 s after the reconnect, its silence past the coordinator's death timeout.
  const storeDir = mkdtempSync(join(tmpdir(), "kv-drop-"));
  let server = await startNats({ storeDir });
  const nc = await connectNats(server.url, "kv-drop", { reconnectTimeWait: 100 });
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  const status = (type: string) =>
    (async () => {
      for await (const s of nc.status()) if (s.type === type) return performance.now();
      return Number.NaN;
    })();
  try {
    await state.putNode({ ...node("n1"), heartbeatAt: 1 });
    await freeze(server.pid);
    const settled = <T>(p: Promise<T>) =>
      p.then(
        () => "settled without error",
        (e: unknown) => ({ error: e, at: performance.now() }),
      );
    const write = settled(state.putNode({ ...node("n1"), heartbeatAt: 2 }));
    const read = settled(state.getNode("n1"));
    await new Promise((r) => setTimeout(r, 200));
    const dropped = status("disconnect");
    await server.kill();
    const droppedAt = await dropped;
    for (const outcome of [await write, await read]) {
      if (typeof outcome === "string") throw new Error(`a request to the frozen server ${outcome}`);
      expect(outcome.error).toBeInstanceOf(UnavailableError);
      // At the drop, not nats.js's request timeout (5 s) after the request.
      expect(outcome.at - droppedAt).toBeLessThan(1_000);
    }

    // Made while the connection is down: it waits for the connection instead of being discarded with it.
    const whileDown = state.putNode({ ...node("n1"), heartbeatAt: 3 });
    const back = status("reconnect");
    server = await startNats({ storeDir, port: server.port });
    const backAt = await back;
    await whileDown;
    expect(performance.now() - backAt).toBeLessThan(1_000);
    expect((await state.getNode("n1"))?.heartbeatAt).toBe(3);
  } finally {
    await state.close();
    await nc.close();
    await server.stop();
    rmSync(storeDir, { recursive: true, force: true });
  }
}, 30_000);

test("kv-cluster-state - a node's history read while its record is rewritten in a burst, then every 50 ms, ends at its current record", async () => {
  // On nats-server 2.9.10 the history consumer's pending count stayed at 4 after such a burst, and a read
  // that waited for it to reach 0 never ended while the beats went on (11 of 20 rounds before the fix).
  const server = await startNats();
  const [nc, writerNc] = await Promise.all([connectNats(server.url, "kv-history"), connectNats(server.url, "kv-history-writer")]);
  const state = await NatsKvClusterState.open(nc, { onError: () => {} });
  const writer = await NatsKvClusterState.open(writerNc, { onError: () => {} });
  try {
    for (let round = 0; round < 10; round++) {
      const id = `n${round}`;
      let beat = 0;
      for (let k = 0; k < 12; k++) await writer.putNode({ ...node(id), heartbeatAt: ++beat });
      const before = beat;
      let writing = true;
      const beats = (async () => {
        while (writing) {
          await writer.putNode({ ...node(id), heartbeatAt: ++beat });
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      const read = await Promise.race([
        state.nodeHistory(id),
        new Promise<"still reading">((resolve) => setTimeout(() => resolve("still reading"), 10_000)),
      ]);
      writing = false;
      await beats;
      expect(read).not.toBe("still reading");
      const beatsRead = (read as NodeRecord[]).map((r) => r.heartbeatAt);
      expect(beatsRead.length).toBeGreaterThanOrEqual(1);
      expect(beatsRead.at(-1)!).toBeGreaterThanOrEqual(before);
      expect(beatsRead).toEqual(beatsRead.toSorted((x, y) => x - y));
    }
  } finally {
    await state.close();
    await writer.close();
    await Promise.all([nc.close(), writerNc.close()]);
    await server.stop();
  }
}, 120_000);

test("kv-cluster-state - on a 3-server cluster with 3 copies, ring writes made at once from one revision by several processes: exactly one is stored, before and after the ring's leader is killed", async () => {
  // nats-server before 2.9.21 checks a clustered write's expected *subject* sequence before proposing it, so
  // writes in flight at once from one revision could all be accepted, the later silently undoing the earlier
  // (measured on 2.9.10 with a bucket's kv.update from four connections: 4 rounds of 20 stored more than
  // one). A coordinator rebalancing and a frontier node marking a handoff done are two such processes: the
  // handoff's mark undone named the giver as `previous` again after it had given the partition away. The
  // ring's writes name the stream's last sequence instead, which the leader checks against every write
  // already proposed.
  const cluster = await startNatsCluster();
  // One connection per writer, each to its own server first: writers that share nothing, as processes.
  const conns = await Promise.all(
    Array.from({ length: 4 }, (_, i) => connectNats([...cluster.urls.slice(i % 3), ...cluster.urls.slice(0, i % 3)], `kv-cas-${i}`)),
  );
  try {
    // Opened one after the other: creating a replicated bucket from four connections at once can time out on 2.9.
    const states: NatsKvClusterState[] = [];
    for (const nc of conns) states.push(await NatsKvClusterState.open(nc, { replicas: 3, onError: () => {} }));
    let base: number | undefined;
    // A new bucket's stream elects its leader first (writes meanwhile have no responder).
    await waitFor(
      async () => {
        base = await states[0]!.casRing(ring(1), 0).catch(() => undefined);
        return base !== undefined;
      },
      "the first ring written",
      15_000,
    );
    let epoch = 1;
    /** Every state writes (several at once each) from the stored revision; returns how many were stored. */
    const round = async (): Promise<number> => {
      const current = (await states[0]!.getRing())!;
      const writes = states.flatMap((state) => [0, 1, 2].map(() => ({ state, epoch: ++epoch })));
      const results = await Promise.all(writes.map((w) => w.state.casRing(ring(w.epoch), current.revision)));
      const winners = writes.filter((_, i) => results[i] !== undefined);
      const stored = await states[1]!.getRing();
      if (winners.length === 1) {
        expect(stored?.ring.epoch).toBe(winners[0]!.epoch);
        expect(stored?.revision).toBe(results[writes.indexOf(winners[0]!)]!);
      }
      return winners.length;
    };
    const before: number[] = [];
    for (let i = 0; i < 10; i++) before.push(await round());
    expect(before).toEqual(Array.from({ length: 10 }, () => 1));

    // Kill the ring stream's leader: the guard holds under the new one (once it is elected).
    const jsm = await jetstreamManager(conns[0]!);
    const leader = (await jsm.streams.info(`KV_${RING_BUCKET}`)).cluster?.leader ?? "";
    const victim = Number(/-(\d+)$/.exec(leader)?.[1]) - 1;
    expect(victim).toBeGreaterThanOrEqual(0);
    await cluster.kill(victim);
    await waitFor(
      async () => {
        const current = await states[(victim + 1) % 3]!.getRing().catch(() => undefined);
        return (
          current !== undefined &&
          (await states[(victim + 1) % 3]!.casRing(ring(++epoch), current.revision).catch(() => undefined)) !== undefined
        );
      },
      "a ring written after the leader was killed",
      30_000,
    );
    const after: number[] = [];
    for (let i = 0; i < 10; i++) after.push(await round());
    expect(after).toEqual(Array.from({ length: 10 }, () => 1));
    for (const state of states) await state.close();
  } finally {
    for (const nc of conns) await nc.close();
    await cluster.stop();
  }
}, 120_000);

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

function node(id: string): NodeRecord {
  return {
    id,
    role: "frontier",
    region: "eu",
    runtime: "bun",
    status: "active",
    grpcAddress: "",
    httpAddress: "",
    startedAt: 1,
    heartbeatAt: 2,
    partitions: [],
    counters: {},
    gauges: {},
  };
}

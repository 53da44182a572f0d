import { describe, expect, test } from "bun:test";
import { MemoryClusterState } from "../adapters/memory/index.ts";
import { Membership } from "./membership.ts";
import { ClusterStats } from "./stats.ts";
import { nodeRecord, until } from "./test-support.ts";

function setup() {
  const clock = { now: 1_000_000 };
  const state = new MemoryClusterState();
  const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: 10_000 });
  const stats = new ClusterStats({ membership, now: () => clock.now, cacheMs: 0 });
  return { clock, state, stats };
}

describe("cluster stats", () => {
  test("stats - sums counters over every node, pages and errors over frontier nodes, gauges over live ones", async () => {
    const { clock, state, stats } = setup();
    await state.putNode(
      nodeRecord({
        id: "f1",
        heartbeatAt: clock.now,
        counters: { "fetch.status.200": 10, "fetch.status.503": 2, "fetch.pages": 12, "frontier.admitted": 50 },
        gauges: { queued: 100, inFlight: 3 },
      }),
    );
    await state.putNode(
      nodeRecord({
        id: "f2",
        heartbeatAt: clock.now,
        counters: { "fetch.status.200": 5, "fetch.pages": 5, "fetch.network-error.timeout": 1 },
        gauges: { queued: 20, inFlight: 1 },
      }),
    );
    await state.putNode(
      nodeRecord({
        id: "f3",
        heartbeatAt: clock.now - 60_000,
        counters: { "fetch.status.200": 7, "fetch.pages": 7 },
        gauges: { queued: 999 },
      }),
    );
    await state.putNode(
      nodeRecord({
        id: "x1",
        role: "fetcher",
        heartbeatAt: clock.now,
        counters: { "fetcher.status.200": 15, "fetcher.pages": 15 },
        gauges: { inFlight: 4 },
      }),
    );
    const t = await stats.read();
    expect(t.pagesFetched).toBe(10 + 2 + 5 + 7);
    expect(t.errors).toBe(2 + 1);
    expect(t.counters["fetch.status.200"]).toBe(10 + 5 + 7);
    expect(t.counters["fetcher.status.200"]).toBe(15);
    expect(t.counters["frontier.admitted"]).toBe(50);
    expect(t.queued).toBe(120);
    expect(t.inFlight).toBe(4);
    expect(t.gauges).toEqual({ inFlight: 8, queued: 120 });
    expect(t).toMatchObject({ frontierNodes: 2, fetchNodes: 1, deadNodes: 1 });
  });

  test("stats - pages per second is each node's growth between its heartbeats, however often the coordinator reads", async () => {
    const { clock, state, stats } = setup();
    const beat = (id: string, pages: number) =>
      state.putNode(nodeRecord({ id, startedAt: 1, heartbeatAt: clock.now, counters: { "fetch.pages": pages } }));
    await beat("f1", 1_000);
    await beat("f2", 0);
    expect((await stats.read()).pagesPerSecond).toBe(0);
    clock.now += 2_000;
    await beat("f1", 1_200);
    await beat("f2", 50);
    expect((await stats.read()).pagesPerSecond).toBe(100 + 25);
    // Reads between beats see the same records: the same rate, not a dip.
    clock.now += 1_000;
    expect((await stats.read()).pagesPerSecond).toBe(125);
    clock.now += 1_000;
    await beat("f1", 1_600);
    await beat("f2", 100);
    expect((await stats.read()).pagesPerSecond).toBe(150 + 25);
  });

  test("stats - a coordinator that has just started reports the true rate at its first read, from the records' history", async () => {
    const { clock, state } = setup();
    for (let beat = 0; beat < 4; beat++) {
      await state.putNode(nodeRecord({ id: "f1", startedAt: 1, heartbeatAt: clock.now, counters: { "fetch.pages": 5_000 + beat * 400 } }));
      clock.now += 2_000;
    }
    clock.now -= 1_500;
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: 10_000, observedSince: clock.now });
    const fresh = new ClusterStats({ membership, now: () => clock.now, cacheMs: 0 });
    const t = await fresh.read();
    expect(t.pagesPerSecond).toBe(200);
    expect(t.pagesFetched).toBe(6_200);
  });

  test("stats - a restarted node's rate counts from its start, never negative, and a dead node adds nothing", async () => {
    const { clock, state, stats } = setup();
    await state.putNode(nodeRecord({ id: "f1", startedAt: 1, heartbeatAt: clock.now, counters: { "fetch.pages": 1_000 } }));
    await state.putNode(nodeRecord({ id: "f2", startedAt: 1, heartbeatAt: clock.now, counters: { "fetch.pages": 10 } }));
    await stats.read();
    clock.now += 2_000;
    await state.putNode(nodeRecord({ id: "f1", startedAt: clock.now - 1_000, heartbeatAt: clock.now, counters: { "fetch.pages": 40 } }));
    await state.putNode(nodeRecord({ id: "f2", startedAt: 1, heartbeatAt: clock.now, counters: { "fetch.pages": 30 } }));
    let t = await stats.read();
    expect(t.pagesPerSecond).toBe(40 + 10);
    expect(t.pagesFetched).toBe(40 + 30);
    // f2 falls silent: once dead it counts for its pages, not for the rate.
    clock.now += 11_000;
    await state.putNode(
      nodeRecord({ id: "f1", startedAt: clock.now - 12_000, heartbeatAt: clock.now, counters: { "fetch.pages": 40 + 440 } }),
    );
    t = await stats.read();
    expect(t.deadNodes).toBe(1);
    expect(t.pagesPerSecond).toBe(40);
  });

  test("stats - reads within the cache time return the same snapshot", async () => {
    const clock = { now: 5_000 };
    const state = new MemoryClusterState();
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: 10_000 });
    const stats = new ClusterStats({ membership, now: () => clock.now, cacheMs: 1_000 });
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now, counters: { "fetch.pages": 1 } }));
    const a = await stats.read();
    await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now, counters: { "fetch.pages": 2 } }));
    clock.now += 500;
    expect(await stats.read()).toBe(a);
    clock.now += 600;
    expect((await stats.read()).pagesFetched).toBe(2);
  });

  test("stats - a node joining or leaving makes the next read fresh, even within the cache time", async () => {
    const clock = { now: 5_000 };
    const state = new MemoryClusterState();
    const membership = new Membership({ state, now: () => clock.now, deathTimeoutMs: 10_000 });
    const stats = new ClusterStats({ membership, now: () => clock.now, cacheMs: 1_000 });
    const stop = membership.watch(() => {});
    try {
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 1);
      const first = await stats.read();
      expect(first.frontierNodes).toBe(1);
      // A beat is no change: the snapshot stands (the in-memory watch has heard it by now).
      await state.putNode(nodeRecord({ id: "f1", heartbeatAt: clock.now, counters: { "fetch.pages": 3 } }));
      expect(await stats.read()).toBe(first);
      await state.putNode(nodeRecord({ id: "x1", role: "fetcher", heartbeatAt: clock.now }));
      await until(() => membership.changes >= 2);
      const joined = await stats.read();
      expect(joined).not.toBe(first);
      expect(joined).toMatchObject({ frontierNodes: 1, fetchNodes: 1, pagesFetched: 3 });
      expect(await stats.read()).toBe(joined);
      await state.deleteNode("x1");
      await until(() => membership.changes >= 3);
      expect((await stats.read()).fetchNodes).toBe(0);
    } finally {
      stop();
    }
  });
});

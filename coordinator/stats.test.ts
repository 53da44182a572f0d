import { describe, expect, test } from "bun:test";
import { MemoryClusterState } from "../adapters/memory/index.ts";
import { Membership } from "./membership.ts";
import { ClusterStats } from "./stats.ts";
import { nodeRecord } from "./test-support.ts";

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

  test("stats - pages per second comes from the growth between reads", async () => {
    const { clock, state, stats } = setup();
    const beat = (pages: number, startedAt = 0) =>
      state.putNode(nodeRecord({ id: "f1", startedAt, heartbeatAt: clock.now, counters: { "fetch.pages": pages } }));
    await beat(1_000);
    expect((await stats.read()).pagesPerSecond).toBe(0);
    clock.now += 2_000;
    await beat(1_200);
    expect((await stats.read()).pagesPerSecond).toBe(100);
    clock.now += 2_000;
    await beat(1_600);
    expect((await stats.read()).pagesPerSecond).toBe(150);
  });

  test("stats - a node restarting with its counters at zero does not make the rate negative", async () => {
    const { clock, state, stats } = setup();
    await state.putNode(nodeRecord({ id: "f1", startedAt: 0, heartbeatAt: clock.now, counters: { "fetch.pages": 1_000 } }));
    await stats.read();
    clock.now += 2_000;
    await state.putNode(nodeRecord({ id: "f1", startedAt: clock.now - 1_000, heartbeatAt: clock.now, counters: { "fetch.pages": 40 } }));
    const t = await stats.read();
    expect(t.pagesPerSecond).toBe(20);
    expect(t.pagesFetched).toBe(40);
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
});

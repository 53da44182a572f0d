import { expect, test } from "bun:test";
import { delta, type ServerSnapshot } from "./cluster-stats.ts";
import { idleCost } from "./idle-cost.ts";
import type { CrawlResult } from "./run.ts";
import { parseShapes, shapeRows, shapesTable } from "./shapes.ts";
import type { ProcessUsage } from "./tree.ts";

const snap = (at: number, inMsgs: number, commands: Record<string, number>): ServerSnapshot => ({
  at,
  redis: { commands, usedMemoryBytes: 0, keys: 0, aofBytes: 0, aofRewrites: 0 },
  nats: { inMsgs, inBytes: 0, outMsgs: 2 * inMsgs, outBytes: 0, streams: {} },
});

/** A cluster run of `steadyPages` pages in its steady half, whose fetch nodes spent `fetchCpu` CPU s in it. */
function clusterRun(frontiers: number, fetchers: number, steadyPages: number, fetchCpu: number): CrawlResult {
  const proc = (name: string, steadyCpuSeconds: number, voluntary: number): ProcessUsage => ({
    pid: 1,
    name,
    cpuSeconds: steadyCpuSeconds * 2,
    mainThreadCpuSeconds: steadyCpuSeconds,
    peakRssBytes: 0,
    writtenBytes: 0,
    diskWrittenBytes: 0,
    steadyCpuSeconds,
    steadyMainThreadCpuSeconds: steadyCpuSeconds * 0.75,
    steadyMainSwitches: { voluntary, involuntary: 0 },
  });
  const processes = [
    ...Array.from({ length: frontiers }, (_, i) => proc(`frontier-${i + 1} (bun)`, 1 / frontiers, 100)),
    ...Array.from({ length: fetchers }, (_, i) => proc(`fetch-${i + 1} (bun)`, fetchCpu / fetchers, 100)),
  ];
  const d = delta(snap(0, 0, { get: 0 }), snap(10_000, 5 * steadyPages, { get: 3 * steadyPages }));
  return {
    kind: "cluster",
    shape: { frontiers, fetchers },
    seconds: 20,
    pages: 2 * steadyPages,
    pagesPerSecond: steadyPages / 10,
    steady: { pages: steadyPages, pagesPerSecond: steadyPages / 10, cpuSeconds: 0, cpuMsPerPage: 0 },
    processes,
    violations: 0,
    ownPolicyViolations: 0,
    otherLoadCpuSeconds: 0,
    hostAffinity: { processesPerHost: 1, placedShare: 1 },
    connectionsPerHost: 1,
    connections: 1,
    servers: {
      pages: { fromReady: steadyPages, steady: steadyPages },
      fromReady: d,
      steady: d,
      keyFamilies: [],
      redisUsedMemoryBytes: 0,
      redisKeys: 0,
      idle: idleCost(d, new Map([["fetch", { processes: fetchers, cpu: 0.01 * fetchers }]]), 1),
    },
  } as unknown as CrawlResult;
}

test("cluster shapes - FRONTIERS+FETCHERS lists are read, and a bad one is refused by name", () => {
  expect(parseShapes("2+2, 2+6,4+2")).toEqual([
    { frontiers: 2, fetchers: 2 },
    { frontiers: 2, fetchers: 6 },
    { frontiers: 4, fetchers: 2 },
  ]);
  expect(() => parseShapes("2+2,2x6")).toThrow('"2x6" is not FRONTIERS+FETCHERS');
  expect(() => parseShapes("0+2")).toThrow('"0+2"');
  expect(() => parseShapes("")).toThrow("FRONTIERS+FETCHERS");
});

test("cluster shapes - each shape's steady CPU per page is compared with the first, and 10 % more fails the target", () => {
  // 1,000 steady pages each: 2+2 spends 2 CPU s (2 ms/page), 2+6 3 (3 ms/page: 1.5x), 4+2 2.1 (1.05x).
  const results = [clusterRun(2, 2, 1000, 1), clusterRun(2, 6, 1000, 2), clusterRun(4, 2, 1000, 1.1)];
  const rows = shapeRows(results);
  expect(rows.map((r) => r.shape)).toEqual(["2+2", "2+6", "4+2"]);
  expect(rows.map((r) => Number(r.steadyCpuMsPerPage.toFixed(3)))).toEqual([2, 3, 2.1]);
  expect(rows.map((r) => Number(r.vsFirst.toFixed(2)))).toEqual([1, 1.5, 1.05]);
  expect(rows[1]!.steadyCpuMsPerPageByRole["fetch"]).toBeCloseTo(2, 9);
  expect(rows[0]!.natsPublishedPerPage).toBe(5);
  expect(rows[0]!.redisCommandsPerPage).toBe(3);
  // 100 wake-ups per process over 1,000 pages: 0.4 a page with 4 processes, 0.8 with 8.
  expect(rows.map((r) => Number(r.wakeupsPerPage.toFixed(6)))).toEqual([0.4, 0.8, 0.6]);
  expect(rows[1]!.idleCpuMsPerSecond).toBeCloseTo(60, 9);
  // A quarter of each process's steady CPU is off its main thread: 0.5 ms of 2 ms a page for 2+2.
  expect(rows[0]!.helperThreadsMsPerPage).toBeCloseTo(0.5, 9);
  const text = shapesTable(results);
  expect(text).toContain("the costliest shape 2+6 pays 1.50x the CPU per page of 2+2 (target <= 1.1): NOT met");
  expect(shapesTable([results[0]!, results[2]!])).toContain("4+2 pays 1.05x the CPU per page of 2+2 (target <= 1.1): met");
  expect(shapesTable([results[0]!])).toBe("");
});

test("idle cost - per second and per role, without the benchmark's own INFO calls to Redis", () => {
  const d = delta(snap(0, 0, { info: 0, ping: 0, set: 0 }), snap(5_000, 100, { info: 40, ping: 25, set: 5 }));
  const idle = idleCost(
    d,
    new Map([
      ["frontier", { processes: 2, cpu: 0.2 }],
      ["nats-server", { processes: 1, cpu: 0.05 }],
    ]),
    5,
  );
  expect(idle.redisCommandsPerSecond).toBe(6);
  expect(idle.redisTopCommandsPerSecond).toEqual({ ping: 5, set: 1 });
  expect(idle.natsPublishedPerSecond).toBe(20);
  expect(idle.natsDeliveredPerSecond).toBe(40);
  expect(idle.roles.find((r) => r.role === "frontier")).toEqual({
    role: "frontier",
    processes: 2,
    cpuMsPerSecond: 40,
    cpuMsPerSecondPerProcess: 20,
  });
  expect(idle.cpuMsPerSecond).toBeCloseTo(50, 9);
});

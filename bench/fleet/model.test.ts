import { expect, test } from "bun:test";
import {
  DEFAULT_ASSUMPTIONS,
  DEFAULT_MACHINE,
  type FrontierFigures,
  type MeasuredCosts,
  type ModelInput,
  type RegionShare,
  sizeFleet,
} from "./model.ts";

/** Round figures, close to a measured run, so the arithmetic can be checked by hand. */
const role = (name: string, cpu: number, main: number, rssMB: number, disk = 0) => ({
  role: name,
  processes: 1,
  cpuMsPerPage: cpu,
  steadyCpuMsPerPage: cpu,
  mainThreadMsPerPage: main,
  peakRssBytesMax: rssMB * 2 ** 20,
  diskBytesPerPage: disk,
});
const costs: MeasuredCosts = {
  measuredAt: "2026-12-04T00:00:00.000Z",
  command: "bun run bench -- --costs-out x.json",
  box: { cores: 2, cpu: "test" },
  scenario: { hosts: 2000, pageBytes: 25_000, linksPerPage: 30, seconds: 45 },
  cluster: {
    name: "cluster 2+2",
    pagesPerSecond: 700,
    violations: 0,
    otherLoadCpuSeconds: 0,
    roles: [
      role("frontier", 0.5, 0.4, 300, 50_000),
      role("fetch", 1.0, 0.8, 350, 16_000),
      role("coordinator", 0.01, 0.01, 80),
      role("nats-server", 0.2, 0, 100, 7_500),
      role("redis-server", 0.25, 0.25, 50, 10_000),
    ],
    servers: {
      steady: {
        redisCommandsPerPage: 46,
        redisAofBytesPerPage: 10_000,
        natsPublishedBytesPerPage: 5_000,
        natsDeliveredBytesPerPage: 3_000,
        natsPublishedMsgsPerPage: 4.6,
        streamMessagesPerPage: 2.3,
      },
      natsDiskBytesPerPage: 7_500,
      redisBytesPerPageByFamily: { fp: 128, simhash: 640, crawler: 120, seen: 80 },
      redisKeysByFamily: {},
      connectionsPerHost: 1,
    },
  },
};
const frontier: FrontierFigures = {
  measuredAt: "2026-12-04",
  command: "bun run bench:scale",
  source: "test",
  rssBytesPerHost: 1400,
  jsHeapBytesPerHost: 158,
  diskBytesPerQueuedUrl: 104,
  diskBytesPerFetchedUrl: 318,
  diskBytesPerHost: 835,
  bloomBytesPerSeenUrl: 2.3,
  dispatchTasksPerSecond: 11_790,
};
const regions: RegionShare[] = [
  { region: "us-east-1", pageShare: 0.7, hostShare: 0.72, meanFetchSeconds: 0.4 },
  { region: "eu-west-1", pageShare: 0.3, hostShare: 0.28, meanFetchSeconds: 0.4 },
];
const input = (pagesPerDay: number, over: Partial<ModelInput> = {}): ModelInput => ({
  pagesPerDay,
  costs,
  frontier,
  machine: DEFAULT_MACHINE,
  assumptions: DEFAULT_ASSUMPTIONS,
  regions,
  imbalance: () => 1,
  ...over,
});
const machines = (pagesPerDay: number, over: Partial<ModelInput> = {}) => {
  const s = sizeFleet(input(pagesPerDay, over));
  const by: Record<string, number> = {};
  for (const r of s.regions) for (const x of r.roles) by[x.role] = (by[x.role] ?? 0) + x.machines;
  return { s, by };
};

test("fleet model - fetch machines are the region's pages/s times CPU per page over the usable cores of a machine", () => {
  const { s } = machines(1_000_000_000);
  const us = s.regions[0]!;
  // 11,574 pages/s x 0.7 = 8,102 pages/s x 1.0 ms = 8.1 cores; 8 vCPU x 0.6 = 4.8 usable: 2 machines.
  expect(us.pagesPerSecond).toBeCloseTo((1e9 / 86_400) * 0.7, 3);
  const fetch = us.roles.find((r) => r.role === "fetch")!;
  expect(fetch.coresNeeded).toBeCloseTo(8.102, 2);
  expect(fetch.machines).toBe(2);
  expect(fetch.bound).toBe("cpu");
});

test("fleet model - doubling the pages a day never needs fewer machines of any role", () => {
  for (const base of [10_000_000, 100_000_000, 300_000_000, 1_000_000_000]) {
    const one = machines(base).by;
    const two = machines(2 * base).by;
    for (const role of Object.keys(one)) expect(two[role]!).toBeGreaterThanOrEqual(one[role]!);
    expect(machines(2 * base).s.machinesTotal).toBeGreaterThanOrEqual(machines(base).s.machinesTotal);
  }
});

test("fleet model - a bigger machine never needs more machines, and the same work fits in fewer", () => {
  const small = machines(1_000_000_000).s.machinesTotal;
  const big = machines(1_000_000_000, { machine: { ...DEFAULT_MACHINE, vcpu: 32, memoryGiB: 128 } }).s.machinesTotal;
  expect(big).toBeLessThan(small);
});

test("fleet model - names the part that runs out first, and says when a target is past it", () => {
  const { s } = machines(1_000_000_000);
  expect(s.saturation.map((x) => x.pagesPerDay)).toEqual([...s.saturation.map((x) => x.pagesPerDay)].sort((a, b) => a - b));
  expect(s.first).toBe(s.saturation[0]!);
  // Redis memory: 32 GiB x 0.7, less the near-duplicate index at its bound (75.5M records x 640/4 B), over what a
  // page adds (9 seen URLs x 2.3 B + a 128-byte fingerprint) for 30 days in us-east-1 (70 % of the pages).
  const usable = 32 * 2 ** 30 * 0.7 - DEFAULT_ASSUMPTIONS.simhashMaxRecords * 160;
  expect(s.first.part).toContain("redis-server's memory");
  expect(s.first.pagesPerDay).toBeCloseTo(usable / ((9 * 2.3 + 128) * 30 * 0.7), -2);
  // The single thread: 1000 / 0.25 ms = 4,000 pages/s in us-east-1: 4,000 x 86,400 / 0.7 = 494M a day.
  const thread = s.saturation.find((x) => x.part.includes("single-threaded"))!;
  expect(thread.pagesPerDay).toBeCloseTo((4000 * 86_400) / 0.7, -3);
  expect(thread.pagesPerDay).toBeLessThan(1_000_000_000);
  // A Redis 250 times cheaper, on a machine of 4 TiB holding one day of pages: the frontier's partitions run out first (64 x 1000 / 0.4 ms x 86,400 / 0.7).
  const cheap = {
    ...costs,
    cluster: {
      ...costs.cluster,
      roles: costs.cluster.roles.map((r) =>
        r.role === "redis-server" ? { ...r, steadyCpuMsPerPage: 0.001, cpuMsPerPage: 0.001, mainThreadMsPerPage: 0.001 } : r,
      ),
    },
  };
  const other = sizeFleet(
    input(1_000_000_000, {
      costs: cheap,
      machine: { ...DEFAULT_MACHINE, memoryGiB: 4096 },
      assumptions: { ...DEFAULT_ASSUMPTIONS, horizonDays: 1 },
    }),
  ).first;
  expect(other.part).toContain("partitions");
  expect(other.pagesPerDay).toBeCloseTo((64 * 2500 * 86_400) / 0.7, -3);
});

test("fleet model - an uneven ring buys frontier capacity for the busiest node", () => {
  const even = machines(1_000_000_000).s.regions[0]!.roles.find((r) => r.role === "frontier")!;
  const uneven = machines(1_000_000_000, { imbalance: () => 2 }).s.regions[0]!.roles.find((r) => r.role === "frontier")!;
  expect(uneven.coresNeeded).toBeCloseTo(2 * even.coresNeeded, 6);
  expect(uneven.machines).toBeGreaterThanOrEqual(even.machines);
});

test("fleet model - frontier processes never outnumber the partitions, and memory follows the hosts", () => {
  const { s } = machines(50_000_000_000);
  for (const r of s.regions) expect(r.frontierProcesses).toBeLessThanOrEqual(DEFAULT_ASSUMPTIONS.partitions);
  const many = machines(100_000_000, { assumptions: { ...DEFAULT_ASSUMPTIONS, hosts: 500_000_000 } }).s.regions[0]!;
  // 360M hosts x 1,400 B = 504 GB; 32 GiB x 0.7 usable a machine: 23 machines.
  expect(many.frontierMemoryBytes).toBeCloseTo(500e6 * 0.72 * 1400, -3);
  const front = many.roles.find((r) => r.role === "frontier")!;
  expect(front.bound).toBe("memory");
  expect(front.machines).toBe(Math.ceil((500e6 * 0.72 * 1400) / (32 * 2 ** 30 * 0.7)));
});

test("fleet model - NATS keeps at least one server per copy, and coordinators live in the control region only", () => {
  const { s } = machines(100_000_000);
  for (const r of s.regions) expect(r.roles.find((x) => x.role === "nats-server")!.machines).toBeGreaterThanOrEqual(3);
  expect(s.regions[0]!.roles.find((x) => x.role === "coordinator")!.machines).toBe(2);
  expect(s.regions[1]!.roles.find((x) => x.role === "coordinator")!.machines).toBe(0);
});

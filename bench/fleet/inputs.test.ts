import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FrontierFigures, MeasuredCosts } from "./model.ts";
import type { SimulationFile } from "./run-simulation.ts";

const read = <T>(name: string) => JSON.parse(readFileSync(join(import.meta.dir, name), "utf8")) as T;

test("fleet inputs - the checked-in measured costs carry every figure the model reads, from a run without violations", () => {
  const costs = read<MeasuredCosts>("measured-costs.json");
  expect(costs.command).toContain("--costs-out");
  expect(Number.isNaN(Date.parse(costs.measuredAt))).toBe(false);
  expect(costs.cluster.violations).toBe(0);
  for (const role of ["frontier", "fetch", "coordinator", "nats-server", "redis-server"]) {
    const r = costs.cluster.roles.find((x) => x.role === role);
    expect(r, role).toBeDefined();
    expect(r!.steadyCpuMsPerPage, role).toBeGreaterThan(0);
    expect(r!.mainThreadMsPerPage, role).toBeDefined();
    expect(r!.peakRssBytesMax, role).toBeGreaterThan(0);
  }
  const s = costs.cluster.servers;
  expect(s.steady.redisCommandsPerPage).toBeGreaterThan(0);
  expect(s.steady.natsPublishedMsgsPerPage).toBeGreaterThan(0);
  for (const family of ["fp", "simhash", "crawler"]) expect(s.redisBytesPerPageByFamily[family], family).toBeGreaterThan(0);
});

test("fleet inputs - the frontier figures name their source, and the saved simulation covers both targets and regions", () => {
  const f = read<FrontierFigures>("measured-frontier.json");
  expect(f.command).toContain("scale.bench.ts");
  for (const k of [
    "rssBytesPerHost",
    "diskBytesPerQueuedUrl",
    "diskBytesPerFetchedUrl",
    "diskBytesPerHost",
    "bloomBytesPerSeenUrl",
  ] as const)
    expect(f[k], k).toBeGreaterThan(0);
  const sim = read<SimulationFile>("simulation.json");
  expect(sim.web.hosts).toBe(5_000_000);
  expect(sim.targets.map((t) => t.pagesPerDay)).toEqual([100_000_000, 1_000_000_000]);
  for (const t of sim.targets) {
    expect(t.sim.refusedStarts).toBe(0);
    expect(t.sim.regions.map((r) => r.region)).toEqual(["us-east-1", "eu-west-1"]);
    expect(Object.keys(t.partitions)).toEqual(["64", "256", "1024"]);
  }
});

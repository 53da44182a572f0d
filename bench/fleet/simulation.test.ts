import { expect, test } from "bun:test";
import { buildPopulation, DEFAULT_WEB, REGIONS } from "./population.ts";
import { simulate } from "./simulate.ts";
import { joinCheck, partitionLoads, spreadCheck } from "./spread.ts";

// A scaled-down web (20,000 hosts, 4 million pages a day due: 200 per host as at 1 billion on 5 million hosts).
const pop = buildPopulation({ ...DEFAULT_WEB, hosts: 20_000, pagesPerDay: 4_000_000, partitions: 64 });
const sim = simulate(pop, { seconds: 60, warmupSeconds: 30, seed: 7 });

test("fleet simulation - the same seed gives the same web and the same run", () => {
  const again = simulate(buildPopulation({ ...DEFAULT_WEB, hosts: 20_000, pagesPerDay: 4_000_000, partitions: 64 }), {
    seconds: 60,
    warmupSeconds: 30,
    seed: 7,
  });
  expect(again.fetchesPerSecond).toBe(sim.fetchesPerSecond);
  expect([...again.hostFetches]).toEqual([...sim.hostFetches]);
});

test("fleet simulation - politeness holds: never two requests at once or inside the gap, and a host with work waits at least 1 s", () => {
  expect(sim.refusedStarts).toBe(0);
  expect(sim.gapP50Ms).toBeGreaterThanOrEqual(1000);
  // No host is fetched more often than one request per second over the window allows.
  const max = sim.hostFetches.reduce((a, b) => Math.max(a, b), 0);
  expect(max).toBeLessThanOrEqual(60);
});

test("fleet simulation - the heavy tail: the biggest hosts cannot take their share, the rest is fetched as it falls due", () => {
  expect(sim.politenessBoundHosts).toBeGreaterThan(0);
  expect(sim.politenessBoundHosts).toBeLessThan(pop.names.length / 100);
  expect(sim.fetchesPerSecond).toBeLessThan(sim.demandPerSecond);
  expect(sim.fetchesPerSecond).toBeGreaterThan(0.5 * sim.demandPerSecond);
  // Both regions crawl; the default region takes most hosts.
  expect(sim.regions.map((r) => r.region)).toEqual([...REGIONS]);
  expect(sim.regions[0]!.hosts).toBeGreaterThan(sim.regions[1]!.hosts);
  expect(sim.regions[1]!.fetchesPerSecond).toBeGreaterThan(0);
});

test("partition spread - with the real ring, more partitions per node make the busiest node closer to the mean", () => {
  const at = (p: number, nodes: number) => spreadCheck("us-east-1", partitionLoads(pop, sim.hostFetches, 0, p).load, nodes);
  const few = at(64, 16);
  const many = at(1024, 16);
  expect(few.partitions).toBe(64);
  expect(few.nodeMaxOverMean).toBeGreaterThan(1);
  expect(many.nodeMaxOverMean).toBeLessThan(few.nodeMaxOverMean);
  expect(few.maxPartitionsPerNode).toBeGreaterThanOrEqual(4);
});

test("partition spread - a frontier node joining N moves about 1/(N+1) of the partitions, all to the new node", () => {
  for (const nodes of [3, 7, 15]) {
    const j = joinCheck("us-east-1", partitionLoads(pop, sim.hostFetches, 0, 1024), nodes);
    expect(j.allToNewNode).toBe(true);
    expect(Math.abs(j.movedPartitionShare - j.idealShare)).toBeLessThan(0.5 * j.idealShare);
    expect(Math.abs(j.movedHostShare - j.movedPartitionShare)).toBeLessThan(0.05);
  }
});

/**
 * `--costs-out FILE`: the cluster's measured cost per page by role, and the embedded crawler's figures of
 * the same run, as one JSON document with the date and the command that produced it. The fleet model
 * (bench/fleet/) reads its checked-in copy, bench/fleet/measured-costs.json, so every machine count in
 * docs/sizing.md rests on a run anyone can repeat.
 */
import { availableParallelism, cpus } from "node:os";
import { roleCosts, round, serverCosts } from "./roles.ts";
import type { CrawlResult, Scenario } from "./run.ts";

export function measuredCosts(scenario: Scenario, results: readonly CrawlResult[], argv: readonly string[]) {
  const cluster = results.find((r) => r.kind === "cluster");
  const ours = results.find((r) => r.kind === "embedded");
  const r3 = (x: number) => round(x, 3);
  return {
    measuredAt: new Date().toISOString(),
    command: ["bun", "bench/crawl/crawl.bench.ts", ...argv].join(" "),
    box: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "?" },
    scenario,
    embedded: ours
      ? {
          pagesPerSecond: r3(ours.pagesPerSecond),
          cpuMsPerPage: r3(ours.cpuMsPerPage),
          steadyCpuMsPerPage: r3(ours.steady.cpuMsPerPage),
          peakRssBytes: ours.peakRssBytes,
          violations: ours.violations,
          connectionsPerHost: r3(ours.connectionsPerHost),
          processesPerHost: r3(ours.hostAffinity.processesPerHost),
          otherLoadCpuSeconds: r3(ours.otherLoadCpuSeconds),
        }
      : null,
    cluster: cluster
      ? {
          name: cluster.name,
          pagesPerSecond: r3(cluster.pagesPerSecond),
          steadyPagesPerSecond: r3(cluster.steady.pagesPerSecond),
          violations: cluster.violations,
          otherLoadCpuSeconds: r3(cluster.otherLoadCpuSeconds),
          writtenBytesPerPage: cluster.pages > 0 ? Math.round(cluster.writtenBytes / cluster.pages) : 0,
          roles: roleCosts(cluster).map((c) => ({
            ...c,
            cpuMsPerPage: r3(c.cpuMsPerPage),
            steadyCpuMsPerPage: r3(c.steadyCpuMsPerPage),
            mainThreadMsPerPage: r3(c.mainThreadMsPerPage),
            maxMainThreadShare: r3(c.maxMainThreadShare),
            diskBytesPerPage: Math.round(c.diskBytesPerPage),
          })),
          servers: roundDeep(serverCosts(cluster)),
        }
      : null,
  };
}

function roundDeep<T>(x: T): T {
  if (typeof x === "number") return (Number.isInteger(x) ? x : round(x, 3)) as T;
  if (Array.isArray(x)) return x.map(roundDeep) as T;
  if (x && typeof x === "object") return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, roundDeep(v)])) as T;
  return x;
}

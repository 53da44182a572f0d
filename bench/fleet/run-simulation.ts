/**
 * Runs the fleet simulation for each target (pages a day due on the simulated web) and keeps what the
 * model and the document need as plain JSON (bench/fleet/simulation.json): per target and region the
 * simulation's figures, and the fetches per partition at several partition counts (so the spread and join
 * checks can be worked out again, at any node count, without simulating again). The document is generated
 * from this file, so `bun run docs:sizing --check` takes a second; `bun run bench:fleet` simulates again.
 */
import { buildPopulation, DEFAULT_WEB, type Population, REGIONS, type WebShape } from "./population.ts";
import { simulate, type SimOptions, type SimResult } from "./simulate.ts";
import { partitionLoads } from "./spread.ts";

/** Partition counts whose per-partition loads are kept: the cluster's default, the Terraform example's, one more. */
export const PARTITION_COUNTS = [64, 256, 1024] as const;

export interface TargetRun {
  pagesPerDay: number;
  sim: Omit<SimResult, "hostFetches" | "regions"> & { regions: Omit<SimResult["regions"][number], "partitionFetches">[] };
  /** By partition count, then region: fetches and hosts per partition (rounded). */
  partitions: Record<string, Record<string, { load: number[]; hosts: number[] }>>;
}

export interface SimulationFile {
  generatedBy: string;
  web: Omit<WebShape, "pagesPerDay" | "partitions">;
  options: SimOptions;
  /** Wall seconds the run took (informative; not in the document). */
  runSeconds: number;
  targets: TargetRun[];
}

export function runSimulation(opts: {
  hosts: number;
  targets: readonly number[];
  seconds: number;
  warmupSeconds: number;
  seed: number;
  alpha?: number;
  command: string;
  log?: (line: string) => void;
}): SimulationFile {
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const web = { ...DEFAULT_WEB, hosts: opts.hosts, seed: opts.seed, ...(opts.alpha ? { alpha: opts.alpha } : {}) };
  log(`building ${opts.hosts.toLocaleString("en-US")} hosts...`);
  const base = buildPopulation({ ...web, pagesPerDay: opts.targets[0]!, partitions: PARTITION_COUNTS[0] });
  const options: SimOptions = { seconds: opts.seconds, warmupSeconds: opts.warmupSeconds, seed: opts.seed };
  const targets = opts.targets.map((pagesPerDay) => {
    const scale = pagesPerDay / base.shape.pagesPerDay;
    const pop: Population = {
      ...base,
      shape: { ...base.shape, pagesPerDay },
      pagesPerDay: base.pagesPerDay.map((x) => x * scale),
    };
    log(`simulating ${pagesPerDay.toLocaleString("en-US")} pages/day due, ${opts.warmupSeconds} + ${opts.seconds} virtual s...`);
    const { hostFetches, regions, ...sim } = simulate(pop, options);
    const partitions: TargetRun["partitions"] = {};
    for (const p of PARTITION_COUNTS) {
      partitions[p] = {};
      REGIONS.forEach((region, r) => {
        const { load, hosts } = partitionLoads(pop, hostFetches, r, p);
        partitions[p]![region] = { load: [...load], hosts: [...hosts] };
      });
    }
    return {
      pagesPerDay,
      sim: { ...sim, regions: regions.map(({ partitionFetches: _p, ...rest }) => rest) },
      partitions,
    };
  });
  return {
    generatedBy: opts.command,
    web: {
      hosts: web.hosts,
      alpha: web.alpha,
      medianFetchMs: web.medianFetchMs,
      hostSpeedSigma: web.hostSpeedSigma,
      fetchSigma: web.fetchSigma,
      crawlDelayShare: web.crawlDelayShare,
      seed: web.seed,
    },
    options,
    runSeconds: (performance.now() - t0) / 1000,
    targets,
  };
}

/**
 * Puts the fleet model together: the simulation's figures (simulation.json) give the regions' shares, the
 * fetch times and the per-partition loads; the measured costs and frontier figures give the price per page,
 * per host and per URL; `sizeFleet` (model.ts) counts machines; the spread and join checks (spread.ts) run
 * the real ring at the node counts the model arrived at. Pure apart from the inputs it is handed.
 */
import { REGIONS } from "./population.ts";
import {
  type Assumptions,
  type FrontierFigures,
  type MachineSize,
  type MeasuredCosts,
  type RegionShare,
  type Sizing,
  sizeFleet,
} from "./model.ts";
import { PARTITION_COUNTS, type SimulationFile, type TargetRun } from "./run-simulation.ts";
import { type JoinCheck, joinCheck, type SpreadCheck, spreadCheck } from "./spread.ts";

export interface TargetSizing {
  run: TargetRun;
  sizing: Sizing;
  /** The configured partition count at the model's frontier node count, and the other counts at the same nodes. */
  spread: SpreadCheck[];
  /** One node joining the model's frontier nodes, per region, at the configured partition count. */
  join: JoinCheck[];
}

export interface FleetInputs {
  simulation: SimulationFile;
  costs: MeasuredCosts;
  frontier: FrontierFigures;
  machine: MachineSize;
  assumptions: Assumptions;
}

export function regionShares(run: TargetRun): RegionShare[] {
  const demand = run.sim.regions.reduce((a, r) => a + r.demandPerSecond, 0);
  const hosts = run.sim.regions.reduce((a, r) => a + r.hosts, 0);
  return run.sim.regions.map((r) => ({
    region: r.region,
    pageShare: r.demandPerSecond / demand,
    hostShare: r.hosts / hosts,
    meanFetchSeconds: r.fetchesPerSecond > 0 ? r.meanInFlight / r.fetchesPerSecond : 0,
  }));
}

export function sizeTarget(inputs: FleetInputs, run: TargetRun): TargetSizing {
  const p = inputs.assumptions.partitions;
  if (!PARTITION_COUNTS.includes(p as (typeof PARTITION_COUNTS)[number]))
    throw new Error(`partitions must be one of ${PARTITION_COUNTS.join(", ")} (the loads kept in simulation.json)`);
  const loads = (count: number, region: string) => {
    const l = run.partitions[count]?.[region];
    if (!l) throw new Error(`simulation.json has no loads for ${count} partitions in ${region}`);
    return { load: Float64Array.from(l.load), hosts: Float64Array.from(l.hosts) };
  };
  const memo = new Map<string, number>();
  const imbalance = (region: string, nodes: number) => {
    const key = `${region}/${nodes}`;
    let v = memo.get(key);
    if (v === undefined) memo.set(key, (v = spreadCheck(region, loads(p, region).load, Math.max(1, nodes)).nodeMaxOverMean));
    return v;
  };
  const sizing = sizeFleet({
    pagesPerDay: run.pagesPerDay,
    costs: inputs.costs,
    frontier: inputs.frontier,
    machine: inputs.machine,
    assumptions: inputs.assumptions,
    regions: regionShares(run),
    imbalance,
  });
  const spread: SpreadCheck[] = [];
  const join: JoinCheck[] = [];
  for (const r of sizing.regions) {
    const nodes = Math.max(1, r.frontierProcesses);
    for (const count of PARTITION_COUNTS) spread.push(spreadCheck(r.region, loads(count, r.region).load, nodes));
    join.push(joinCheck(r.region, loads(p, r.region), nodes));
  }
  return { run, sizing, spread, join };
}

export function sizeAll(inputs: FleetInputs): TargetSizing[] {
  for (const t of inputs.simulation.targets)
    for (const r of REGIONS) if (!t.sim.regions.some((x) => x.region === r)) throw new Error(`simulation.json lacks region ${r}`);
  return inputs.simulation.targets.map((run) => sizeTarget(inputs, run));
}

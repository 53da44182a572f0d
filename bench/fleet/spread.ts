/**
 * Does a partition count spread the load evenly over the frontier nodes, and what does a node joining move?
 * Both with the project's own code: a host's partition is core/ring `partitionOf` (as every role computes
 * it), partitions go to nodes by core/cluster `computeRing` (the coordinator's consistent hashing with
 * virtual nodes, per region), and a join is `computeRing` again from the previous ring with one node more.
 * The load of a host is what the simulation fetched from it (simulate.ts), so the heavy tail of the web,
 * cut by politeness, is in it.
 */
import { computeRing } from "../../core/cluster/index.ts";
import { hostPartition } from "../../core/addressing/index.ts";
import { DEFAULT_VNODES } from "../../core/ring/index.ts";
import type { Population } from "./population.ts";

export interface SpreadCheck {
  region: string;
  partitions: number;
  nodes: number;
  /** Fetches a partition had on average in the simulated window (few: the max/mean is partly sampling noise). */
  meanPartitionFetches: number;
  /** Busiest partition's fetches over the mean partition's. */
  partitionMaxOverMean: number;
  /** Busiest node's fetches (its partitions' sum) over the mean node's. */
  nodeMaxOverMean: number;
  /** Most partitions on one node, and the mean. */
  maxPartitionsPerNode: number;
  meanPartitionsPerNode: number;
  /** Nodes the ring left without a partition (they would do nothing). */
  idleNodes: number;
}

export interface JoinCheck {
  region: string;
  partitions: number;
  nodesBefore: number;
  /** Share of the region's partitions, hosts and fetch load whose owner changed when one node joined. */
  movedPartitionShare: number;
  movedHostShare: number;
  movedLoadShare: number;
  /** 1 / (nodes after the join): what consistent hashing promises on average. */
  idealShare: number;
  /** Every moved partition went to the new node (none shuffled between the old ones). */
  allToNewNode: boolean;
}

export const nodeId = (region: string, i: number) => `frontier-${region}-${i + 1}`;

/** Per-partition load of one region at partition count P (host loads from the simulation). */
export function partitionLoads(
  pop: Population,
  hostLoad: ArrayLike<number>,
  regionIndex: number,
  partitions: number,
): { load: Float64Array; hosts: Float64Array } {
  const load = new Float64Array(partitions);
  const hosts = new Float64Array(partitions);
  const same = partitions === pop.shape.partitions;
  for (let i = 0; i < pop.names.length; i++) {
    if (pop.region[i] !== regionIndex) continue;
    // Placed as every process places a host (core/addressing); the model's fleet keeps the default host key.
    const p = same ? pop.partition[i]! : hostPartition(pop.names[i]!, { partitions });
    load[p]! += hostLoad[i]!;
    hosts[p]!++;
  }
  return { load, hosts };
}

function ringOwners(region: string, partitions: number, nodes: number) {
  const live = { [region]: Array.from({ length: nodes }, (_, i) => nodeId(region, i)) };
  return computeRing(undefined, { partitions, vnodes: DEFAULT_VNODES, live, reachable: new Set(live[region]) });
}

export function spreadCheck(region: string, load: Float64Array, nodes: number): SpreadCheck {
  const partitions = load.length;
  const ring = ringOwners(region, partitions, nodes);
  const owners = ring.regions[region]!.owners;
  const perNode = new Map<string, { load: number; partitions: number }>();
  for (let i = 0; i < nodes; i++) perNode.set(nodeId(region, i), { load: 0, partitions: 0 });
  let total = 0;
  let maxPartition = 0;
  for (let p = 0; p < partitions; p++) {
    const n = perNode.get(owners[p]!)!;
    n.load += load[p]!;
    n.partitions++;
    total += load[p]!;
    maxPartition = Math.max(maxPartition, load[p]!);
  }
  let maxNode = 0;
  let maxParts = 0;
  let idle = 0;
  for (const n of perNode.values()) {
    maxNode = Math.max(maxNode, n.load);
    maxParts = Math.max(maxParts, n.partitions);
    if (n.partitions === 0) idle++;
  }
  return {
    region,
    partitions,
    nodes,
    meanPartitionFetches: total / partitions,
    partitionMaxOverMean: total > 0 ? maxPartition / (total / partitions) : 0,
    nodeMaxOverMean: total > 0 ? maxNode / (total / nodes) : 0,
    maxPartitionsPerNode: maxParts,
    meanPartitionsPerNode: partitions / nodes,
    idleNodes: idle,
  };
}

export function joinCheck(region: string, loads: { load: Float64Array; hosts: Float64Array }, nodes: number): JoinCheck {
  const partitions = loads.load.length;
  const before = ringOwners(region, partitions, nodes);
  const liveAfter = [...Array.from({ length: nodes + 1 }, (_, i) => nodeId(region, i))];
  const after = computeRing(before, {
    partitions,
    vnodes: DEFAULT_VNODES,
    live: { [region]: liveAfter },
    reachable: new Set(liveAfter),
  });
  const newNode = nodeId(region, nodes);
  let moved = 0;
  let movedHosts = 0;
  let movedLoad = 0;
  let hosts = 0;
  let load = 0;
  let allToNew = true;
  for (let p = 0; p < partitions; p++) {
    hosts += loads.hosts[p]!;
    load += loads.load[p]!;
    if (before.regions[region]!.owners[p] !== after.regions[region]!.owners[p]) {
      moved++;
      movedHosts += loads.hosts[p]!;
      movedLoad += loads.load[p]!;
      if (after.regions[region]!.owners[p] !== newNode) allToNew = false;
    }
  }
  return {
    region,
    partitions,
    nodesBefore: nodes,
    movedPartitionShare: moved / partitions,
    movedHostShare: hosts > 0 ? movedHosts / hosts : 0,
    movedLoadShare: load > 0 ? movedLoad / load : 0,
    idealShare: 1 / (nodes + 1),
    allToNewNode: allToNew,
  };
}

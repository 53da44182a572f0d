/**
 * Computes the ring assignment from the live frontier nodes of each region: consistent hashing with virtual
 * nodes (core/ring), so a node joining takes about 1/N of its region's partitions and a node leaving gives up
 * only its own. A partition that moves from a live node records that node as `previous`, which then hands the
 * partition's queue and host state to the new owner; a partition whose owner is dead has nothing to hand
 * over and moves at once. A region left with no live node at all keeps its ring as it was: nobody could
 * take its partitions, and its owners are the ones that come back when a region cut off heals or its only
 * node thaws, which then find their partitions still theirs and go on with their tasks in flight instead of
 * dropping them and rebuilding from the replica (measured with a region whose node lost the cluster state
 * for a minute while the coordinator saw it go: 6-7 pages fetched twice on that region's hosts when the
 * ring emptied the region and gave it all back). A node that joins the region meanwhile takes them as from
 * a dead node. Pure and deterministic: every coordinator computes the same ring.
 */
import { HashRing } from "../ring/index.ts";
import type { RegionAssignment, RingRecord } from "./records.ts";

export interface AssignmentInput {
  partitions: number;
  vnodes: number;
  /** Live (non-dead, non-draining) frontier node ids by region. */
  live: Record<string, readonly string[]>;
  /** Nodes that are alive and can still hand partitions over (live plus draining). */
  reachable: ReadonlySet<string>;
}

export function computeRing(prev: RingRecord | undefined, input: AssignmentInput): RingRecord {
  const regions: Record<string, RegionAssignment> = {};
  const samePartitions = prev !== undefined && prev.partitions === input.partitions;
  let changed = !samePartitions;
  const regionNames = new Set([...Object.keys(input.live), ...Object.keys(prev?.regions ?? {})]);
  for (const region of [...regionNames].sort()) {
    const before = prev?.regions[region];
    if (samePartitions && before && (input.live[region]?.length ?? 0) === 0) {
      regions[region] = before;
      continue;
    }
    const ring = new HashRing({ vnodes: input.vnodes });
    for (const id of input.live[region] ?? []) ring.add(id);
    const assigned = ring.assign(input.partitions);
    const owners: string[] = [];
    const previous: string[] = [];
    for (let p = 0; p < input.partitions; p++) {
      const owner = assigned.get(p) ?? "";
      const oldOwner = before?.owners[p] ?? "";
      const oldPrevious = before?.previous[p] ?? "";
      owners.push(owner);
      if (owner === oldOwner) {
        // Unchanged owner: a pending handoff stays pending while its giver can still give.
        previous.push(oldPrevious && input.reachable.has(oldPrevious) ? oldPrevious : "");
      } else {
        changed = true;
        // The partition's data sits with whoever served it: the old owner, unless it was itself still
        // waiting for a handoff that never happened, in which case the giver of that one still has it.
        const holder = oldPrevious && input.reachable.has(oldPrevious) ? oldPrevious : oldOwner;
        previous.push(holder && input.reachable.has(holder) && holder !== owner ? holder : "");
      }
      if (previous[p] !== (before?.previous[p] ?? "")) changed = true;
    }
    regions[region] = { owners, previous };
  }
  return {
    epoch: changed ? (prev?.epoch ?? 0) + 1 : (prev?.epoch ?? 1),
    partitions: input.partitions,
    vnodes: input.vnodes,
    regions,
  };
}

/** Marks partition p of a region as handed over: the new owner may serve it. */
export function completeHandoff(ring: RingRecord, region: string, partition: number): RingRecord {
  const r = ring.regions[region];
  if (!r || !r.previous[partition]) return ring;
  const previous = [...r.previous];
  previous[partition] = "";
  return { ...ring, regions: { ...ring.regions, [region]: { ...r, previous } } };
}

/** What a node does with each partition of its region under this ring. */
export function partitionRoles(ring: RingRecord, region: string, nodeId: string): { serve: number[]; handOff: number[]; await: number[] } {
  const r = ring.regions[region];
  const serve: number[] = [];
  const handOff: number[] = [];
  const awaitList: number[] = [];
  if (!r) return { serve, handOff, await: awaitList };
  for (let p = 0; p < ring.partitions; p++) {
    if (r.owners[p] === nodeId) (r.previous[p] ? awaitList : serve).push(p);
    else if (r.previous[p] === nodeId) handOff.push(p);
  }
  return { serve, handOff, await: awaitList };
}

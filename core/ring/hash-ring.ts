/**
 * Consistent hashing of partitions onto frontier nodes. Each node places `vnodes` points on a 32-bit
 * ring at hash32(`<nodeId>#<i>`); partition p sits at hash32(`partition#<p>`) and belongs to the node
 * of the first point at or after it (wrapping around). A joining node therefore takes about 1/(N+1) of
 * the partitions, all from the others and none shuffled between them, and a leaving node's partitions
 * spread over the rest; many virtual nodes per node even out the shares. The ring depends only on the
 * set of node ids, never on the order they joined (equal points are ordered by node id), so every node
 * watching the membership computes the same assignment. Partition points do not depend on the partition
 * count.
 */
import { hash32 } from "../hash/index.ts";
import { checkPartitionCount } from "./partition.ts";

export interface HashRingOptions {
  /** Points per node on the ring (default 128): more means more even shares and a larger ring. */
  vnodes?: number;
}

export const DEFAULT_VNODES = 128;

/** Ring position of partition `p`. */
function partitionPoint(p: number): number {
  return hash32(`partition#${p}`);
}

export class HashRing {
  readonly vnodes: number;
  private readonly members = new Set<string>();
  /** Sorted ring points and, at the same index, the node owning each. Rebuilt on membership change. */
  private points = new Uint32Array(0);
  private owners: string[] = [];

  constructor(options: HashRingOptions = {}) {
    const { vnodes = DEFAULT_VNODES } = options;
    if (!Number.isInteger(vnodes) || vnodes < 1) throw new RangeError(`vnodes must be a positive integer, got ${vnodes}`);
    this.vnodes = vnodes;
  }

  /** Member node ids, sorted. */
  get nodes(): string[] {
    return [...this.members].sort();
  }

  get size(): number {
    return this.members.size;
  }

  has(nodeId: string): boolean {
    return this.members.has(nodeId);
  }

  /** Adds a node; returns false (and changes nothing) if it was already a member. */
  add(nodeId: string): boolean {
    if (typeof nodeId !== "string" || nodeId.length === 0) throw new TypeError("node id must be a non-empty string");
    if (this.members.has(nodeId)) return false;
    this.members.add(nodeId);
    this.rebuild();
    return true;
  }

  /** Removes a node; returns false if it was not a member. */
  remove(nodeId: string): boolean {
    if (!this.members.delete(nodeId)) return false;
    this.rebuild();
    return true;
  }

  /** The node owning partition `p`, or `undefined` when the ring is empty. */
  ownerOfPartition(p: number): string | undefined {
    if (!Number.isInteger(p) || p < 0) throw new RangeError(`partition must be a non-negative integer, got ${p}`);
    return this.ownerOfPoint(partitionPoint(p));
  }

  /** Owner of every partition 0..partitions-1; empty when the ring is empty. */
  assign(partitions: number): Map<number, string> {
    checkPartitionCount(partitions);
    const out = new Map<number, string>();
    if (this.owners.length === 0) return out;
    for (let p = 0; p < partitions; p++) out.set(p, this.ownerOfPoint(partitionPoint(p))!);
    return out;
  }

  private ownerOfPoint(h: number): string | undefined {
    const points = this.points;
    if (points.length === 0) return undefined;
    // First point >= h; past the last point the ring wraps to the first.
    let lo = 0;
    let hi = points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (points[mid]! < h) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === points.length ? 0 : lo];
  }

  private rebuild(): void {
    const entries: { point: number; node: string }[] = [];
    for (const node of this.members) {
      for (let i = 0; i < this.vnodes; i++) entries.push({ point: hash32(`${node}#${i}`), node });
    }
    entries.sort((a, b) => a.point - b.point || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    this.points = Uint32Array.from(entries, (e) => e.point);
    this.owners = entries.map((e) => e.node);
  }
}

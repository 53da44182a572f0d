/**
 * Keys a RedisSeenSet client knows to be in a partition's filter, so a link found again (a site's menu,
 * a page every page links to) is answered here instead of in Redis. Sound because a Bloom filter only
 * grows: once a call has returned, every key of it is in the filter, and the filter answers "maybe seen"
 * for it from then on; this cache gives the same answer without the round trip. What can take keys out of
 * Redis is a loss (a restart empty, a lagging replica) or a rebuild, and the set drops the partition's
 * cache then (`drop`, through `RedisSeenSet.release`), as it does when another node takes the partition.
 *
 * Keys are 53 bits of the key's 64-bit hash, per partition: two URLs that share them (about one in 10^15
 * pairs) answer alike, far below the filter's own false-positive rate. Bounded: two generations of at
 * most `perGeneration` hashes per partition; when the newer fills up, the older is dropped, so what is
 * still being found stays in and memory is at most 2 x `perGeneration` numbers per partition served.
 */
export class SeenPositiveCache {
  private readonly partitions = new Map<number, { newer: Set<number>; older: Set<number> }>();

  constructor(readonly perGeneration: number) {
    if (!Number.isInteger(perGeneration) || perGeneration < 0) {
      throw new RangeError(`perGeneration must be a non-negative integer, got ${perGeneration}`);
    }
  }

  /** The cache key of the hash pair (hi, lo): hi's 32 bits and lo's top 21. */
  static keyOf(hi: number, lo: number): number {
    return hi * 2_097_152 + (lo >>> 11);
  }

  has(partition: number, key: number): boolean {
    const p = this.partitions.get(partition);
    return p !== undefined && (p.newer.has(key) || p.older.has(key));
  }

  add(partition: number, key: number): void {
    if (this.perGeneration === 0) return;
    let p = this.partitions.get(partition);
    if (!p) this.partitions.set(partition, (p = { newer: new Set(), older: new Set() }));
    if (p.newer.size >= this.perGeneration) {
      p.older = p.newer;
      p.newer = new Set();
    }
    p.newer.add(key);
  }

  /** Forgets everything of `partition`. */
  drop(partition: number): void {
    this.partitions.delete(partition);
  }

  /** Hashes held for `partition` (for tests and metrics). */
  size(partition: number): number {
    const p = this.partitions.get(partition);
    return p === undefined ? 0 : p.newer.size + p.older.size;
  }
}

/**
 * Keys a RedisSeenSet client knows to be in a partition's filter, so a link found again (a site's menu,
 * a page every page links to) is answered here instead of in Redis. Sound because a Bloom filter only
 * grows: once a call has returned, every key of it is in the filter, and the filter answers "maybe seen"
 * for it from then on; this cache gives the same answer without the round trip. What can take keys out of
 * Redis is a loss (a restart empty, a lagging replica) or a rebuild, and the set drops the partition's
 * cache then (`drop`, through `RedisSeenSet.release`), as it does when another node takes the partition.
 *
 * A direct-mapped table per partition: the key's 64-bit hash (hi, lo) picks slot `lo & mask` and the slot
 * holds `hi`; a newer key in the same slot replaces the older. So memory is fixed (4 bytes a slot), an add
 * or a look-up is one array access with no allocation (a Set of numbers, the first version, grew and
 * rotated generations: 0.8 % of a frontier node's CPU where most links were new), and a false "seen"
 * needs two keys to agree on 32 bits of `hi` and the slot
 * bits of `lo`: about one look-up in 4 x 10^9, far below the filter's own false-positive rate. A key
 * whose `hi` is 0 is never held (0 marks an empty slot).
 */
export class SeenPositiveCache {
  private readonly partitions = new Map<number, Uint32Array>();
  private readonly mask: number;

  /** `slots` per partition, rounded up to a power of two; 0: the cache holds nothing. */
  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 0 || slots > 2 ** 24) {
      throw new RangeError(`slots must be an integer from 0 to 2^24, got ${slots}`);
    }
    this.slots = slots === 0 ? 0 : 2 ** Math.ceil(Math.log2(slots));
    this.mask = this.slots - 1;
  }

  has(partition: number, hi: number, lo: number): boolean {
    const table = this.partitions.get(partition);
    return table !== undefined && hi !== 0 && table[lo & this.mask] === hi;
  }

  add(partition: number, hi: number, lo: number): void {
    if (this.slots === 0) return;
    let table = this.partitions.get(partition);
    if (!table) this.partitions.set(partition, (table = new Uint32Array(this.slots)));
    table[lo & this.mask] = hi;
  }

  /** Forgets everything of `partition`. */
  drop(partition: number): void {
    this.partitions.delete(partition);
  }

  /** Keys held for `partition` (for tests). */
  size(partition: number): number {
    const table = this.partitions.get(partition);
    let n = 0;
    if (table) for (const v of table) if (v !== 0) n++;
    return n;
  }
}

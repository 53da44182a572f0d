/**
 * Which partition a host belongs to: `hash32(host) mod P`. Anyone can compute it without the ring (a
 * fetch node publishing a discovered link to `crawl.urls.<p>`, the CLI explaining a URL), and it never
 * changes while P is fixed, so a host's queue and seen-set always live in the same partition. Modulo
 * bias is negligible for P far below 2^32.
 */
import { hash32 } from "../hash/index.ts";

/** Throws a RangeError unless `partitions` is a usable partition count. */
export function checkPartitionCount(partitions: number): void {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 0xffffffff) {
    throw new RangeError(`partition count must be an integer in [1, 2^32), got ${partitions}`);
  }
}

/** Partition of `host` (already lower-cased and normalized) among `partitions`: an integer in [0, P). */
export function partitionOf(host: string, partitions: number): number {
  checkPartitionCount(partitions);
  return hash32(host) % partitions;
}

/**
 * Addressing work in the fleet: `partitionOf` maps a host to its fixed partition, and `HashRing` maps
 * partitions to frontier nodes by consistent hashing with virtual nodes, so membership changes move
 * only about 1/N of the partitions.
 */
export { partitionOf, checkPartitionCount } from "./partition.ts";
export { HashRing, DEFAULT_VNODES } from "./hash-ring.ts";
export type { HashRingOptions } from "./hash-ring.ts";

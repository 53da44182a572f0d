/**
 * In-process implementations of the ports, for `crawl` and for tests: the message bus and cluster state
 * in memory (with the wire codec applied, so they behave like the networked ones), the content index,
 * the fetch claims and the address gate in memory, and the local seen-set (one growing Bloom filter, snapshotted to a file).
 */
export { MemoryAddressGate } from "./memory-address-gate.ts";
export type { MemoryAddressGateOptions } from "./memory-address-gate.ts";
export { MemoryBus } from "./memory-bus.ts";
export { MemoryClusterState } from "./memory-cluster-state.ts";
export { MemoryContentIndex } from "./memory-content-index.ts";
export { MemoryFetchClaims } from "./memory-fetch-claims.ts";
export { LocalBloomSeenSet } from "./local-bloom-seen-set.ts";
export { MemoryPartitionReplica } from "./memory-partition-replica.ts";
export { MemoryPageFeed, type MemoryPageFeedOptions } from "./memory-page-feed.ts";
export { MemoryJobBudget } from "./memory-job-budget.ts";

/**
 * Replicated partition state (docs/cluster.md, "Replicated partition state"): the frontier store's change
 * journal sent to the partition replica (publisher.ts), snapshots and trims (snapshots.ts), and the
 * decision, each time a partition is to be served, whether its local rows are the newest or it must be
 * rebuilt from the replica (replicator.ts, restore.ts, replay-rules.ts).
 */
export { Replicator, type Preparation, type ReplicatorOptions } from "./replicator.ts";
export type { RestoreReport } from "./restore.ts";

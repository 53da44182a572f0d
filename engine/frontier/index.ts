/**
 * The frontier: which URL is fetched next, and when. `Frontier` admits discovered URLs (traps, seen-set,
 * durable queue), hands out tasks only for hosts whose gap has passed, and applies results; `FrontierStore`
 * is its durable working copy on local disk (SQLite, WAL); `GroupCommit` batches results into one
 * transaction; `exportPartition` / `importChunk` move a partition between frontier nodes; inspection.ts
 * answers `host show` and `url explain` for the Frontier. The same code runs in `crawl` and in every
 * frontier node; only the SeenSet and the transport around it differ.
 */
export { Frontier, type FrontierOptions, type FrontierSnapshot, type ResultItem } from "./frontier.ts";
export type { HostView, UrlView } from "./inspection.ts";
export {
  FrontierStore,
  type FrontierStoreOptions,
  type QueuedUrl,
  type UrlRow,
  type UrlStatus,
  type StoredRobots,
  type ScheduledUrl,
} from "./store/frontier-store.ts";
export { GroupCommit, type GroupCommitOptions } from "./group-commit.ts";
export { exportPartition, importChunk, type HandoffChunk } from "./handoff.ts";

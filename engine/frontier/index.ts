/**
 * The frontier: which URL is fetched next, and when. `Frontier` admits discovered URLs (traps, seen-set,
 * durable queue), hands out tasks only for hosts whose gap has passed, and applies results, each a part of
 * its own (frontier.ts lists them in the order a URL meets them); `FrontierStore` is its durable working
 * copy on local disk (SQLite, WAL; a file per table, listed in store/frontier-store.ts); `GroupCommit`
 * batches results into one transaction; `exportPartition` / `importChunk` move a partition between frontier
 * nodes (and make and restore its snapshots); the store's change journal and `applyChanges` replay
 * (store/changes.ts) are what a replica of a partition is made of; inspection.ts answers `host show` and
 * `url explain` for the Frontier, pending.ts what is left to do and when, host-board.ts the dashboards' host
 * board, and `frontierGauges` the gauges `crawl` and frontier nodes export alike. The same code runs in
 * `crawl` and in every frontier node; only the SeenSet and the transport around it differ.
 */
export { Frontier, type FrontierOptions, type FrontierSnapshot, type ResultItem } from "./frontier.ts";
export { frontierGauges } from "./metrics.ts";
export { BOARD_ROWS } from "./host-board.ts";
export type { HostView, UrlView } from "./inspection.ts";
export type { Due, PendingWork, UnreachableHost } from "./pending.ts";
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
export { exportPartition, importChunk, type HandoffChunk, type ImportOptions } from "./handoff.ts";
export type { ChangeJournal, JournalRow, JournalState } from "./store/change-journal.ts";
export { applyChanges, BadChangeBatchError, type Change } from "./store/changes.ts";

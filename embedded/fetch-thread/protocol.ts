/**
 * The messages between the crawl loop's thread and the fetch thread. The fetch thread runs the whole fetch
 * path (HTTP, parse, fingerprints, content index, WARC) so its CPU cost lands on the second core, while the
 * main thread keeps the frontier and its SQLite store, and the content index every fetch thread consults. Tasks and outputs travel in batches: one message per
 * loop turn or per few milliseconds, since each message has a fixed cost on both sides.
 */
import type { FetchTask } from "../../core/model/index.ts";
import type { FetchPathOptions } from "../../engine/fetch/index.ts";
import type { WorkOutput } from "../../core/ports/index.ts";

/**
 * What a fetch thread builds its fetch path from: the fetch path's own options, less the content index,
 * which stays in the main thread (shared by all threads). The WARC prefix must differ per thread.
 */
export type FetchThreadInit = Omit<FetchPathOptions, "content">;

export type ToThread =
  | { type: "init"; init: FetchThreadInit }
  | { type: "tasks"; tasks: FetchTask[] }
  | { type: "abort" }
  | { type: "close" }
  | { type: "claimed"; id: number; owner?: string };

export type FromThread =
  | { type: "ready" }
  | { type: "done"; outputs: Array<{ taskId: string; output: WorkOutput }> }
  | { type: "failed"; taskId: string; message: string; aborted: boolean }
  | { type: "closed" }
  | { type: "fatal"; message: string }
  /** A content-index claim, answered by the main thread, which holds the one index every thread shares. */
  | { type: "claim"; id: number; kind: "exact" | "near"; key: string; url: string };

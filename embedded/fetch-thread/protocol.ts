/**
 * The messages between the crawl loop's thread and the fetch thread. The fetch thread runs the whole fetch
 * path (HTTP, parse, fingerprints, content index, WARC) so its CPU cost lands on the second core, while the
 * main thread keeps the frontier and its SQLite store. Tasks and outputs travel in batches: one message per
 * loop turn or per few milliseconds, since each message has a fixed cost on both sides.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import type { WorkOutput } from "../../fetch-node/pipeline/index.ts";

export interface FetchThreadInit {
  policy: Pick<PolicyConfig, "userAgent" | "connectTimeoutMs" | "responseTimeoutMs" | "maxBodyBytes">;
  warcDir: string;
  contentDbPath: string;
  proxyUrl?: string;
  allowPrivateAddresses: boolean;
  maxConcurrentRequests: number;
}

export type ToThread =
  | { type: "init"; init: FetchThreadInit }
  | { type: "tasks"; tasks: FetchTask[] }
  | { type: "abort" }
  | { type: "close" };

export type FromThread =
  | { type: "ready" }
  | { type: "done"; outputs: Array<{ taskId: string; output: WorkOutput }> }
  | { type: "failed"; taskId: string; message: string; aborted: boolean }
  | { type: "closed" }
  | { type: "fatal"; message: string };

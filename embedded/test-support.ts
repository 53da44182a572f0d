/**
 * For tests of `crawl --http` without a process: this crawl's jobs (embedded/jobs.ts) and its feed of
 * fetched pages (adapters/sqlite SqlitePageFeed) over a given frontier, in a fresh directory, as
 * embedded/main.ts builds them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqlitePageFeed } from "../adapters/sqlite/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../core/config/index.ts";
import type { JobBudget } from "../core/ports/index.ts";
import type { Frontier } from "../engine/frontier/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { CrawlJobs } from "./jobs.ts";

export interface CrawlJobParts {
  dir: string;
  /** Replaced by a test that reopens the directory; the one here is closed at the end. */
  jobs: CrawlJobs;
  feed: SqlitePageFeed;
  close(): Promise<void>;
}

export function crawlJobParts(
  frontier: Frontier,
  now: () => number,
  policy: PolicyConfig = DEFAULT_POLICY,
  budget?: JobBudget,
  dir = mkdtempSync(join(tmpdir(), "crawl-jobs-")),
): CrawlJobParts {
  const jobs = CrawlJobs.open({ out: dir, frontier, policy, now, log: silentLog, onSeeds: () => {}, ...(budget && { budget }) });
  const feed = SqlitePageFeed.open(join(dir, "pages.sqlite"), { maxAgeMs: 3_600_000, maxBytes: 1 << 30, now });
  return {
    dir,
    jobs,
    feed,
    async close() {
      await this.jobs.close();
      await feed.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

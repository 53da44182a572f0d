/**
 * The feed of fetched pages (core/feed). Contract:
 *  - `publish(items)` stores each record under its job's subject, deduplicated on `id` within the feed's
 *    duplicate window: publishing the same id again (a result redelivered) stores nothing new. It resolves
 *    once every record is stored; it rejects when one could not be (the caller retries with the same ids).
 *  - `read(job, after, limit)` returns up to `limit` of the job's records stored after cursor `after`
 *    (0: from the first kept), in the order they were stored, and `next`, the cursor of the last one
 *    returned (`after` again when none). Reading changes nothing.
 *  - Records are kept by age and size (the implementation's retention); the oldest go first.
 */
import type { PageRecord } from "../feed/index.ts";

export interface PageFeed {
  publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void>;
  read(job: string, after: number, limit: number): Promise<{ records: PageRecord[]; next: number }>;
  close(): Promise<void>;
}

/**
 * The in-process PageFeed: the records in one array in stream order, each with its sequence, kept by age
 * and count (`maxAgeMs`, `maxRecords`: the oldest go first), deduplicated on id for as long as the id's
 * record is kept. For tests and a single process; the contract is core/ports/page-feed.ts.
 */
import type { PageRecord } from "../../core/feed/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";

export interface MemoryPageFeedOptions {
  maxAgeMs: number;
  maxRecords: number;
  now: () => number;
}

interface Stored {
  seq: number;
  at: number;
  id: string;
  record: PageRecord;
}

export class MemoryPageFeed implements PageFeed {
  private readonly log: Stored[] = [];
  private readonly ids = new Set<string>();
  private seq = 0;

  constructor(private readonly opts: MemoryPageFeedOptions) {}

  async publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void> {
    this.trim();
    for (const { id, record } of items) {
      if (this.ids.has(id)) continue;
      this.ids.add(id);
      this.log.push({ seq: ++this.seq, at: this.opts.now(), id, record: structuredClone(record) });
    }
    this.trim();
  }

  async read(job: string, after: number, limit: number): Promise<{ records: PageRecord[]; next: number }> {
    this.trim();
    const records: PageRecord[] = [];
    let next = after;
    for (const s of this.log) {
      if (records.length >= limit) break;
      if (s.seq <= after || s.record.job !== job) continue;
      records.push(structuredClone(s.record));
      next = s.seq;
    }
    return { records, next };
  }

  async close(): Promise<void> {}

  private trim(): void {
    const oldest = this.opts.now() - this.opts.maxAgeMs;
    let drop = 0;
    while (drop < this.log.length && (this.log.length - drop > this.opts.maxRecords || this.log[drop]!.at < oldest)) drop++;
    for (const s of this.log.splice(0, drop)) this.ids.delete(s.id);
  }
}

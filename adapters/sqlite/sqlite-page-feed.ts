/**
 * `crawl`'s PageFeed (core/ports/page-feed.ts): the feed of fetched pages as an append-only table of a
 * SQLite file under --out (`pages.sqlite`), so `GET /v1/jobs/{id}/pages` pages through the same records as
 * the cluster's stream, and they survive a restart. A record's sequence is its row's `seq` (AUTOINCREMENT:
 * never reused, even after the oldest rows are dropped), so the cursor is the same number as the cluster's
 * stream sequence. Kept by age and size like the stream (`--feed-max-age`, `--feed-max-bytes`): a publish
 * that finds the oldest record too old, or the records past the size, drops the oldest first; a read never
 * returns a record older than the age. Size counts each record's JSON and its id.
 *
 * Cost per page result: one row (the record's JSON, ~500 B, plus id and job) in three B-trees: the table
 * by `seq` and the job's index `(job, seq)` both append at their end, the id's unique index (the duplicate
 * check: a result given again stores nothing) takes task ids, which grow with the run. One transaction per
 * batch of results (the frontier's group commit hands them together). Measured in bench/replication.bench.ts (BENCH_PARTS=commits: with and without the feed) and bench/feed-outbox.bench.ts.
 *
 * A frontier node uses the same table as its feed outbox (frontier-node/node/feed-outbox.ts): results are
 * appended here, on its own disk, and a drainer publishes the oldest rows to the stream (`oldest`) and
 * deletes them after the stream's ack (`removeThrough`); the age and size bound it the same way.
 */
import type { Database, Statement } from "bun:sqlite";
import type { PageRecord } from "../../core/feed/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import { openSqliteFile } from "./open-database.ts";

export interface SqlitePageFeedOptions {
  maxAgeMs: number;
  maxBytes: number;
  now: () => number;
  /** Told how many records the age or size bound just dropped (the outbox counts and warns). */
  onDropped?: (records: number) => void;
}

/** One stored record as the outbox's drainer takes it: its row, its id and the record. */
export interface StoredPageRecord {
  seq: number;
  id: string;
  record: PageRecord;
}

export class SqlitePageFeed implements PageFeed {
  private readonly insert: Statement;
  private readonly page: Statement;
  private bytes: number;
  private count: number;
  private oldestAt: number | undefined;

  private constructor(
    private readonly db: Database,
    private readonly opts: SqlitePageFeedOptions,
  ) {
    this.insert = db.query("INSERT OR IGNORE INTO pages (at, job, id, record) VALUES (?, ?, ?, ?)");
    this.page = db.query("SELECT seq, record FROM pages WHERE job = ? AND seq > ? AND at >= ? ORDER BY seq LIMIT ?");
    this.bytes = (db.query("SELECT COALESCE(SUM(length(record) + length(id)), 0) AS n FROM pages").get() as { n: number }).n;
    this.count = (db.query("SELECT COUNT(*) AS n FROM pages").get() as { n: number }).n;
    this.oldestAt = this.readOldestAt();
  }

  /** Opens (creating when needed) the feed at `path`; a damaged file is refused with StoreDamagedError. */
  static open(path: string, opts: SqlitePageFeedOptions): SqlitePageFeed {
    const db = openSqliteFile(path);
    db.exec(`
      CREATE TABLE IF NOT EXISTS pages (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, job TEXT NOT NULL, id TEXT NOT NULL, record TEXT NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS pages_id ON pages (id);
      CREATE INDEX IF NOT EXISTS pages_job ON pages (job, seq);
    `);
    return new SqlitePageFeed(db, opts);
  }

  async publish(items: ReadonlyArray<{ id: string; record: PageRecord }>): Promise<void> {
    if (items.length === 0) return;
    const at = this.opts.now();
    let added = 0;
    this.db.transaction(() => {
      for (const { id, record } of items) {
        const json = JSON.stringify(record);
        if (this.insert.run(at, record.job, id, json).changes > 0) {
          added += json.length + id.length;
          this.count++;
        }
      }
    })();
    this.bytes += added;
    this.oldestAt ??= at;
    if (this.bytes > this.opts.maxBytes || this.oldestAt < at - this.opts.maxAgeMs) this.trim(at);
  }

  async read(job: string, after: number, limit: number): Promise<{ records: PageRecord[]; next: number }> {
    const rows = this.page.all(job, after, this.opts.now() - this.opts.maxAgeMs, limit) as Array<{ seq: number; record: string }>;
    return { records: rows.map((r) => JSON.parse(r.record) as PageRecord), next: rows.length > 0 ? rows[rows.length - 1]!.seq : after };
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** Up to `limit` of the oldest records of every job, in the order stored. */
  oldest(limit: number): StoredPageRecord[] {
    const rows = this.db.query("SELECT seq, id, record FROM pages ORDER BY seq LIMIT ?").all(limit) as Array<{
      seq: number;
      id: string;
      record: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, id: r.id, record: JSON.parse(r.record) as PageRecord }));
  }

  /** Deletes every record up to and including `seq` (the outbox's: the stream has them). */
  removeThrough(seq: number): void {
    const gone = this.db
      .query("SELECT COUNT(*) AS n, COALESCE(SUM(length(record) + length(id)), 0) AS b FROM pages WHERE seq <= ?")
      .get(seq) as {
      n: number;
      b: number;
    };
    if (gone.n === 0) return;
    this.db.query("DELETE FROM pages WHERE seq <= ?").run(seq);
    this.count -= gone.n;
    this.bytes -= gone.b;
    this.oldestAt = this.readOldestAt();
  }

  /** How many records are held, and when the oldest was stored (undefined: none). */
  backlog(): { records: number; oldestAt: number | undefined } {
    return { records: this.count, oldestAt: this.oldestAt };
  }

  /** Drops the records older than the age, then the oldest until the rest fit the size. */
  private trim(now: number): void {
    const cutoff = now - this.opts.maxAgeMs;
    const over = this.bytes - this.opts.maxBytes;
    let dropBytes = 0;
    let dropRecords = 0;
    let keepFrom: number | undefined;
    // Oldest first: rows were appended with a non-decreasing `at`, so the scan stops at the first one kept.
    for (const row of this.db.query("SELECT seq, at, length(record) + length(id) AS n FROM pages ORDER BY seq").iterate() as Iterable<{
      seq: number;
      at: number;
      n: number;
    }>) {
      if (row.at >= cutoff && dropBytes >= over) {
        keepFrom = row.seq;
        break;
      }
      dropBytes += row.n;
      dropRecords++;
    }
    this.db.transaction(() => {
      if (keepFrom === undefined) this.db.query("DELETE FROM pages").run();
      else this.db.query("DELETE FROM pages WHERE seq < ?").run(keepFrom);
    })();
    this.bytes -= dropBytes;
    this.count -= dropRecords;
    this.oldestAt = this.readOldestAt();
    if (dropRecords > 0) this.opts.onDropped?.(dropRecords);
  }

  private readOldestAt(): number | undefined {
    return (this.db.query("SELECT at FROM pages ORDER BY seq LIMIT 1").get() as { at: number } | null)?.at;
  }
}

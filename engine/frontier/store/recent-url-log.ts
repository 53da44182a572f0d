/**
 * The recent_urls table of the frontier store: URLs admitted since the last seen-set snapshot, kept only in
 * embedded mode (whose Bloom filter lives in a file) and replayed into the filter after an unclean stop; a
 * snapshot trims what it covers. A cluster's seen-set is in Redis and needs no replay, so its store keeps
 * no log and the writes cost nothing.
 *
 * Cost: one rowid row per URL admitted since the last snapshot (its URL plus a few bytes), written
 * ROWS_PER_INSERT to a statement.
 */
import type { Database } from "bun:sqlite";
import { countOf, MultiRowInsert, ROWS_PER_INSERT, type Count } from "./sql.ts";

function prepare(db: Database) {
  return {
    since: db.query<{ id: number; url: string }, [afterId: number, limit: number]>(
      "SELECT id, url FROM recent_urls WHERE id > ? ORDER BY id LIMIT ?",
    ),
    maxId: db.query<Count, []>("SELECT COALESCE(MAX(id), 0) AS n FROM recent_urls"),
    trim: db.query<never, [id: number]>("DELETE FROM recent_urls WHERE id <= ?"),
  };
}

export class RecentUrlLog {
  private readonly s: ReturnType<typeof prepare>;
  private readonly insertMany: MultiRowInsert;

  constructor(
    db: Database,
    /** Whether admissions are logged at all (embedded mode). */
    private readonly enabled: boolean,
  ) {
    this.s = prepare(db);
    this.insertMany = new MultiRowInsert(db, "INSERT INTO recent_urls (url) VALUES ", "(?)");
  }

  /** Notes admissions, when the store keeps the log. */
  addMany(urls: readonly string[]): void {
    if (!this.enabled) return;
    for (let from = 0; from < urls.length; from += ROWS_PER_INSERT) {
      const chunk = urls.slice(from, from + ROWS_PER_INSERT);
      this.insertMany.of(chunk.length).run(...chunk);
    }
  }

  /** URLs logged after `afterId`, in order. */
  since(afterId: number, limit: number): { id: number; url: string }[] {
    return this.s.since.all(afterId, limit);
  }

  /** The id of the newest logged admission (0 when none). */
  maxId(): number {
    return countOf(this.s.maxId);
  }

  /** Forgets logged admissions up to `id`. */
  trim(id: number): void {
    this.s.trim.run(id);
  }
}

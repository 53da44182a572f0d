/**
 * The rendered_links table of the frontier store: the URLs first found only in a rendered page's DOM
 * (`--render`), for `url explain` to say so. Informational: not journaled or handed off with a partition,
 * so a node that rebuilds a partition from its replica, or takes it over, does not know the marks (explain
 * then says nothing of how the URL was found). Created by the schema's `IF NOT EXISTS` on any store, so it
 * needs no schema version. Cost: one row per such URL (its URL and partition, ~URL length + 10 bytes).
 */
import type { Database } from "bun:sqlite";

export class RenderedLinkTable {
  private readonly add: ReturnType<Database["query"]>;
  private readonly find: ReturnType<Database["query"]>;

  constructor(db: Database) {
    this.add = db.query("INSERT OR IGNORE INTO rendered_links (partition, url) VALUES (?, ?)");
    this.find = db.query("SELECT 1 AS found FROM rendered_links WHERE partition = ? AND url = ?");
  }

  /** Marks URLs as found by rendering (inside the caller's transaction). */
  addMany(rows: ReadonlyArray<{ partition: number; url: string }>): void {
    for (const r of rows) this.add.run(r.partition, r.url);
  }

  has(partition: number, url: string): boolean {
    return this.find.get(partition, url) !== null;
  }
}

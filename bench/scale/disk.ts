/**
 * What the scale bench reads of the disk: the sizes of the frontier's files as a running crawl leaves them
 * (frontier.sqlite, its -wal, seen.bloom), and, once the store is closed (its WAL checkpointed into the
 * file), where the file's bytes are: SQLite's `dbstat` table gives each table's and index's pages, and the
 * free list the pages deleted rows left (recent_urls is trimmed at every seen-set snapshot).
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";

export interface DiskFiles {
  sqliteBytes: number;
  walBytes: number;
  bloomBytes: number;
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export function files(dir: string): DiskFiles {
  const db = join(dir, "frontier.sqlite");
  return { sqliteBytes: size(db), walBytes: size(`${db}-wal`), bloomBytes: size(join(dir, "seen.bloom")) };
}

export interface TableBytes {
  /** Table or index name. */
  name: string;
  bytes: number;
  /** Rows (cells on its leaf pages; for an index, its entries). */
  rows: number;
}

export interface DiskLayout {
  pageSize: number;
  tables: TableBytes[];
  freeBytes: number;
}

/** Bytes per table and index of a closed store file (read-only; a full scan of the file). */
export function layout(dir: string): DiskLayout {
  const db = new Database(join(dir, "frontier.sqlite"), { readonly: true });
  try {
    const pageSize = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const free = (db.query("PRAGMA freelist_count").get() as { freelist_count: number }).freelist_count;
    const rows = db
      .query("SELECT name, SUM(pgsize) AS bytes, SUM(CASE WHEN pagetype = 'leaf' THEN ncell ELSE 0 END) AS rows FROM dbstat GROUP BY name")
      .all() as TableBytes[];
    rows.sort((a, b) => b.bytes - a.bytes);
    return { pageSize, tables: rows, freeBytes: free * pageSize };
  } finally {
    db.close();
  }
}

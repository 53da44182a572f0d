/**
 * Opens one of `crawl`'s small SQLite files under --out (content index, job registry, page feed): WAL, the
 * given `synchronous` level, checked for damage first (core/errors checkSqliteStore), so a damaged file is
 * refused with StoreDamagedError naming it rather than failing later in the middle of a crawl.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { checkSqliteStore, isStoreDamage, StoreDamagedError } from "../../core/errors/index.ts";

/** NORMAL: a process crash loses nothing committed, a power cut may lose the last commits; FULL: neither. */
export function openSqliteFile(path: string, synchronous: "NORMAL" | "FULL" = "NORMAL"): Database {
  let db: Database | undefined;
  try {
    db = new Database(path, { create: true });
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous};`);
    const opened = db;
    checkSqliteStore(path, statSync(path).size, (sql) => opened.query(sql).all() as Array<Record<string, unknown>>);
    return db;
  } catch (error) {
    db?.close();
    if (isStoreDamage(error) && !(error instanceof StoreDamagedError)) {
      throw new StoreDamagedError(path, (error as Error).message, { cause: error });
    }
    throw error;
  }
}

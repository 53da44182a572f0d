/**
 * Opening the frontier store's SQLite file: the pragmas (WAL, synchronous=NORMAL, so a killed process loses
 * nothing committed and an OS crash at most the last moments), the damage check, the schema version (an
 * older one is brought up to date, a newer one refused), the tables, and the store's identity. A file that
 * is damaged (corrupt, torn, not SQLite) is refused with StoreDamagedError (core/errors: the schema is read,
 * and `PRAGMA quick_check` runs over every page of a store up to 1 GiB).
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { checkSqliteStore, isStoreDamage, StoreDamagedError } from "../../../core/errors/index.ts";
import { JOURNAL_SCHEMA } from "./change-journal.ts";
import { LATE_SCHEMA, OLDEST_SCHEMA_VERSION, SCHEMA, SCHEMA_VERSION, upgradeSchema } from "./schema.ts";

/** WAL pages (4 KiB) past which a commit checkpoints: 64 MiB. */
export const WAL_AUTOCHECKPOINT_PAGES = 16_384;

/**
 * Opens (creating when needed) the store file at `path` (`:memory:` for a throwaway one) and hands the
 * database to `use`; the database is closed again when anything on the way fails, `use` included.
 */
export function openStoreFile<T>(path: string, use: (db: Database) => T): T {
  let db: Database;
  try {
    db = new Database(path, { create: true });
  } catch (error) {
    if (isStoreDamage(error)) throw new StoreDamagedError(path, (error as Error).message, { cause: error });
    throw error;
  }
  try {
    setUp(db, path);
    return use(db);
  } catch (error) {
    db.close();
    if (isStoreDamage(error) && !(error instanceof StoreDamagedError)) {
      throw new StoreDamagedError(path, (error as Error).message, { cause: error });
    }
    throw error;
  }
}

function setUp(db: Database, path: string): void {
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA cache_size = -131072");
  // Checkpoints copy WAL pages into the database and sync it; a busy frontier rewrites the same hot pages
  // (host queues, URL rows) many times between checkpoints, so checkpointing every 64 MiB instead of
  // every 4 MiB writes each of them once instead of many times. With the checkpoint thread (checkpointer.ts)
  // this is the WAL's bound: the thread has copied most of it by then, and this copies the rest.
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  if (path !== ":memory:") checkSqliteStore(path, sizeOnDisk(path), (sql) => db.query(sql).all() as Array<Record<string, unknown>>);
  const version = storedVersion(db);
  if (version !== undefined && (version > SCHEMA_VERSION || version < OLDEST_SCHEMA_VERSION)) {
    db.close();
    throw new Error(
      `frontier store ${path} has schema version ${version}; this build reads ${OLDEST_SCHEMA_VERSION} to ${SCHEMA_VERSION}: use a new directory`,
    );
  }
  db.transaction(() => {
    db.exec(SCHEMA);
    db.exec(JOURNAL_SCHEMA);
    if (version !== undefined) upgradeSchema(db, version);
    db.exec(LATE_SCHEMA);
  })();
  db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
  // The store's identity: a replica tells this store's writes from another's by it (a node that lost its
  // disk comes back with the same node id and a new store).
  db.query("INSERT OR IGNORE INTO meta (key, value) VALUES ('store-id', ?)").run(crypto.randomUUID());
}

/** The database file and its WAL, in bytes. */
function sizeOnDisk(path: string): number {
  let bytes = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      bytes += statSync(f).size;
    } catch {
      // no such file yet
    }
  }
  return bytes;
}

function storedVersion(db: Database): number | undefined {
  try {
    const row = db.query("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | null;
    return row ? Number(row.value) : undefined;
  } catch {
    return undefined; // no meta table: a new store
  }
}

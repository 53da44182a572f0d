/**
 * The embedded crawler's ContentIndex: the in-memory claims of core/content made durable by a small
 * SQLite file. Claims are answered from memory at once and written to the file in batches (one transaction
 * every 200 ms), and the memory index is rebuilt from the file on open, so a resumed crawl still recognises
 * the pages it stored before. A crash loses at most the last batch of claims: a page stored then could be
 * stored once more after the restart, nothing worse.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { checkSqliteStore, isDiskFull, isStoreDamage, StoreDamagedError } from "../../core/errors/index.ts";
import type { ContentIndex } from "../../core/ports/index.ts";
import { ContentClaims } from "../../core/content/index.ts";

export class SqliteContentIndex implements ContentIndex {
  private readonly memory = new ContentClaims();
  private readonly insertExact;
  private readonly insertNear;
  private exactLog: Array<[string, string]> = [];
  private nearLog: Array<[string, string]> = [];
  private readonly timer: ReturnType<typeof setInterval>;

  private constructor(private readonly db: Database) {
    this.insertExact = db.query("INSERT OR IGNORE INTO exact (fingerprint, url) VALUES (?, ?)");
    this.insertNear = db.query("INSERT OR IGNORE INTO near (url, simhash) VALUES (?, ?)");
    for (const row of db.query("SELECT fingerprint, url FROM exact").iterate() as Iterable<{ fingerprint: string; url: string }>) {
      this.memory.claimExact(row.fingerprint, row.url);
    }
    for (const row of db.query("SELECT url, simhash FROM near").iterate() as Iterable<{ url: string; simhash: string }>) {
      this.memory.claimNear(BigInt(`0x${row.simhash}`), row.url);
    }
    // A flush that fails for anything but a full disk is a damaged index: it surfaces at close().
    this.timer = setInterval(() => {
      try {
        this.flush();
      } catch {
        clearInterval(this.timer);
      }
    }, 200);
    this.timer.unref?.();
  }

  /** Writes the claims made since the last flush in one transaction. */
  flush(): void {
    if (this.exactLog.length === 0 && this.nearLog.length === 0) return;
    const exact = this.exactLog;
    const near = this.nearLog;
    this.exactLog = [];
    this.nearLog = [];
    try {
      this.db.transaction(() => {
        for (const [fp, url] of exact) this.insertExact.run(fp, url);
        for (const [url, hash] of near) this.insertNear.run(url, hash);
      })();
    } catch (error) {
      // A full disk: the claims stay in memory (they answer meanwhile) and go with the next flush.
      this.exactLog = [...exact, ...this.exactLog];
      this.nearLog = [...near, ...this.nearLog];
      if (!isDiskFull(error)) throw error;
    }
  }

  /** Opens (creating when needed) the index at `path`; a damaged file is refused with StoreDamagedError. */
  static open(path: string): SqliteContentIndex {
    let db: Database | undefined;
    try {
      db = new Database(path, { create: true });
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
      const opened = db;
      checkSqliteStore(path, statSync(path).size, (sql) => opened.query(sql).all() as Array<Record<string, unknown>>);
    } catch (error) {
      db?.close();
      if (isStoreDamage(error) && !(error instanceof StoreDamagedError)) {
        throw new StoreDamagedError(path, (error as Error).message, { cause: error });
      }
      throw error;
    }
    db.exec("CREATE TABLE IF NOT EXISTS exact (fingerprint TEXT PRIMARY KEY, url TEXT NOT NULL) WITHOUT ROWID");
    db.exec("CREATE TABLE IF NOT EXISTS near (url TEXT PRIMARY KEY, simhash TEXT NOT NULL) WITHOUT ROWID");
    return new SqliteContentIndex(db);
  }

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    const owner = this.memory.claimExact(fingerprint, url);
    if (owner === undefined) this.exactLog.push([fingerprint, url]);
    return owner;
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    const near = this.memory.claimNear(simhash, url);
    this.nearLog.push([url, simhash.toString(16).padStart(16, "0")]);
    return near;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    this.db.close();
  }
}

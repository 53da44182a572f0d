/**
 * The embedded crawler's ContentIndex: the in-memory claims of core/content made durable by a small
 * SQLite file. Claims are answered from memory at once and written to the file in batches (one transaction
 * every 200 ms), and the memory index is rebuilt from the file on open, so a resumed crawl still recognises
 * the pages it stored before. A crash loses at most the last batch of claims: a page stored then could be
 * stored once more after the restart, nothing worse.
 *
 * The file is a log: each claim that recorded something (a fingerprint's first owner, a URL's first
 * SimHash) is one row appended in claim order (`claims`, rowid order), and opening replays it, so the
 * memory index is rebuilt as the claims were made. Appending touches the last page or two of one table per
 * batch; the tables keyed by fingerprint and by URL it replaces put each claim on a random page of two
 * B-trees (measured on the crawl benchmark: 11 % of the crawl thread's CPU). A file of that earlier layout
 * (`exact`, `near`) is still read on open, before the log; new claims go to the log.
 */
import type { Database } from "bun:sqlite";
import { isDiskFull } from "../../core/errors/index.ts";
import type { ContentIndex } from "../../core/ports/index.ts";
import { ContentClaims } from "../../core/content/index.ts";
import { openSqliteFile } from "./open-database.ts";

/** What a row of `claims` records. */
const EXACT = 0;
const NEAR = 1;

export class SqliteContentIndex implements ContentIndex {
  private readonly memory = new ContentClaims();
  private readonly append;
  /** Claims made since the last flush: [kind, key, url]. */
  private log: Array<[number, string, string]> = [];
  private readonly timer: ReturnType<typeof setInterval>;

  private constructor(private readonly db: Database) {
    this.append = db.query("INSERT INTO claims (kind, key, url) VALUES (?, ?, ?)");
    if (hasTable(db, "exact"))
      for (const row of db.query("SELECT fingerprint, url FROM exact").iterate() as Iterable<{ fingerprint: string; url: string }>)
        this.memory.claimExact(row.fingerprint, row.url);
    if (hasTable(db, "near"))
      for (const row of db.query("SELECT url, simhash FROM near").iterate() as Iterable<{ url: string; simhash: string }>)
        this.memory.claimNear(BigInt(`0x${row.simhash}`), row.url);
    for (const row of db.query("SELECT kind, key, url FROM claims ORDER BY rowid").iterate() as Iterable<{
      kind: number;
      key: string;
      url: string;
    }>) {
      if (row.kind === EXACT) this.memory.claimExact(row.key, row.url);
      else this.memory.claimNear(BigInt(`0x${row.key}`), row.url);
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
    if (this.log.length === 0) return;
    const batch = this.log;
    this.log = [];
    try {
      this.db.transaction(() => {
        for (const [kind, key, url] of batch) this.append.run(kind, key, url);
      })();
    } catch (error) {
      // A full disk: the claims stay in memory (they answer meanwhile) and go with the next flush.
      this.log = [...batch, ...this.log];
      if (!isDiskFull(error)) throw error;
    }
  }

  /** Opens (creating when needed) the index at `path`; a damaged file is refused with StoreDamagedError. */
  static open(path: string): SqliteContentIndex {
    const db = openSqliteFile(path);
    db.exec("CREATE TABLE IF NOT EXISTS claims (kind INTEGER NOT NULL, key TEXT NOT NULL, url TEXT NOT NULL)");
    return new SqliteContentIndex(db);
  }

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    const known = this.memory.size;
    const owner = this.memory.claimExact(fingerprint, url);
    // Only a fingerprint's first owner is recorded (its own URL claiming again adds nothing).
    if (this.memory.size > known) this.log.push([EXACT, fingerprint, url]);
    return owner;
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    const known = this.memory.knowsNear(url);
    const near = this.memory.claimNear(simhash, url);
    if (!known) this.log.push([NEAR, simhash.toString(16).padStart(16, "0"), url]);
    return near;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    this.db.close();
  }
}

function hasTable(db: Database, name: string): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
}

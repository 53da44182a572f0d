/**
 * The embedded crawler's ContentIndex: the in-memory index (fetch-node/content) made durable by a small
 * SQLite file. Every claim is written through, and the memory index is rebuilt from the file on open, so
 * a resumed crawl still recognises the pages it stored before.
 */
import { Database } from "bun:sqlite";
import type { ContentIndex } from "../fetch-node/content/content-index.ts";
import { MemoryContentIndex } from "../fetch-node/content/memory-content-index.ts";

export class SqliteContentIndex implements ContentIndex {
  private readonly memory = new MemoryContentIndex();
  private readonly insertExact;
  private readonly insertNear;

  private constructor(private readonly db: Database) {
    this.insertExact = db.query("INSERT OR IGNORE INTO exact (fingerprint, url) VALUES (?, ?)");
    this.insertNear = db.query("INSERT OR IGNORE INTO near (url, simhash) VALUES (?, ?)");
    for (const row of db.query("SELECT fingerprint, url FROM exact").iterate() as Iterable<{ fingerprint: string; url: string }>) {
      this.memory.claimExactSync(row.fingerprint, row.url);
    }
    for (const row of db.query("SELECT url, simhash FROM near").iterate() as Iterable<{ url: string; simhash: string }>) {
      this.memory.claimNearSync(BigInt(`0x${row.simhash}`), row.url);
    }
  }

  static open(path: string): SqliteContentIndex {
    const db = new Database(path, { create: true });
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec("CREATE TABLE IF NOT EXISTS exact (fingerprint TEXT PRIMARY KEY, url TEXT NOT NULL) WITHOUT ROWID");
    db.exec("CREATE TABLE IF NOT EXISTS near (url TEXT PRIMARY KEY, simhash TEXT NOT NULL) WITHOUT ROWID");
    return new SqliteContentIndex(db);
  }

  async claimExact(fingerprint: string, url: string): Promise<string | undefined> {
    const owner = this.memory.claimExactSync(fingerprint, url);
    if (owner === undefined) this.insertExact.run(fingerprint, url);
    return owner;
  }

  async claimNear(simhash: bigint, url: string): Promise<string | undefined> {
    const near = this.memory.claimNearSync(simhash, url);
    this.insertNear.run(url, simhash.toString(16).padStart(16, "0"));
    return near;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

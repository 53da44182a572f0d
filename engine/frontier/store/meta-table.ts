/**
 * The meta table of the frontier store: small named values that are not rows of the crawl: the schema
 * version, the store's identity, the queue's sequence counter, the seen-set snapshots' bookkeeping and the
 * disk-full probe. Never journaled: each is this store's own.
 */
import type { Database } from "bun:sqlite";

export class MetaTable {
  private readonly s;

  constructor(db: Database) {
    this.s = {
      get: db.query<{ value: string }, [key: string]>("SELECT value FROM meta WHERE key = ?"),
      set: db.query<never, [key: string, value: string]>("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
    };
  }

  get(key: string): string | undefined {
    return this.s.get.get(key)?.value;
  }

  set(key: string, value: string): void {
    this.s.set.run(key, value);
  }
}

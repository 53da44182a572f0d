/**
 * The scope_roots table of the frontier store: the hosts of the crawl's seeds, kept so a resumed crawl
 * stays in the scope its seeds set (`--scope host|domain`) even when run again without them.
 */
import type { Database } from "bun:sqlite";

export class ScopeRootTable {
  private readonly insert;
  private readonly all;

  constructor(db: Database) {
    this.insert = db.query<never, [host: string]>("INSERT OR IGNORE INTO scope_roots (host) VALUES (?)");
    this.all = db.query<{ host: string }, []>("SELECT host FROM scope_roots");
  }

  add(hosts: Iterable<string>): void {
    for (const host of hosts) this.insert.run(host);
  }

  list(): string[] {
    return this.all.all().map((r) => r.host);
  }
}

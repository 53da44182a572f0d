/**
 * The scope_roots table of the frontier store: the hosts of the crawl's seeds, kept so a resumed crawl
 * stays in the scope its seeds set (`--scope host|domain`) even when run again without them.
 *
 * Roots are the whole crawl's, never removed; each also names the partition of the seed that made it here
 * (-1 for a root another frontier node recorded, heard from the cluster state). That partition's change
 * journal notes it and its snapshots and handoffs carry it, so a partition rebuilt from its replica or
 * handed over brings its seeds' roots along (changes.ts, handoff.ts).
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export interface ScopeRootRow {
  host: string;
  /** The partition of the seed that made it a root, -1 when that seed was admitted elsewhere. */
  partition: number;
}

export class ScopeRootTable {
  private readonly s;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = {
      get: db.query<{ partition: number }, [host: string]>("SELECT partition FROM scope_roots WHERE host = ?"),
      put: db.query<never, [host: string, partition: number]>("INSERT OR REPLACE INTO scope_roots (host, partition) VALUES (?, ?)"),
      all: db.query<{ host: string }, []>("SELECT host FROM scope_roots"),
      inPartition: db.query<{ host: string }, [partition: number]>("SELECT host FROM scope_roots WHERE partition = ? ORDER BY host"),
      release: db.query<never, [partition: number]>("UPDATE scope_roots SET partition = -1 WHERE partition = ?"),
    };
  }

  /**
   * Adds roots. A root already kept stays as it is, unless it now gets the partition of its seed (it was
   * heard from another node first); only then, or when new, is it noted under that partition.
   */
  add(roots: Iterable<ScopeRootRow>): void {
    for (const { host, partition } of roots) {
      const known = this.s.get.get(host);
      if (known && (known.partition >= 0 || partition < 0)) continue;
      this.s.put.run(host, partition);
      if (partition >= 0) this.note(partition, ["sr", host]);
    }
  }

  /** Every root host. */
  list(): string[] {
    return this.s.all.all().map((r) => r.host);
  }

  /** The roots whose seeds are in `partition` (what its snapshots and handoffs carry). */
  inPartition(partition: number): string[] {
    return this.s.inPartition.all(partition).map((r) => r.host);
  }

  /** The partition left this store: its roots stay (the crawl's), no longer this store's to replicate. */
  releasePartition(partition: number): void {
    this.s.release.run(partition);
  }
}

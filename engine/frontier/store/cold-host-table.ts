/**
 * The cold_hosts table of the frontier store: hosts with work (queued URLs or sitemaps to read) that the
 * frontier keeps out of memory, each with when it may be asked next, so a crawl of ten million hosts holds
 * only the hosts it will fetch soon (active-hosts.ts decides which). Ordered by that time, first due first:
 * the frontier warms the earliest ones as room is made.
 *
 * Derived, never the only record of anything: a host's URLs are in `queue`, its sitemaps in `sitemaps`, its
 * politeness state in `hosts`. So it is this process's own (not journaled, not handed over with a
 * partition), and it is emptied when a frontier starts, which loads the hosts with work again from the queue.
 * Each row also carries what the frontier would have known had the host stayed in memory: its queued count
 * (grown by admissions while cold), whether its work was queued before this run, and when its partition's
 * former holder was lost (a partition rebuilt from a replica), for the wait its loading owes (ActiveHosts.load).
 *
 * Cost: one row per cold host (host name, four integers: about 40 bytes plus the name, and as much again in
 * the due-time index); an admission to a cold host is one upsert, a host warmed is one delete. In memory,
 * 512 KiB whatever the number of hosts: an upper bound of each host's queued count by hash bucket
 * (`queuedAtMost`), so that the trap limit of a link to a cold host is checked without reading its row
 * (a read was 4.5 µs a link at a million hosts).
 */
import type { Database } from "bun:sqlite";
import { hash32 } from "../../../core/hash/index.ts";

/** Buckets of the queued-count bound; with 900,000 cold hosts of 10 URLs each a bucket sums about 140. */
const BOUND_BUCKETS = 1 << 16;
/** Seed of the bucket hash (any; not the partitions' 0, so a bucket mixes partitions). */
const BOUND_SEED = 0x2545f491;

export interface ColdHost {
  host: string;
  partition: number;
  /** When the host may be asked next, as far as the frontier knew when it went cold. */
  dueAt: number;
  /** Its URLs queued (a count that may run high: a URL dropped while cold is noticed when warmed). */
  queued: number;
  /** Its work was queued before this run: its last request may have been in flight (ActiveHosts.load). */
  before: boolean;
  /** When its partition's former holder was lost (0: not rebuilt from a replica). */
  lostAt: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS cold_hosts (
  host TEXT PRIMARY KEY,
  partition INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  queued INTEGER NOT NULL,
  before INTEGER NOT NULL,
  lost_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS cold_hosts_due ON cold_hosts (due_at);
`;

interface Row {
  host: string;
  partition: number;
  due_at: number;
  queued: number;
  before: number;
  lost_at: number;
}

function prepare(db: Database) {
  return {
    add: db.query<never, [host: string, partition: number, dueAt: number, queued: number, before: number, lostAt: number]>(
      `INSERT INTO cold_hosts (host, partition, due_at, queued, before, lost_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (host) DO UPDATE SET queued = queued + excluded.queued, due_at = MIN(due_at, excluded.due_at)`,
    ),
    bump: db.query<never, [n: number, host: string]>("UPDATE cold_hosts SET queued = queued + ? WHERE host = ?"),
    get: db.query<Row, [host: string]>("SELECT * FROM cold_hosts WHERE host = ?"),
    remove: db.query<never, [host: string]>("DELETE FROM cold_hosts WHERE host = ?"),
    take: db.query<Row, [until: number, limit: number]>(
      `DELETE FROM cold_hosts WHERE host IN (SELECT host FROM cold_hosts WHERE due_at <= ? ORDER BY due_at LIMIT ?)
       RETURNING *`,
    ),
    nextDueAt: db.query<{ due: number | null }, []>("SELECT MIN(due_at) AS due FROM cold_hosts"),
    count: db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM cold_hosts"),
    summary: db.query<{ hosts: number; queued: number | null; due: number | null }, []>(
      "SELECT COUNT(*) AS hosts, SUM(queued) AS queued, MIN(due_at) AS due FROM cold_hosts",
    ),
    removePartition: db.query<never, [partition: number]>("DELETE FROM cold_hosts WHERE partition = ?"),
    clear: db.query<never, []>("DELETE FROM cold_hosts"),
  };
}

export class ColdHostTable {
  private readonly s: ReturnType<typeof prepare>;
  /**
   * Per bucket, the queued counts added to its hosts' rows less those of rows taken out: at least any one
   * host's count. Rows rolled back or removed by partition leave it higher, never lower. Not known while
   * rows of an earlier process are in the table (until `clear`).
   */
  private readonly bound = new Float64Array(BOUND_BUCKETS);
  private boundKnown: boolean;

  constructor(db: Database) {
    db.exec(SCHEMA);
    this.s = prepare(db);
    this.boundKnown = this.count() === 0;
  }

  /** Makes a host cold, or adds `queued` to the count of one that is; the earlier due time wins. */
  add(host: ColdHost): void {
    this.s.add.run(host.host, host.partition, host.dueAt, host.queued, host.before ? 1 : 0, host.lostAt);
    this.bound[bucketOf(host.host)]! += host.queued;
  }

  /** Adds `n` to a cold host's queued count; false when the host is not cold. */
  bump(host: string, n = 1): boolean {
    if (this.s.bump.run(n, host).changes === 0) return false;
    this.bound[bucketOf(host)]! += n;
    return true;
  }

  get(host: string): ColdHost | undefined {
    const row = this.s.get.get(host);
    return row ? fromRow(row) : undefined;
  }

  /** At least the host's queued count if it is cold (0 or more if it is not), without reading its row. */
  queuedAtMost(host: string): number {
    return this.boundKnown ? this.bound[bucketOf(host)]! : Number.POSITIVE_INFINITY;
  }

  /** Takes a host out (warmed by name); the row it had, if any. */
  take(host: string): ColdHost | undefined {
    const row = this.get(host);
    if (row) {
      this.s.remove.run(host);
      this.taken(row);
    }
    return row;
  }

  /** Takes out the `limit` first-due hosts due by `until`, first due first. */
  takeDue(until: number, limit: number): ColdHost[] {
    const rows = this.s.take.all(until, limit).map(fromRow);
    for (const row of rows) this.taken(row);
    return rows.sort((a, b) => a.dueAt - b.dueAt);
  }

  /** A row left the table: its count leaves its bucket's bound. */
  private taken(row: ColdHost): void {
    const b = bucketOf(row.host);
    this.bound[b] = Math.max(0, this.bound[b]! - row.queued);
  }

  nextDueAt(): number | undefined {
    return this.s.nextDueAt.get()?.due ?? undefined;
  }

  count(): number {
    return this.s.count.get()?.n ?? 0;
  }

  /** How many hosts are cold, their URLs queued, and the first due time. */
  summary(): { hosts: number; queued: number; firstDueAt?: number } {
    const row = this.s.summary.get();
    if (!row || row.hosts === 0) return { hosts: 0, queued: 0 };
    return { hosts: row.hosts, queued: row.queued ?? 0, ...(row.due !== null ? { firstDueAt: row.due } : {}) };
  }

  removePartition(partition: number): void {
    this.s.removePartition.run(partition);
  }

  clear(): void {
    this.s.clear.run();
    this.bound.fill(0);
    this.boundKnown = true;
  }
}

function bucketOf(host: string): number {
  return hash32(host, BOUND_SEED) & (BOUND_BUCKETS - 1);
}

function fromRow(row: Row): ColdHost {
  return {
    host: row.host,
    partition: row.partition,
    dueAt: row.due_at,
    queued: row.queued,
    before: row.before !== 0,
    lostAt: row.lost_at,
  };
}

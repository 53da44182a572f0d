/**
 * The urls table of the frontier store: the fetch state of each URL once it has a result (or was dropped
 * or disallowed). A URL admitted and not yet fetched lives only in the queue, which saves a second random
 * B-tree insert for each of the many URLs admitted and not yet fetched; urls and queue together are the
 * exact seen-set behind the Bloom filter.
 *
 * Cost: one WITHOUT ROWID row per URL with a result (its URL twice, host, validators and fingerprints:
 * about 200 bytes plus the URL, and its captures: about 150 bytes each, at most 8, see captures.ts),
 * rewritten whole after each of its fetches. The row also holds the URL's retry or refetch time, which
 * schedule-table.ts reads and writes.
 */
import type { Database } from "bun:sqlite";
import type { Priority } from "../../../core/model/index.ts";
import { scheduledChange, urlRowChange, type Change } from "./changes.ts";
import type { ScheduledUrl } from "./schedule-table.ts";
import { countOf, kindCode, type Count } from "./sql.ts";

/** Fetch state of one URL. `state` is one of the UrlStatus values. */
export interface UrlRow {
  partition: number;
  url: string;
  host: string;
  state: UrlStatus;
  depth: number;
  failures: number;
  lastStatus: number;
  lastFetchedAt: number;
  refetchMs: number;
  etag: string | null;
  lastModified: string | null;
  fingerprint: string | null;
  simhash: string | null;
  changedLastVisit: boolean;
  note: string | null;
  /** Where the URL's last captures are stored, newest first, as captures.ts encodes them; absent: none yet. */
  captures?: string | null;
}

/** Where a URL stands: queued (waiting or in flight), fetched, scheduled again, or finished without a page. */
export type UrlStatus =
  | "queued"
  | "fetched"
  | "retry-wait"
  | "dead"
  | "gone"
  | "robots-disallowed"
  | "duplicate"
  | "redirected"
  | "dropped";

/** What names a URL in the store. */
/** A URL row's columns from its URL to its note, in table order: the insert's parameters and the journal's `u` change. */
export type UrlRowColumns = [
  url: string,
  host: string,
  state: UrlStatus,
  depth: number,
  failures: number,
  lastStatus: number,
  lastFetchedAt: number,
  refetchMs: number,
  etag: string | null,
  lastModified: string | null,
  fingerprint: string | null,
  simhash: string | null,
  changedLastVisit: 0 | 1,
  note: string | null,
];

export interface UrlKey {
  partition: number;
  host: string;
  url: string;
}

interface RawUrlRow {
  partition: number;
  url: string;
  host: string;
  state: string;
  depth: number;
  failures: number;
  last_status: number;
  last_fetched_at: number;
  refetch_ms: number;
  etag: string | null;
  last_modified: string | null;
  fingerprint: string | null;
  simhash: string | null;
  changed_last_visit: number;
  note: string | null;
  captures: string | null;
}

function prepare(db: Database) {
  return {
    get: db.query<RawUrlRow, [partition: number, url: string]>("SELECT * FROM urls WHERE partition = ? AND url = ?"),
    has: db.query<{ x: 1 }, [partition: number, url: string]>("SELECT 1 AS x FROM urls WHERE partition = ? AND url = ?"),
    setState: db.query<never, [partition: number, url: string, host: string, state: UrlStatus, depth: number, note: string | null]>(
      `INSERT INTO urls (partition, url, host, state, depth, note) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (partition, url) DO UPDATE SET state = excluded.state, note = excluded.note`,
    ),
    // An upsert, not a REPLACE: the row's schedule (due_at..., schedule-table.ts) is kept.
    put: db.query<never, [partition: number, ...UrlRowColumns, captures: string | null]>(
      `INSERT INTO urls (partition, url, host, state, depth, failures, last_status, last_fetched_at, refetch_ms, etag,
       last_modified, fingerprint, simhash, changed_last_visit, note, captures) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (partition, url) DO UPDATE SET host = excluded.host, state = excluded.state, depth = excluded.depth,
       failures = excluded.failures, last_status = excluded.last_status, last_fetched_at = excluded.last_fetched_at,
       refetch_ms = excluded.refetch_ms, etag = excluded.etag, last_modified = excluded.last_modified,
       fingerprint = excluded.fingerprint, simhash = excluded.simhash, changed_last_visit = excluded.changed_last_visit,
       note = excluded.note, captures = excluded.captures`,
    ),
    // `put` and a schedule of the same URL in one write: a page's result and its refetch (schedule-table.ts's columns).
    putScheduled: db.query<
      never,
      [partition: number, ...UrlRowColumns, captures: string | null, dueAt: number, priority: Priority, kind: 0 | 1, job: number]
    >(
      `INSERT INTO urls (partition, url, host, state, depth, failures, last_status, last_fetched_at, refetch_ms, etag,
       last_modified, fingerprint, simhash, changed_last_visit, note, captures, due_at, due_priority, due_kind, due_job)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (partition, url) DO UPDATE SET host = excluded.host, state = excluded.state, depth = excluded.depth,
       failures = excluded.failures, last_status = excluded.last_status, last_fetched_at = excluded.last_fetched_at,
       refetch_ms = excluded.refetch_ms, etag = excluded.etag, last_modified = excluded.last_modified,
       fingerprint = excluded.fingerprint, simhash = excluded.simhash, changed_last_visit = excluded.changed_last_visit,
       note = excluded.note, captures = excluded.captures, due_at = excluded.due_at, due_priority = excluded.due_priority,
       due_kind = excluded.due_kind, due_job = excluded.due_job`,
    ),
    count: db.query<Count, []>("SELECT COUNT(*) AS n FROM urls"),
    stateCounts: db.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM urls GROUP BY state"),
    inPartition: db.query<RawUrlRow, [partition: number, afterUrl: string, limit: number]>(
      "SELECT * FROM urls WHERE partition = ? AND url > ? ORDER BY url LIMIT ?",
    ),
    keysInPartition: db.query<{ url: string }, [partition: number, afterUrl: string, limit: number]>(
      "SELECT url FROM urls WHERE partition = ? AND url > ? ORDER BY url LIMIT ?",
    ),
    anyIn: db.query<{ x: 1 }, [partition: number]>("SELECT 1 AS x FROM urls WHERE partition = ? LIMIT 1"),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM urls WHERE partition = ?"),
  };
}

export class UrlTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  get(partition: number, url: string): UrlRow | undefined {
    const raw = this.s.get.get(partition, url);
    return raw ? toUrlRow(raw) : undefined;
  }

  has(partition: number, url: string): boolean {
    return this.s.has.get(partition, url) !== null;
  }

  /** Sets a URL's state (creating its row when it has none yet). */
  setState(key: UrlKey & { depth: number }, state: UrlStatus, note?: string): void {
    this.s.setState.run(key.partition, key.url, key.host, state, key.depth, note ?? null);
    this.note(key.partition, ["us", key.url, key.host, state, key.depth, note ?? null]);
  }

  /** Writes a URL's whole state (after a fetch, or as another node sent it); its schedule, if any, stays. */
  put(row: UrlRow): void {
    this.s.put.run(...columnsOf(row));
    this.note(row.partition, urlRowChange(row));
  }

  /**
   * `put` and the URL's next visit in one write of its row (a page's result and its refetch): the same row
   * and the same two journal changes as `put` and then ScheduleTable `put`, one statement fewer.
   */
  putScheduled(row: UrlRow, next: ScheduledUrl): void {
    if (next.partition !== row.partition || next.url !== row.url) throw new Error("putScheduled: the schedule is another URL's");
    this.s.putScheduled.run(...columnsOf(row), next.dueAt, next.priority, kindCode(next.kind), next.job ?? 0);
    this.note(row.partition, urlRowChange(row));
    this.note(row.partition, scheduledChange(next));
  }

  count(): number {
    return countOf(this.s.count);
  }

  stateCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const row of this.s.stateCounts.all()) out[row.state] = row.n;
    return out;
  }

  // ---- partition handoff --------------------------------------------------------------------------

  /** A page of a partition's URL states, in URL order after `afterUrl` ("" from the start). */
  inPartition(partition: number, afterUrl: string, limit: number): UrlRow[] {
    return this.s.inPartition.all(partition, afterUrl, limit).map(toUrlRow);
  }

  /** A page of a partition's URLs with a state, in URL order after `afterUrl`. */
  keysInPartition(partition: number, afterUrl: string, limit: number): string[] {
    return this.s.keysInPartition.all(partition, afterUrl, limit).map((r) => r.url);
  }

  anyIn(partition: number): boolean {
    return this.s.anyIn.get(partition) !== null;
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}

/**
 * A row's parameters for `put`. A number missing from the row (a skipped fetch has no status) is stored as
 * the column's default, 0, as the REPLACE the upsert took over from did.
 */
function columnsOf(row: UrlRow): [partition: number, ...UrlRowColumns, captures: string | null] {
  return [
    row.partition,
    row.url,
    row.host,
    row.state,
    row.depth,
    row.failures ?? 0,
    row.lastStatus ?? 0,
    row.lastFetchedAt ?? 0,
    row.refetchMs ?? 0,
    row.etag,
    row.lastModified,
    row.fingerprint,
    row.simhash,
    row.changedLastVisit ? 1 : 0,
    row.note,
    row.captures ?? null,
  ];
}

function toUrlRow(r: RawUrlRow): UrlRow {
  return {
    partition: r.partition,
    url: r.url,
    host: r.host,
    state: r.state as UrlStatus,
    depth: r.depth,
    failures: r.failures,
    lastStatus: r.last_status,
    lastFetchedAt: r.last_fetched_at,
    refetchMs: r.refetch_ms,
    etag: r.etag,
    lastModified: r.last_modified,
    fingerprint: r.fingerprint,
    simhash: r.simhash,
    changedLastVisit: r.changed_last_visit === 1,
    note: r.note,
    ...(r.captures ? { captures: r.captures } : {}),
  };
}

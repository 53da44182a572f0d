/**
 * The frontier's schedule: URLs waiting for a retry or a refetch time, moved back into the queue when due.
 * Since schema version 11 a URL's schedule is part of its `urls` row (due_at, and the priority, kind and job
 * it is queued with when due; due_at 0: nothing scheduled), indexed by due time where set (`urls_due`), so
 * the next due time and the due URLs are one index read, and a page's result, which writes its URL's row
 * anyway, schedules its refetch on the same row: before, a `scheduled` row and its `scheduled_due` entry
 * were one more B-tree row and index entry a result, each on a page of its own. The summaries (by state,
 * failing hosts) read the index's rows: for a summary, not a hot path.
 *
 * Cost: 4 integer columns on a URL's row (due_at 6 bytes, the others 0-1; 4 bytes of header) and its
 * `urls_due` entry (due_at and the row's key: about 15 bytes plus the URL) while it waits.
 *
 * A URL is scheduled on its row; one without a row (none of the frontier's paths schedule such a URL, but a
 * caller may) gets a row in state `queued`, which it takes anyway once due. Writing a URL's row (UrlTable
 * `put`) keeps its schedule.
 */
import type { Database } from "bun:sqlite";
import type { Priority, UrlKind } from "../../../core/model/index.ts";
import { scheduledChange, type Change } from "./changes.ts";
import { countOf, kindCode, type Count } from "./sql.ts";
import type { UrlStatus } from "./url-table.ts";

export interface ScheduledUrl {
  dueAt: number;
  url: string;
  host: string;
  partition: number;
  priority: Priority;
  depth: number;
  kind: UrlKind;
  /** The crawl job's number (core/jobs); absent or 0: job `default`. */
  job?: number;
}

interface RawScheduled {
  due_at: number;
  url: string;
  host: string;
  partition: number;
  priority: Priority;
  depth: number;
  kind: UrlKind;
  job: number;
}

const SCHEDULED_COLUMNS =
  "due_at, url, host, partition, due_priority AS priority, depth, CASE due_kind WHEN 1 THEN 'media' ELSE 'page' END AS kind, due_job AS job";

function prepare(db: Database) {
  return {
    put: db.query<
      never,
      [partition: number, url: string, host: string, depth: number, dueAt: number, priority: Priority, kind: 0 | 1, job: number]
    >(
      `INSERT INTO urls (partition, url, host, state, depth, due_at, due_priority, due_kind, due_job) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)
       ON CONFLICT (partition, url) DO UPDATE SET due_at = excluded.due_at, due_priority = excluded.due_priority,
       due_kind = excluded.due_kind, due_job = excluded.due_job`,
    ),
    due: db.query<RawScheduled, [now: number, limit: number]>(
      `SELECT ${SCHEDULED_COLUMNS} FROM urls INDEXED BY urls_due WHERE due_at > 0 AND due_at <= ? ORDER BY due_at LIMIT ?`,
    ),
    remove: db.query<never, [partition: number, url: string]>("UPDATE urls SET due_at = 0 WHERE partition = ? AND url = ? AND due_at > 0"),
    dueAt: db.query<{ due_at: number }, [partition: number, url: string]>(
      "SELECT due_at FROM urls WHERE partition = ? AND url = ? AND due_at > 0",
    ),
    nextDue: db.query<{ t: number | null }, []>("SELECT MIN(due_at) AS t FROM urls INDEXED BY urls_due WHERE due_at > 0"),
    byState: db.query<{ state: string | null; n: number; first: number }, []>(
      "SELECT state, COUNT(*) AS n, MIN(due_at) AS first FROM urls INDEXED BY urls_due WHERE due_at > 0 GROUP BY state",
    ),
    failingByHost: db.query<{ host: string; n: number; first: number; note: string | null }, [limit: number]>(
      `SELECT host, COUNT(*) AS n, MIN(due_at) AS first, MAX(note) AS note FROM urls INDEXED BY urls_due
       WHERE due_at > 0 AND state IN ('retry-wait', 'dead') GROUP BY host ORDER BY n DESC, host LIMIT ?`,
    ),
    count: db.query<Count, []>("SELECT COUNT(*) AS n FROM urls INDEXED BY urls_due WHERE due_at > 0"),
    inPartition: db.query<RawScheduled, [partition: number]>(`SELECT ${SCHEDULED_COLUMNS} FROM urls WHERE partition = ? AND due_at > 0`),
    deletePartition: db.query<never, [partition: number]>("UPDATE urls SET due_at = 0 WHERE partition = ? AND due_at > 0"),
  };
}

export class ScheduleTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  /** Schedules a URL's next visit, replacing any earlier schedule of it (its row's depth and host stay). */
  put(item: ScheduledUrl): void {
    this.s.put.run(item.partition, item.url, item.host, item.depth, item.dueAt, item.priority, kindCode(item.kind), item.job ?? 0);
    this.note(item.partition, scheduledChange(item));
  }

  /** Takes up to `limit` scheduled URLs whose time has come, removing them from the schedule. */
  takeDue(now: number, limit: number): ScheduledUrl[] {
    const rows = this.s.due.all(now, limit).map(toScheduled);
    for (const r of rows) this.remove(r.partition, r.url);
    return rows;
  }

  remove(partition: number, url: string): void {
    this.s.remove.run(partition, url);
    this.note(partition, ["x", url]);
  }

  dueAt(partition: number, url: string): number | undefined {
    return this.s.dueAt.get(partition, url)?.due_at;
  }

  nextDueAt(): number | undefined {
    return this.s.nextDue.get()?.t ?? undefined;
  }

  count(): number {
    return countOf(this.s.count);
  }

  /** Scheduled URLs by the state of their URL, each with how many and the first due. */
  byState(): Array<{ state: UrlStatus | null; count: number; firstDueAt: number }> {
    return this.s.byState.all().map((r) => ({ state: r.state as UrlStatus | null, count: r.n, firstDueAt: r.first }));
  }

  /** The hosts with the most URLs whose fetches failed, with when the first is tried again and a failure note. */
  failingByHost(limit: number): Array<{ host: string; count: number; firstDueAt: number; note: string | null }> {
    return this.s.failingByHost.all(limit).map((r) => ({ host: r.host, count: r.n, firstDueAt: r.first, note: r.note }));
  }

  inPartition(partition: number): ScheduledUrl[] {
    return this.s.inPartition.all(partition).map(toScheduled);
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }
}

function toScheduled(r: RawScheduled): ScheduledUrl {
  const s: ScheduledUrl = {
    dueAt: r.due_at,
    url: r.url,
    host: r.host,
    partition: r.partition,
    priority: r.priority,
    depth: r.depth,
    kind: r.kind,
  };
  if (r.job) s.job = r.job;
  return s;
}

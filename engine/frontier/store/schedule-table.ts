/**
 * The scheduled table of the frontier store: URLs waiting for a retry or a refetch time, moved back into the
 * queue when due. Indexed by due time, so the next due time and the due URLs are one index read; the
 * summaries (by state, failing hosts) join the URL states and read the whole schedule: for a summary, not
 * a hot path.
 *
 * Cost: one WITHOUT ROWID row per URL waiting (its URL, host and a few numbers) plus its `scheduled_due`
 * index entry.
 */
import type { Database } from "bun:sqlite";
import type { Priority, UrlKind } from "../../../core/model/index.ts";
import { scheduledChange, type Change } from "./changes.ts";
import { countOf, KIND_NAME, kindCode, type Count } from "./sql.ts";
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

const SCHEDULED_COLUMNS = `due_at, url, host, partition, priority, depth, ${KIND_NAME}, job`;

function prepare(db: Database) {
  return {
    put: db.query<
      never,
      [partition: number, url: string, host: string, priority: Priority, depth: number, dueAt: number, kind: 0 | 1, job: number]
    >("INSERT OR REPLACE INTO scheduled (partition, url, host, priority, depth, due_at, kind, job) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
    due: db.query<RawScheduled, [now: number, limit: number]>(
      `SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE due_at <= ? ORDER BY due_at LIMIT ?`,
    ),
    remove: db.query<never, [partition: number, url: string]>("DELETE FROM scheduled WHERE partition = ? AND url = ?"),
    dueAt: db.query<{ due_at: number }, [partition: number, url: string]>("SELECT due_at FROM scheduled WHERE partition = ? AND url = ?"),
    nextDue: db.query<{ t: number | null }, []>("SELECT MIN(due_at) AS t FROM scheduled"),
    byState: db.query<{ state: string | null; n: number; first: number }, []>(
      `SELECT u.state AS state, COUNT(*) AS n, MIN(s.due_at) AS first FROM scheduled s
       LEFT JOIN urls u ON u.partition = s.partition AND u.url = s.url GROUP BY u.state`,
    ),
    failingByHost: db.query<{ host: string; n: number; first: number; note: string | null }, [limit: number]>(
      `SELECT s.host AS host, COUNT(*) AS n, MIN(s.due_at) AS first, MAX(u.note) AS note FROM scheduled s
       JOIN urls u ON u.partition = s.partition AND u.url = s.url WHERE u.state IN ('retry-wait', 'dead')
       GROUP BY s.host ORDER BY n DESC, host LIMIT ?`,
    ),
    count: db.query<Count, []>("SELECT COUNT(*) AS n FROM scheduled"),
    inPartition: db.query<RawScheduled, [partition: number]>(`SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE partition = ?`),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM scheduled WHERE partition = ?"),
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

  /** Schedules a URL's next visit, replacing any earlier schedule of it. */
  put(item: ScheduledUrl): void {
    this.s.put.run(item.partition, item.url, item.host, item.priority, item.depth, item.dueAt, kindCode(item.kind), item.job ?? 0);
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

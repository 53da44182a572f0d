/**
 * The sitemaps table of the frontier store: each host's sitemaps to read. A sitemap is offered (by its
 * host's robots.txt, by an index, by a redirect) and waits `pending` until its host's turn; once read it
 * is `read` (any HTTP answer), `failed` (no answer) or `disallowed` (robots.txt forbids it). Offered again
 * later (the next robots.txt fetch, the index read again), it becomes pending again when its `<lastmod>`
 * is newer than its last read or, without one, when it was last read at least `rereadAfterMs` ago; grants
 * offered again are added to the ones it had. Rows are keyed like the queue, by partition first, so a
 * partition moves whole. Every write of a row is noted whole in the store's change journal (an "sm" change),
 * so a partition rebuilt from its replica still has its sitemaps, pending or read.
 *
 * A feed (RSS, Atom) also has a schedule of its own: once read it is due again after its interval (`feed`,
 * adapted by the frontier: halved when it listed something new, doubled when unchanged or answered 304) and
 * is asked with the validators of its last answer. `due_at` indexes only feeds waiting (0 otherwise), so the
 * next due feed is one index read, and a sitemap costs nothing for it.
 *
 * A row carries the crawl job (its number) of the seed, page or feed that first offered it: the task that reads
 * it is that job's, so the URLs it lists are too (0, `default`, stored in no bytes of its own). Offered again
 * while pending, it keeps its job: one read serves both, the entries going to the job that asked first; made
 * pending again by an offer, it is read for that offer's job; a feed's scheduled reread keeps its job.
 *
 * Cost: a row is its URL, host and grants (~100-200 B); a feed adds its validators (~60 B) and 8 B for its
 * due time plus an index entry (~20 B) while it waits.
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export type SitemapState = "pending" | "read" | "failed" | "disallowed";

/** A feed's own reread schedule: its interval and the validators of its last answer, for a conditional GET. */
export interface FeedSchedule {
  /** How long after a read it is read again; 0 before its first read. */
  rereadMs: number;
  etag?: string;
  lastModified?: string;
}

export interface SitemapRow {
  partition: number;
  host: string;
  url: string;
  /** Origins whose robots.txt (or index) vouched for the sitemap: it may list their URLs. */
  grants: string[];
  fromIndex: boolean;
  /** Depth of the page that led to the host; the sitemap's entries are one deeper. */
  depth: number;
  /** Redirect hops taken to reach this sitemap. */
  hops: number;
  state: SitemapState;
  offeredAt: number;
  readAt: number;
  /** A feed's schedule; absent for a sitemap (read only when offered again). */
  feed?: FeedSchedule;
  /** When a feed waiting for its next read is due; 0 or absent: not waiting (pending, or a sitemap). */
  dueAt?: number;
  /** The crawl job whose entries these are (absent: `default`). */
  job?: number;
}

export interface SitemapOffer {
  partition: number;
  host: string;
  url: string;
  grants: readonly string[];
  fromIndex: boolean;
  depth: number;
  hops: number;
  /** The `<lastmod>` an index gave it, epoch ms. */
  lastmod?: number;
  /** A feed: it gets a reread schedule of its own. */
  feed?: boolean;
  /** The job of the seed, page or feed that offered it (absent: `default`). */
  job?: number;
}

interface RawRow {
  partition: number;
  host: string;
  url: string;
  grants: string;
  from_index: number;
  depth: number;
  hops: number;
  state: SitemapState;
  offered_at: number;
  read_at: number;
  feed: string | null;
  due_at: number;
  job: number;
}

const COLUMNS = "partition, host, url, grants, from_index, depth, hops, state, offered_at, read_at, feed, due_at, job";

function prepare(db: Database) {
  return {
    get: db.query<RawRow, [partition: number, host: string, url: string]>(
      `SELECT ${COLUMNS} FROM sitemaps WHERE partition = ? AND host = ? AND url = ?`,
    ),
    put: db.query<
      never,
      [number, string, string, string, number, number, number, SitemapState, number, number, string | null, number, number]
    >(`INSERT OR REPLACE INTO sitemaps (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    dueFeeds: db.query<RawRow, [now: number, limit: number]>(
      `SELECT ${COLUMNS} FROM sitemaps WHERE due_at > 0 AND due_at <= ? ORDER BY due_at LIMIT ?`,
    ),
    nextFeedDue: db.query<{ t: number | null }, []>("SELECT MIN(due_at) AS t FROM sitemaps WHERE due_at > 0"),
    feedCounts: db.query<{ n: number; waiting: number | null }, []>(
      "SELECT COUNT(*) AS n, SUM(due_at > 0) AS waiting FROM sitemaps WHERE feed IS NOT NULL",
    ),
    next: db.query<RawRow, [partition: number, host: string]>(
      `SELECT ${COLUMNS} FROM sitemaps WHERE state = 'pending' AND partition = ? AND host = ? ORDER BY offered_at, url LIMIT 1`,
    ),
    pendingByHost: db.query<{ host: string; n: number }, []>(
      "SELECT host, COUNT(*) AS n FROM sitemaps WHERE state = 'pending' GROUP BY partition, host",
    ),
    pendingByHostIn: db.query<{ host: string; n: number }, [partition: number]>(
      "SELECT host, COUNT(*) AS n FROM sitemaps WHERE state = 'pending' AND partition = ? GROUP BY host",
    ),
    pendingFor: db.query<{ n: number }, [partition: number, host: string]>(
      "SELECT COUNT(*) AS n FROM sitemaps WHERE state = 'pending' AND partition = ? AND host = ?",
    ),
    pendingTotal: db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sitemaps WHERE state = 'pending'"),
    byUrl: db.query<RawRow, [partition: number, url: string]>(`SELECT ${COLUMNS} FROM sitemaps WHERE partition = ? AND url = ?`),
    inPartition: db.query<RawRow, [partition: number]>(`SELECT ${COLUMNS} FROM sitemaps WHERE partition = ?`),
    hostsInPartition: db.query<{ host: string }, [partition: number]>("SELECT DISTINCT host FROM sitemaps WHERE partition = ?"),
    forHost: db.query<RawRow, [partition: number, host: string]>(`SELECT ${COLUMNS} FROM sitemaps WHERE partition = ? AND host = ?`),
    deletePartition: db.query<never, [partition: number]>("DELETE FROM sitemaps WHERE partition = ?"),
  };
}

export class SitemapTable {
  private readonly s: ReturnType<typeof prepare>;

  constructor(
    db: Database,
    /** Notes a write in the store's change journal (a no-op without one). */
    private readonly note: (partition: number, change: Change) => void,
  ) {
    this.s = prepare(db);
  }

  /**
   * Records an offer; returns true when the sitemap is now pending where it was not (new, or to be read
   * again), false when it was already pending or is not due again yet.
   */
  offer(o: SitemapOffer, now: number, rereadAfterMs: number): boolean {
    const raw = this.s.get.get(o.partition, o.host, o.url);
    const feed = o.feed ? { rereadMs: 0 } : undefined;
    if (!raw) {
      const { lastmod: _, feed: __, job: ___, ...fields } = o;
      this.put({
        ...fields,
        grants: [...o.grants],
        state: "pending",
        offeredAt: now,
        readAt: 0,
        ...(feed ? { feed } : {}),
        ...(o.job ? { job: o.job } : {}),
      });
      return true;
    }
    const row = toRow(raw);
    // A sitemap row first offered as a sitemap (a probe that found a feed) becomes a feed when offered as one.
    if (feed && !row.feed) row.feed = feed;
    const grants = [...new Set([...row.grants, ...o.grants])].sort();
    const widened = grants.length !== row.grants.length;
    if (row.state === "pending") {
      if (widened) this.put({ ...row, grants });
      return false;
    }
    const changed = o.lastmod !== undefined ? o.lastmod > row.readAt : now - row.readAt >= rereadAfterMs;
    if (!changed && !widened) return false;
    // Read again for this offer, it is read for the offer's job (a job that ended leaves its sitemaps so).
    const { job: _, ...rest } = row;
    this.put({
      ...rest,
      grants,
      fromIndex: row.fromIndex && o.fromIndex,
      state: "pending",
      offeredAt: now,
      dueAt: 0,
      ...(o.job ? { job: o.job } : {}),
    });
    return true;
  }

  /**
   * Makes feeds whose reread is due pending again, the first due first, at most `limit`; returns them. Each
   * leaves the due index until it is read again.
   */
  takeDueFeeds(now: number, limit: number): SitemapRow[] {
    const rows = this.s.dueFeeds.all(now, limit).map(toRow);
    for (const row of rows) this.put({ ...row, state: "pending", offeredAt: now, dueAt: 0 });
    return rows;
  }

  /** Feeds known, and of them those waiting for their next read (for `crawl stats`: reads every row). */
  feedCounts(): { feeds: number; waiting: number } {
    const r = this.s.feedCounts.get();
    return { feeds: r?.n ?? 0, waiting: r?.waiting ?? 0 };
  }

  /** When the next waiting feed is due; undefined when none waits. */
  nextFeedDueAt(): number | undefined {
    return this.s.nextFeedDue.get()?.t ?? undefined;
  }

  /** The host's next pending sitemap, oldest offer first. */
  next(partition: number, host: string): SitemapRow | undefined {
    const raw = this.s.next.get(partition, host);
    return raw ? toRow(raw) : undefined;
  }

  /**
   * Marks a sitemap read, failed or disallowed. A feed given its next `schedule` waits in the due index for
   * `schedule.rereadMs`; one finished without (disallowed by robots.txt, its job ended) is read only when
   * offered again. `unread`: set aside without a request (its job ended), so its last read time stays.
   */
  finish(
    row: Pick<SitemapRow, "partition" | "host" | "url">,
    state: Exclude<SitemapState, "pending">,
    now: number,
    schedule?: FeedSchedule,
    unread = false,
  ): void {
    const raw = this.s.get.get(row.partition, row.host, row.url);
    if (!raw) return;
    const current = toRow(raw);
    const feed = schedule ?? current.feed;
    const readAt = unread ? current.readAt : now;
    this.put({ ...current, state, readAt, ...(feed ? { feed } : {}), dueAt: schedule ? now + schedule.rereadMs : 0 });
  }

  /** Pending sitemaps by host, for every partition or one. */
  pendingByHost(partition?: number): Map<string, number> {
    const rows = partition === undefined ? this.s.pendingByHost.all() : this.s.pendingByHostIn.all(partition);
    return new Map(rows.map((r) => [r.host, r.n]));
  }

  pendingFor(partition: number, host: string): number {
    return this.s.pendingFor.get(partition, host)?.n ?? 0;
  }

  pendingTotal(): number {
    return this.s.pendingTotal.get()?.n ?? 0;
  }

  /** The row of a sitemap URL, whatever its host key's spelling (for `url explain`). */
  byUrl(partition: number, url: string): SitemapRow | undefined {
    const raw = this.s.byUrl.get(partition, url);
    return raw ? toRow(raw) : undefined;
  }

  // ---- partition handoff --------------------------------------------------------------------------

  hostsInPartition(partition: number): string[] {
    return this.s.hostsInPartition.all(partition).map((r) => r.host);
  }

  forHost(partition: number, host: string): SitemapRow[] {
    return this.s.forHost.all(partition, host).map(toRow);
  }

  /** Writes rows received from another node (handoff, snapshot, replay); the same row twice is harmless. */
  import(rows: readonly SitemapRow[]): void {
    for (const row of rows) this.put(row);
  }

  deletePartition(partition: number): void {
    this.s.deletePartition.run(partition);
  }

  private put(r: SitemapRow): void {
    this.s.put.run(
      r.partition,
      r.host,
      r.url,
      JSON.stringify(r.grants),
      r.fromIndex ? 1 : 0,
      r.depth,
      r.hops,
      r.state,
      r.offeredAt,
      r.readAt,
      r.feed ? JSON.stringify(r.feed) : null,
      r.dueAt ?? 0,
      r.job ?? 0,
    );
    this.note(r.partition, sitemapRowChange(r));
  }
}

/** A sitemap row as a journal change (its partition is the batch's). */
export function sitemapRowChange(r: SitemapRow): Change {
  const c: Change = ["sm", r.host, r.url, [...r.grants], r.fromIndex ? 1 : 0, r.depth, r.hops, r.state, r.offeredAt, r.readAt];
  // A feed's schedule rides at the end, then a job other than default (a sitemap's without schedule: null, 0);
  // a row of job default keeps the shape of journals written before feeds and jobs had one.
  if (r.job) return [...c, r.feed ? JSON.stringify(r.feed) : null, r.dueAt ?? 0, r.job];
  return r.feed ? [...c, JSON.stringify(r.feed), r.dueAt ?? 0] : c;
}

/** A feed's schedule as stored (JSON); throws when it is not one. */
export function parseFeedSchedule(json: string): FeedSchedule {
  const v = JSON.parse(json) as FeedSchedule;
  if (typeof v !== "object" || v === null || typeof v.rereadMs !== "number" || !Number.isFinite(v.rereadMs)) {
    throw new Error("sitemaps: a feed schedule lacks its interval");
  }
  return {
    rereadMs: v.rereadMs,
    ...(typeof v.etag === "string" ? { etag: v.etag } : {}),
    ...(typeof v.lastModified === "string" ? { lastModified: v.lastModified } : {}),
  };
}

function toRow(r: RawRow): SitemapRow {
  return {
    partition: r.partition,
    host: r.host,
    url: r.url,
    grants: JSON.parse(r.grants) as string[],
    fromIndex: r.from_index === 1,
    depth: r.depth,
    hops: r.hops,
    state: r.state,
    offeredAt: r.offered_at,
    readAt: r.read_at,
    ...(r.feed ? { feed: parseFeedSchedule(r.feed) } : {}),
    ...(r.due_at > 0 ? { dueAt: r.due_at } : {}),
    ...(r.job > 0 ? { job: r.job } : {}),
  };
}

/** A host's sitemap rows as another node sent them (handoff); throws when the JSON is not such rows. */
export function parseSitemapRows(json: string): SitemapRow[] {
  const rows = JSON.parse(json) as unknown;
  if (!Array.isArray(rows)) throw new Error("sitemaps: not a list");
  for (const r of rows as SitemapRow[]) {
    if (typeof r?.url !== "string" || typeof r.host !== "string" || !Array.isArray(r.grants) || typeof r.state !== "string") {
      throw new Error("sitemaps: a row lacks url, host, grants or state");
    }
    if (r.feed !== undefined) r.feed = parseFeedSchedule(JSON.stringify(r.feed));
    if (r.job !== undefined && (!Number.isInteger(r.job) || r.job < 0)) throw new Error("sitemaps: a row's job is not a job number");
  }
  return rows as SitemapRow[];
}

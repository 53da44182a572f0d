/**
 * The sitemaps table of the frontier store: each host's sitemaps to read. A sitemap is offered (by its
 * host's robots.txt, by an index, by a redirect) and waits `pending` until its host's turn; once read it
 * is `read` (any HTTP answer), `failed` (no answer) or `disallowed` (robots.txt forbids it). Offered again
 * later (the next robots.txt fetch, the index read again), it becomes pending again when its `<lastmod>`
 * is newer than its last read or, without one, when it was last read at least `rereadAfterMs` ago; grants
 * offered again are added to the ones it had. Rows are keyed like the queue, by partition first, so a
 * partition moves whole. Every write of a row is noted whole in the store's change journal (an "sm" change),
 * so a partition rebuilt from its replica still has its sitemaps, pending or read.
 */
import type { Database } from "bun:sqlite";
import type { Change } from "./changes.ts";

export type SitemapState = "pending" | "read" | "failed" | "disallowed";

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
}

const COLUMNS = "partition, host, url, grants, from_index, depth, hops, state, offered_at, read_at";

function prepare(db: Database) {
  return {
    get: db.query<RawRow, [partition: number, host: string, url: string]>(
      `SELECT ${COLUMNS} FROM sitemaps WHERE partition = ? AND host = ? AND url = ?`,
    ),
    put: db.query<never, [number, string, string, string, number, number, number, SitemapState, number, number]>(
      `INSERT OR REPLACE INTO sitemaps (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    if (!raw) {
      this.put({ ...o, grants: [...o.grants], state: "pending", offeredAt: now, readAt: 0 });
      return true;
    }
    const row = toRow(raw);
    const grants = [...new Set([...row.grants, ...o.grants])].sort();
    const widened = grants.length !== row.grants.length;
    if (row.state === "pending") {
      if (widened) this.put({ ...row, grants });
      return false;
    }
    const changed = o.lastmod !== undefined ? o.lastmod > row.readAt : now - row.readAt >= rereadAfterMs;
    if (!changed && !widened) return false;
    this.put({ ...row, grants, fromIndex: row.fromIndex && o.fromIndex, state: "pending", offeredAt: now });
    return true;
  }

  /** The host's next pending sitemap, oldest offer first. */
  next(partition: number, host: string): SitemapRow | undefined {
    const raw = this.s.next.get(partition, host);
    return raw ? toRow(raw) : undefined;
  }

  finish(row: Pick<SitemapRow, "partition" | "host" | "url">, state: Exclude<SitemapState, "pending">, now: number): void {
    const raw = this.s.get.get(row.partition, row.host, row.url);
    if (!raw) return;
    this.put({ ...toRow(raw), state, readAt: now });
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
    );
    this.note(r.partition, sitemapRowChange(r));
  }
}

/** A sitemap row as a journal change (its partition is the batch's). */
export function sitemapRowChange(r: SitemapRow): Change {
  return ["sm", r.host, r.url, [...r.grants], r.fromIndex ? 1 : 0, r.depth, r.hops, r.state, r.offeredAt, r.readAt];
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
  }
  return rows as SitemapRow[];
}

/**
 * FrontierStore: the frontier's durable state in one SQLite file (bun:sqlite, WAL, synchronous=NORMAL, so a
 * killed process loses nothing committed and an OS crash at most the last moments). It answers the questions
 * the frontier asks (what is the head of this host's queue, is this URL known, what is due) with prepared
 * statements, and groups the writes of one fetch result in one transaction via `tx`.
 */
import { Database, type Statement } from "bun:sqlite";
import type { Priority } from "../../../core/model/index.ts";
import { SCHEMA, SCHEMA_VERSION } from "./schema.ts";

export interface QueuedUrl {
  host: string;
  partition: number;
  priority: Priority;
  seq: number;
  url: string;
  depth: number;
  hops: number;
}

/** Fetch state of one URL. `state` is one of the UrlStatus values. */
export interface UrlRow {
  id: number;
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

export interface StoredRobots {
  verdict: "allow-all" | "disallow-all" | "parse";
  body?: string;
  fetchedAt: number;
  expiresAt: number;
}

export interface ScheduledUrl {
  dueAt: number;
  url: string;
  host: string;
  partition: number;
  priority: Priority;
  depth: number;
}

interface RawUrlRow {
  id: number;
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
}

export class FrontierStore {
  private readonly db: Database;
  private nextSeq: number;
  private readonly s: Record<string, Statement>;

  private constructor(db: Database) {
    this.db = db;
    const q = (sql: string) => db.query(sql);
    this.s = {
      head: q("SELECT host, partition, priority, seq, url, depth, hops FROM queue WHERE host = ? ORDER BY priority, seq LIMIT 1"),
      enqueue: q("INSERT OR IGNORE INTO queue (host, partition, priority, seq, url, depth, hops) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      dequeue: q("DELETE FROM queue WHERE host = ? AND priority = ? AND seq = ?"),
      hostCounts: q("SELECT host, COUNT(*) AS n FROM queue GROUP BY host"),
      hostCountsIn: q("SELECT host, COUNT(*) AS n FROM queue WHERE partition = ? GROUP BY host"),
      queuedInPartition: q("SELECT host, partition, priority, seq, url, depth, hops FROM queue WHERE partition = ? AND (host, priority, seq) > (?, ?, ?) ORDER BY host, priority, seq LIMIT ?"),
      urlsInPartition: q("SELECT * FROM urls WHERE partition = ? AND id > ? ORDER BY id LIMIT ?"),
      scheduledInPartition: q("SELECT due_at, url, host, partition, priority, depth FROM scheduled WHERE partition = ?"),
      hostsInPartition: q("SELECT host, state FROM hosts WHERE partition = ?"),
      robotsInPartition: q("SELECT host, verdict, body, fetched_at, expires_at FROM robots WHERE partition = ?"),
      deleteQueuePartition: q("DELETE FROM queue WHERE partition = ?"),
      deleteUrlsPartition: q("DELETE FROM urls WHERE partition = ?"),
      deleteScheduledPartition: q("DELETE FROM scheduled WHERE partition = ?"),
      deleteHostsPartition: q("DELETE FROM hosts WHERE partition = ?"),
      deleteRobotsPartition: q("DELETE FROM robots WHERE partition = ?"),
      importUrl: q(
        `INSERT OR REPLACE INTO urls (url, host, partition, state, depth, failures, last_status, last_fetched_at, refetch_ms, etag,
         last_modified, fingerprint, simhash, changed_last_visit, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      totalQueued: q("SELECT COUNT(*) AS n FROM queue"),
      dropLowest: q(
        "DELETE FROM queue WHERE (host, priority, seq) IN (SELECT host, priority, seq FROM queue ORDER BY priority DESC, seq DESC LIMIT ?) RETURNING host, url",
      ),
      getUrl: q("SELECT * FROM urls WHERE url = ?"),
      hasUrl: q("SELECT 1 AS x FROM urls WHERE url = ?"),
      insertUrl: q("INSERT OR IGNORE INTO urls (url, host, partition, state, depth) VALUES (?, ?, ?, 'queued', ?)"),
      setUrlState: q("UPDATE urls SET state = ?, note = ? WHERE url = ?"),
      recordFetch: q(
        `UPDATE urls SET state = ?, failures = ?, last_status = ?, last_fetched_at = ?, refetch_ms = ?, etag = ?,
         last_modified = ?, fingerprint = ?, simhash = ?, changed_last_visit = ?, note = ? WHERE url = ?`,
      ),
      urlsSince: q("SELECT id, url FROM urls WHERE id > ? ORDER BY id LIMIT ?"),
      maxUrlId: q("SELECT COALESCE(MAX(id), 0) AS n FROM urls"),
      urlCount: q("SELECT COUNT(*) AS n FROM urls"),
      stateCounts: q("SELECT state, COUNT(*) AS n FROM urls GROUP BY state"),
      schedule: q("INSERT OR REPLACE INTO scheduled (due_at, url, host, partition, priority, depth) VALUES (?, ?, ?, ?, ?, ?)"),
      unscheduleUrl: q("DELETE FROM scheduled WHERE url = ?"),
      due: q("SELECT due_at, url, host, partition, priority, depth FROM scheduled WHERE due_at <= ? ORDER BY due_at LIMIT ?"),
      deleteScheduled: q("DELETE FROM scheduled WHERE due_at = ? AND url = ?"),
      scheduledAt: q("SELECT due_at FROM scheduled WHERE url = ?"),
      nextDue: q("SELECT MIN(due_at) AS t FROM scheduled"),
      scheduledCount: q("SELECT COUNT(*) AS n FROM scheduled"),
      loadHost: q("SELECT state FROM hosts WHERE host = ?"),
      saveHost: q("INSERT OR REPLACE INTO hosts (host, partition, state) VALUES (?, ?, ?)"),
      allHosts: q("SELECT host, state FROM hosts"),
      loadRobots: q("SELECT verdict, body, fetched_at, expires_at FROM robots WHERE host = ?"),
      saveRobots: q("INSERT OR REPLACE INTO robots (host, partition, verdict, body, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)"),
      getMeta: q("SELECT value FROM meta WHERE key = ?"),
      setMeta: q("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
      maxSeq: q("SELECT COALESCE(MAX(seq), 0) AS n FROM queue"),
    };
    const savedSeq = Number(this.getMeta("seq") ?? 0);
    const queuedSeq = (this.s.maxSeq!.get() as { n: number }).n;
    this.nextSeq = Math.max(savedSeq, queuedSeq) + 1;
  }

  /** Opens (creating when needed) the store at `path`; `:memory:` gives a throwaway store for tests. */
  static open(path: string): FrontierStore {
    const db = new Database(path, { create: true });
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA cache_size = -65536");
    db.exec(SCHEMA);
    const version = db.query("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | null;
    if (version && Number(version.value) !== SCHEMA_VERSION) {
      db.close();
      throw new Error(`frontier store ${path} has schema ${version.value}; this build reads ${SCHEMA_VERSION}`);
    }
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
    return new FrontierStore(db);
  }

  /** Runs `fn` in one transaction: all of its writes commit together or not at all. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  head(host: string): QueuedUrl | undefined {
    return (this.s.head!.get(host) as QueuedUrl | null) ?? undefined;
  }

  /**
   * Appends a URL to its host's queue behind others of the same priority; returns its sequence number, or
   * undefined when the URL is already queued (a URL is queued at most once).
   */
  enqueue(item: Omit<QueuedUrl, "seq">): number | undefined {
    const seq = this.nextSeq++;
    const changes = this.s.enqueue!.run(item.host, item.partition, item.priority, seq, item.url, item.depth, item.hops).changes;
    return changes > 0 ? seq : undefined;
  }

  dequeue(item: Pick<QueuedUrl, "host" | "priority" | "seq">): void {
    this.s.dequeue!.run(item.host, item.priority, item.seq);
  }

  /** Queued URL counts by host, for every partition or for one. */
  queuedByHost(partition?: number): Map<string, number> {
    const out = new Map<string, number>();
    const rows = partition === undefined ? this.s.hostCounts!.all() : this.s.hostCountsIn!.all(partition);
    for (const row of rows as { host: string; n: number }[]) out.set(row.host, row.n);
    return out;
  }

  totalQueued(): number {
    return (this.s.totalQueued!.get() as { n: number }).n;
  }

  /** Removes the `n` lowest-priority, most recently queued URLs (the size limit); returns what was dropped. */
  dropLowestPriority(n: number): { host: string; url: string }[] {
    const dropped = this.s.dropLowest!.all(n) as { host: string; url: string }[];
    for (const d of dropped) this.s.setUrlState!.run("dropped", "frontier size limit", d.url);
    return dropped;
  }

  getUrl(url: string): UrlRow | undefined {
    const raw = this.s.getUrl!.get(url) as RawUrlRow | null;
    return raw ? toUrlRow(raw) : undefined;
  }

  hasUrl(url: string): boolean {
    return this.s.hasUrl!.get(url) !== null;
  }

  /** Records a URL as admitted; false when it was already known (the exact seen check). */
  insertUrl(url: string, host: string, partition: number, depth: number): boolean {
    return this.s.insertUrl!.run(url, host, partition, depth).changes > 0;
  }

  setUrlState(url: string, state: UrlStatus, note?: string): void {
    this.s.setUrlState!.run(state, note ?? null, url);
  }

  recordFetch(row: Omit<UrlRow, "id" | "host" | "depth">): void {
    this.s.recordFetch!.run(
      row.state,
      row.failures,
      row.lastStatus,
      row.lastFetchedAt,
      row.refetchMs,
      row.etag,
      row.lastModified,
      row.fingerprint,
      row.simhash,
      row.changedLastVisit ? 1 : 0,
      row.note,
      row.url,
    );
  }

  /** URLs admitted after `afterId`, in order: replayed into the Bloom filter after an unclean stop. */
  urlsSince(afterId: number, limit: number): { id: number; url: string }[] {
    return this.s.urlsSince!.all(afterId, limit) as { id: number; url: string }[];
  }

  maxUrlId(): number {
    return (this.s.maxUrlId!.get() as { n: number }).n;
  }

  urlCount(): number {
    return (this.s.urlCount!.get() as { n: number }).n;
  }

  urlStateCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const row of this.s.stateCounts!.all() as { state: string; n: number }[]) out[row.state] = row.n;
    return out;
  }

  schedule(item: ScheduledUrl): void {
    this.s.unscheduleUrl!.run(item.url);
    this.s.schedule!.run(item.dueAt, item.url, item.host, item.partition, item.priority, item.depth);
  }

  /** Takes up to `limit` scheduled URLs whose time has come, removing them from the schedule. */
  takeDue(now: number, limit: number): ScheduledUrl[] {
    const rows = this.s.due!.all(now, limit) as RawScheduled[];
    for (const r of rows) this.s.deleteScheduled!.run(r.due_at, r.url);
    return rows.map(toScheduled);
  }

  scheduledAt(url: string): number | undefined {
    const row = this.s.scheduledAt!.get(url) as { due_at: number } | null;
    return row?.due_at;
  }

  nextDueAt(): number | undefined {
    const row = this.s.nextDue!.get() as { t: number | null };
    return row.t ?? undefined;
  }

  scheduledCount(): number {
    return (this.s.scheduledCount!.get() as { n: number }).n;
  }

  loadHost<T>(host: string): T | undefined {
    const row = this.s.loadHost!.get(host) as { state: string } | null;
    return row ? (JSON.parse(row.state) as T) : undefined;
  }

  saveHost(host: string, partition: number, state: unknown): void {
    this.s.saveHost!.run(host, partition, JSON.stringify(state));
  }

  allHosts<T>(): Array<[string, T]> {
    return (this.s.allHosts!.all() as { host: string; state: string }[]).map((r) => [r.host, JSON.parse(r.state) as T]);
  }

  loadRobots(host: string): StoredRobots | undefined {
    const row = this.s.loadRobots!.get(host) as { verdict: StoredRobots["verdict"]; body: string | null; fetched_at: number; expires_at: number } | null;
    if (!row) return undefined;
    return { verdict: row.verdict, body: row.body ?? undefined, fetchedAt: row.fetched_at, expiresAt: row.expires_at };
  }

  saveRobots(host: string, partition: number, robots: StoredRobots): void {
    this.s.saveRobots!.run(host, partition, robots.verdict, robots.body ?? null, robots.fetchedAt, robots.expiresAt);
  }

  // ---- partition handoff --------------------------------------------------------------------------

  /** A page of a partition's queue, in key order after `after` (undefined: from the start). */
  queuedInPartition(partition: number, after: Pick<QueuedUrl, "host" | "priority" | "seq"> | undefined, limit: number): QueuedUrl[] {
    const a = after ?? { host: "", priority: 0, seq: 0 };
    return this.s.queuedInPartition!.all(partition, a.host, a.priority, a.seq, limit) as QueuedUrl[];
  }

  /** A page of a partition's URL states, by id after `afterId`. */
  urlsInPartition(partition: number, afterId: number, limit: number): UrlRow[] {
    return (this.s.urlsInPartition!.all(partition, afterId, limit) as RawUrlRow[]).map(toUrlRow);
  }

  scheduledInPartition(partition: number): ScheduledUrl[] {
    return (this.s.scheduledInPartition!.all(partition) as RawScheduled[]).map(toScheduled);
  }

  hostsInPartition(partition: number): Array<{ host: string; state: string; robots?: StoredRobots }> {
    const robots = new Map<string, StoredRobots>();
    for (const r of this.s.robotsInPartition!.all(partition) as Array<{ host: string; verdict: StoredRobots["verdict"]; body: string | null; fetched_at: number; expires_at: number }>) {
      robots.set(r.host, { verdict: r.verdict, body: r.body ?? undefined, fetchedAt: r.fetched_at, expiresAt: r.expires_at });
    }
    const out = (this.s.hostsInPartition!.all(partition) as Array<{ host: string; state: string }>).map((h) => ({ ...h, robots: robots.get(h.host) }));
    for (const [host, r] of robots) if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: r });
    return out;
  }

  /** Writes a URL's full state as received from another node (handoff). */
  importUrl(row: Omit<UrlRow, "id"> & { partition: number }): void {
    this.s.importUrl!.run(
      row.url, row.host, row.partition, row.state, row.depth, row.failures, row.lastStatus, row.lastFetchedAt, row.refetchMs,
      row.etag, row.lastModified, row.fingerprint, row.simhash, row.changedLastVisit ? 1 : 0, row.note,
    );
  }

  /** Removes everything of a partition (after it was handed to its new owner). */
  deletePartition(partition: number): void {
    this.s.deleteQueuePartition!.run(partition);
    this.s.deleteUrlsPartition!.run(partition);
    this.s.deleteScheduledPartition!.run(partition);
    this.s.deleteHostsPartition!.run(partition);
    this.s.deleteRobotsPartition!.run(partition);
  }

  getMeta(key: string): string | undefined {
    const row = this.s.getMeta!.get(key) as { value: string } | null;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.s.setMeta!.run(key, value);
  }

  /** Saves the sequence counter; called inside the transactions that enqueue. */
  saveSeq(): void {
    this.setMeta("seq", String(this.nextSeq));
  }

  close(): void {
    this.saveSeq();
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}

interface RawScheduled {
  due_at: number;
  url: string;
  host: string;
  partition: number;
  priority: Priority;
  depth: number;
}

function toScheduled(r: RawScheduled): ScheduledUrl {
  return { dueAt: r.due_at, url: r.url, host: r.host, partition: r.partition, priority: r.priority, depth: r.depth };
}

function toUrlRow(r: RawUrlRow): UrlRow {
  return {
    id: r.id,
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
  };
}

/**
 * FrontierStore: the frontier's durable state in one SQLite file (bun:sqlite, WAL, synchronous=NORMAL, so a
 * killed process loses nothing committed and an OS crash at most the last moments). It answers the questions
 * the frontier asks (what is the head of this host's queue, is this URL known, what is due) with prepared
 * statements, and groups the writes of fetch results in one transaction via `tx`. Every key starts with the
 * host's partition (see schema.ts), so callers pass it along with the URL or host.
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
export interface UrlKey {
  partition: number;
  host: string;
  url: string;
}

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

export interface FrontierStoreOptions {
  /**
   * Log admitted URLs in `recent_urls` until the next seen-set snapshot (embedded mode, whose Bloom filter
   * lives in a file). A cluster's seen-set is in Redis and needs no replay.
   */
  recentLog?: boolean;
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
}

interface RawScheduled {
  due_at: number;
  url: string;
  host: string;
  partition: number;
  priority: Priority;
  depth: number;
}

const QUEUE_COLUMNS = "host, partition, priority, seq, url, depth, hops";
const SCHEDULED_COLUMNS = "due_at, url, host, partition, priority, depth";

export class FrontierStore {
  private readonly db: Database;
  private nextSeq: number;
  private readonly recentLog: boolean;
  private readonly s: Record<string, Statement>;

  private constructor(db: Database, options: FrontierStoreOptions) {
    this.db = db;
    this.recentLog = options.recentLog ?? false;
    const q = (sql: string) => db.query(sql);
    this.s = {
      head: q(`SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND host = ? ORDER BY priority, seq LIMIT 1`),
      enqueue: q("INSERT OR IGNORE INTO queue (partition, host, priority, seq, url, depth, hops) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      dequeue: q("DELETE FROM queue WHERE partition = ? AND host = ? AND priority = ? AND seq = ?"),
      queuedUrl: q("SELECT 1 AS x FROM queue WHERE partition = ? AND host = ? AND url = ? LIMIT 1"),
      hostCounts: q("SELECT host, COUNT(*) AS n FROM queue GROUP BY partition, host"),
      hostCountsIn: q("SELECT host, COUNT(*) AS n FROM queue WHERE partition = ? GROUP BY host"),
      hostCount: q("SELECT COUNT(*) AS n FROM queue WHERE partition = ? AND host = ?"),
      totalQueued: q("SELECT COUNT(*) AS n FROM queue"),
      dropLowest: q(
        `DELETE FROM queue WHERE (priority, seq) IN (SELECT priority, seq FROM queue ORDER BY priority DESC, seq DESC LIMIT ?)
         RETURNING partition, host, url, depth`,
      ),
      maxSeq: q("SELECT COALESCE(MAX(seq), 0) AS n FROM queue"),
      getUrl: q("SELECT * FROM urls WHERE partition = ? AND url = ?"),
      hasUrl: q("SELECT 1 AS x FROM urls WHERE partition = ? AND url = ?"),
      logRecent: q("INSERT INTO recent_urls (url) VALUES (?)"),
      setUrlState: q(
        `INSERT INTO urls (partition, url, host, state, depth, note) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (partition, url) DO UPDATE SET state = excluded.state, note = excluded.note`,
      ),
      importUrl: q(
        `INSERT OR REPLACE INTO urls (partition, url, host, state, depth, failures, last_status, last_fetched_at, refetch_ms, etag,
         last_modified, fingerprint, simhash, changed_last_visit, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      recentSince: q("SELECT id, url FROM recent_urls WHERE id > ? ORDER BY id LIMIT ?"),
      maxRecentId: q("SELECT COALESCE(MAX(id), 0) AS n FROM recent_urls"),
      trimRecent: q("DELETE FROM recent_urls WHERE id <= ?"),
      urlCount: q("SELECT COUNT(*) AS n FROM urls"),
      stateCounts: q("SELECT state, COUNT(*) AS n FROM urls GROUP BY state"),
      schedule: q("INSERT OR REPLACE INTO scheduled (partition, url, host, priority, depth, due_at) VALUES (?, ?, ?, ?, ?, ?)"),
      due: q(`SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE due_at <= ? ORDER BY due_at LIMIT ?`),
      unschedule: q("DELETE FROM scheduled WHERE partition = ? AND url = ?"),
      scheduledAt: q("SELECT due_at FROM scheduled WHERE partition = ? AND url = ?"),
      nextDue: q("SELECT MIN(due_at) AS t FROM scheduled"),
      scheduledCount: q("SELECT COUNT(*) AS n FROM scheduled"),
      loadHost: q("SELECT state FROM hosts WHERE host = ?"),
      saveHost: q("INSERT OR REPLACE INTO hosts (host, partition, state) VALUES (?, ?, ?)"),
      loadRobots: q("SELECT verdict, body, fetched_at, expires_at FROM robots WHERE host = ?"),
      saveRobots: q("INSERT OR REPLACE INTO robots (host, partition, verdict, body, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)"),
      queuedInPartition: q(
        `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND (host, priority, seq) > (?, ?, ?) ORDER BY host, priority, seq LIMIT ?`,
      ),
      urlsInPartition: q("SELECT * FROM urls WHERE partition = ? AND url > ? ORDER BY url LIMIT ?"),
      scheduledInPartition: q(`SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE partition = ?`),
      hostsInPartition: q("SELECT host, state FROM hosts WHERE partition = ?"),
      robotsInPartition: q("SELECT host, verdict, body, fetched_at, expires_at FROM robots WHERE partition = ?"),
      deleteQueuePartition: q("DELETE FROM queue WHERE partition = ?"),
      deleteUrlsPartition: q("DELETE FROM urls WHERE partition = ?"),
      deleteScheduledPartition: q("DELETE FROM scheduled WHERE partition = ?"),
      deleteHostsPartition: q("DELETE FROM hosts WHERE partition = ?"),
      deleteRobotsPartition: q("DELETE FROM robots WHERE partition = ?"),
      getMeta: q("SELECT value FROM meta WHERE key = ?"),
      setMeta: q("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
    };
    const savedSeq = Number(this.getMeta("seq") ?? 0);
    const queuedSeq = (this.s.maxSeq!.get() as { n: number }).n;
    this.nextSeq = Math.max(savedSeq, queuedSeq) + 1;
  }

  /** Opens (creating when needed) the store at `path`; `:memory:` gives a throwaway store for tests. */
  static open(path: string, options: FrontierStoreOptions = {}): FrontierStore {
    const db = new Database(path, { create: true });
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA cache_size = -131072");
    // Checkpoints copy WAL pages into the database and sync it; a busy frontier rewrites the same hot pages
    // (host queues, URL rows) many times between checkpoints, so checkpointing every 64 MiB instead of
    // every 4 MiB writes each of them once instead of many times.
    db.exec("PRAGMA wal_autocheckpoint = 16384");
    const version = storedVersion(db);
    if (version !== undefined && version !== SCHEMA_VERSION) {
      db.close();
      throw new Error(`frontier store ${path} has schema version ${version}; this build reads ${SCHEMA_VERSION}: use a new directory`);
    }
    db.exec(SCHEMA);
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
    return new FrontierStore(db, options);
  }

  /** Runs `fn` in one transaction: all of its writes commit together or not at all. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // ---- queue --------------------------------------------------------------------------------------

  head(partition: number, host: string): QueuedUrl | undefined {
    return (this.s.head!.get(partition, host) as QueuedUrl | null) ?? undefined;
  }

  /**
   * Appends a URL to its host's queue behind others of the same priority; returns its sequence number, or
   * undefined when it was not added.
   */
  enqueue(item: Omit<QueuedUrl, "seq">): number | undefined {
    const seq = this.nextSeq++;
    const changes = this.s.enqueue!.run(item.partition, item.host, item.priority, seq, item.url, item.depth, item.hops).changes;
    return changes > 0 ? seq : undefined;
  }

  dequeue(item: Pick<QueuedUrl, "partition" | "host" | "priority" | "seq">): void {
    this.s.dequeue!.run(item.partition, item.host, item.priority, item.seq);
  }

  /** Whether a URL is in its host's queue (scans that host's queue: for handoff imports, not hot paths). */
  isQueued(partition: number, host: string, url: string): boolean {
    return this.s.queuedUrl!.get(partition, host, url) !== null;
  }

  /** Queued URL counts by host, for every partition or for one. */
  queuedByHost(partition?: number): Map<string, number> {
    const out = new Map<string, number>();
    const rows = partition === undefined ? this.s.hostCounts!.all() : this.s.hostCountsIn!.all(partition);
    for (const row of rows as { host: string; n: number }[]) out.set(row.host, row.n);
    return out;
  }

  queuedForHost(partition: number, host: string): number {
    return (this.s.hostCount!.get(partition, host) as { n: number }).n;
  }

  totalQueued(): number {
    return (this.s.totalQueued!.get() as { n: number }).n;
  }

  /** Removes the `n` lowest-priority, most recently queued URLs (the size limit); returns what was dropped. */
  dropLowestPriority(n: number): { partition: number; host: string; url: string }[] {
    const dropped = this.s.dropLowest!.all(n) as Array<UrlKey & { depth: number }>;
    for (const d of dropped) this.setUrlState(d, "dropped", "frontier size limit");
    return dropped;
  }

  // ---- URL state ----------------------------------------------------------------------------------

  getUrl(partition: number, url: string): UrlRow | undefined {
    const raw = this.s.getUrl!.get(partition, url) as RawUrlRow | null;
    return raw ? toUrlRow(raw) : undefined;
  }

  /**
   * Whether a URL was ever admitted: it has a state row (fetched, or finished without a page), or it waits in
   * its host's queue. The exact check behind a Bloom "maybe"; a queued URL has no state row until its first
   * result, which saves a second random B-tree insert for each of the many URLs admitted and not yet fetched.
   */
  isKnown(partition: number, host: string, url: string): boolean {
    return this.s.hasUrl!.get(partition, url) !== null || this.isQueued(partition, host, url);
  }

  /** Notes an admission in the recent log (embedded mode's seen-set replay), when the store keeps one. */
  logAdmitted(url: string): void {
    if (this.recentLog) this.s.logRecent!.run(url);
  }

  /** Sets a URL's state (creating its row when it has none yet). */
  setUrlState(key: UrlKey & { depth: number }, state: UrlStatus, note?: string): void {
    this.s.setUrlState!.run(key.partition, key.url, key.host, state, key.depth, note ?? null);
  }

  /** Writes a URL's whole state after a fetch (creating its row on its first result). */
  recordFetch(row: UrlRow): void {
    this.importUrl(row);
  }

  /** URLs admitted after `afterId` (recent log), in order: replayed into the Bloom filter after an unclean stop. */
  urlsSince(afterId: number, limit: number): { id: number; url: string }[] {
    return this.s.recentSince!.all(afterId, limit) as { id: number; url: string }[];
  }

  /** The id of the newest logged admission (0 when none); a seen-set snapshot records it. */
  maxUrlId(): number {
    return (this.s.maxRecentId!.get() as { n: number }).n;
  }

  /** Forgets logged admissions up to `id`, which a seen-set snapshot now covers. */
  trimRecent(id: number): void {
    this.s.trimRecent!.run(id);
  }

  urlCount(): number {
    return (this.s.urlCount!.get() as { n: number }).n;
  }

  urlStateCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const row of this.s.stateCounts!.all() as { state: string; n: number }[]) out[row.state] = row.n;
    return out;
  }

  // ---- schedule -----------------------------------------------------------------------------------

  /** Schedules a URL's next visit, replacing any earlier schedule of it. */
  schedule(item: ScheduledUrl): void {
    this.s.schedule!.run(item.partition, item.url, item.host, item.priority, item.depth, item.dueAt);
  }

  /** Takes up to `limit` scheduled URLs whose time has come, removing them from the schedule. */
  takeDue(now: number, limit: number): ScheduledUrl[] {
    const rows = (this.s.due!.all(now, limit) as RawScheduled[]).map(toScheduled);
    for (const r of rows) this.s.unschedule!.run(r.partition, r.url);
    return rows;
  }

  scheduledAt(partition: number, url: string): number | undefined {
    const row = this.s.scheduledAt!.get(partition, url) as { due_at: number } | null;
    return row?.due_at;
  }

  nextDueAt(): number | undefined {
    const row = this.s.nextDue!.get() as { t: number | null };
    return row.t ?? undefined;
  }

  scheduledCount(): number {
    return (this.s.scheduledCount!.get() as { n: number }).n;
  }

  // ---- hosts and robots.txt -----------------------------------------------------------------------

  loadHost<T>(host: string): T | undefined {
    const row = this.s.loadHost!.get(host) as { state: string } | null;
    return row ? (JSON.parse(row.state) as T) : undefined;
  }

  saveHost(host: string, partition: number, state: unknown): void {
    this.s.saveHost!.run(host, partition, JSON.stringify(state));
  }

  loadRobots(host: string): StoredRobots | undefined {
    const row = this.s.loadRobots!.get(host) as RawRobots | null;
    return row ? toRobots(row) : undefined;
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

  /** A page of a partition's URL states, in URL order after `afterUrl` ("" from the start). */
  urlsInPartition(partition: number, afterUrl: string, limit: number): UrlRow[] {
    return (this.s.urlsInPartition!.all(partition, afterUrl, limit) as RawUrlRow[]).map(toUrlRow);
  }

  scheduledInPartition(partition: number): ScheduledUrl[] {
    return (this.s.scheduledInPartition!.all(partition) as RawScheduled[]).map(toScheduled);
  }

  hostsInPartition(partition: number): Array<{ host: string; state: string; robots?: StoredRobots }> {
    const robots = new Map<string, StoredRobots>();
    for (const r of this.s.robotsInPartition!.all(partition) as Array<RawRobots & { host: string }>) robots.set(r.host, toRobots(r));
    const out = (this.s.hostsInPartition!.all(partition) as Array<{ host: string; state: string }>).map((h) => ({
      ...h,
      robots: robots.get(h.host),
    }));
    for (const [host, r] of robots) if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: r });
    return out;
  }

  /** Writes a URL's full state as received from another node (handoff). */
  importUrl(row: UrlRow): void {
    this.s.importUrl!.run(
      row.partition,
      row.url,
      row.host,
      row.state,
      row.depth,
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

  // ---- bookkeeping --------------------------------------------------------------------------------

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

function storedVersion(db: Database): number | undefined {
  try {
    const row = db.query("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | null;
    return row ? Number(row.value) : undefined;
  } catch {
    return undefined; // no meta table: a new store
  }
}

interface RawRobots {
  verdict: StoredRobots["verdict"];
  body: string | null;
  fetched_at: number;
  expires_at: number;
}

function toRobots(r: RawRobots): StoredRobots {
  return { verdict: r.verdict, body: r.body ?? undefined, fetchedAt: r.fetched_at, expiresAt: r.expires_at };
}

function toScheduled(r: RawScheduled): ScheduledUrl {
  return { dueAt: r.due_at, url: r.url, host: r.host, partition: r.partition, priority: r.priority, depth: r.depth };
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
  };
}

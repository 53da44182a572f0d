/**
 * FrontierStore: the frontier's durable state in one SQLite file (bun:sqlite, WAL, synchronous=NORMAL, so a
 * killed process loses nothing committed and an OS crash at most the last moments). It answers the questions
 * the frontier asks (what is the head of this host's queue, is this URL known, what is due) with prepared
 * statements, and groups the writes of fetch results in one transaction via `tx`. Every key starts with the
 * host's partition (see schema.ts), so callers pass it along with the URL or host.
 *
 * With `journal: true` (a frontier node that replicates its partitions) every write to a partition's rows
 * is also noted in the store's change journal (change-journal.ts), committed with the writes; writes made
 * inside `untracked` (replays and imports of another store's rows) are not.
 */
import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { statSync } from "node:fs";
import { checkSqliteStore, isStoreDamage, StoreDamagedError } from "../../../core/errors/index.ts";
import type { Priority, UrlKind } from "../../../core/model/index.ts";
import { ChangeJournal, JOURNAL_SCHEMA } from "./change-journal.ts";
import { queuedChange, scheduledChange, urlRowChange, type Change } from "./changes.ts";
import { parsePersistedHost, type PersistedHost } from "./persisted-host.ts";
import { OLDEST_SCHEMA_VERSION, SCHEMA, SCHEMA_VERSION, upgradeSchema } from "./schema.ts";
import { ScopeRootTable } from "./scope-root-table.ts";
import { SitemapTable } from "./sitemap-table.ts";

export interface QueuedUrl {
  host: string;
  partition: number;
  priority: Priority;
  seq: number;
  url: string;
  depth: number;
  hops: number;
  /** A page, or a media file a page named (--fetch-media). */
  kind: UrlKind;
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
  kind: UrlKind;
}

export interface FrontierStoreOptions {
  /**
   * Log admitted URLs in `recent_urls` until the next seen-set snapshot (embedded mode, whose Bloom filter
   * lives in a file). A cluster's seen-set is in Redis and needs no replay.
   */
  recentLog?: boolean;
  /** Keep a change journal of every partition's writes (a frontier node replicating its state). */
  journal?: boolean;
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
  kind: UrlKind;
}

/** The stored kind (0 page, 1 media: no bytes on disk either way) read back as the model's name. */
const KIND_NAME = "CASE kind WHEN 1 THEN 'media' ELSE 'page' END AS kind";
const QUEUE_COLUMNS = `host, partition, priority, seq, url, depth, hops, ${KIND_NAME}`;
/** Rows per multi-row INSERT (8 parameters each, well under SQLite's limit on parameters). */
const ENQUEUE_CHUNK = 64;
const ENQUEUE_INTO = "INSERT OR IGNORE INTO queue (partition, host, priority, seq, url, depth, hops, kind) VALUES ";
const ENQUEUE_ROW = "(?, ?, ?, ?, ?, ?, ?, ?)";
const SCHEDULED_COLUMNS = `due_at, url, host, partition, priority, depth, ${KIND_NAME}`;

/** A URL kind as stored. */
function kindCode(kind: UrlKind | undefined): 0 | 1 {
  return kind === "media" ? 1 : 0;
}

/** Every statement the store runs, prepared once, each typed with its parameters and the rows it returns. */
function prepare(db: Database) {
  return {
    head: db.query<QueuedUrl, [partition: number, host: string]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND host = ? ORDER BY priority, seq LIMIT 1`,
    ),
    dequeue: db.query<never, [partition: number, host: string, priority: Priority, seq: number]>(
      "DELETE FROM queue WHERE partition = ? AND host = ? AND priority = ? AND seq = ?",
    ),
    queuedAt: db.query<{ url: string }, [partition: number, host: string, priority: Priority, seq: number]>(
      "SELECT url FROM queue WHERE partition = ? AND host = ? AND priority = ? AND seq = ?",
    ),
    queuedUrl: db.query<{ x: 1 }, [partition: number, host: string, url: string]>(
      "SELECT 1 AS x FROM queue WHERE partition = ? AND host = ? AND url = ? LIMIT 1",
    ),
    hostCounts: db.query<{ host: string; n: number }, []>("SELECT host, COUNT(*) AS n FROM queue GROUP BY partition, host"),
    hostCountsIn: db.query<{ host: string; n: number }, [partition: number]>(
      "SELECT host, COUNT(*) AS n FROM queue WHERE partition = ? GROUP BY host",
    ),
    hostCount: db.query<Count, [partition: number, host: string]>("SELECT COUNT(*) AS n FROM queue WHERE partition = ? AND host = ?"),
    totalQueued: db.query<Count, []>("SELECT COUNT(*) AS n FROM queue"),
    dropLowest: db.query<UrlKey & { depth: number; priority: Priority; seq: number }, [limit: number]>(
      `DELETE FROM queue WHERE (priority, seq) IN (SELECT priority, seq FROM queue ORDER BY priority DESC, seq DESC LIMIT ?)
       RETURNING partition, host, url, depth, priority, seq`,
    ),
    putQueued: db.query<
      never,
      [partition: number, host: string, priority: Priority, seq: number, url: string, depth: number, hops: number, kind: 0 | 1]
    >("INSERT OR REPLACE INTO queue (partition, host, priority, seq, url, depth, hops, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
    maxSeq: db.query<Count, []>("SELECT COALESCE(MAX(seq), 0) AS n FROM queue"),
    getUrl: db.query<RawUrlRow, [partition: number, url: string]>("SELECT * FROM urls WHERE partition = ? AND url = ?"),
    hasUrl: db.query<{ x: 1 }, [partition: number, url: string]>("SELECT 1 AS x FROM urls WHERE partition = ? AND url = ?"),
    setUrlState: db.query<never, [partition: number, url: string, host: string, state: UrlStatus, depth: number, note: string | null]>(
      `INSERT INTO urls (partition, url, host, state, depth, note) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (partition, url) DO UPDATE SET state = excluded.state, note = excluded.note`,
    ),
    importUrl: db.query<
      never,
      [
        partition: number,
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
      ]
    >(
      `INSERT OR REPLACE INTO urls (partition, url, host, state, depth, failures, last_status, last_fetched_at, refetch_ms, etag,
       last_modified, fingerprint, simhash, changed_last_visit, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    recentSince: db.query<{ id: number; url: string }, [afterId: number, limit: number]>(
      "SELECT id, url FROM recent_urls WHERE id > ? ORDER BY id LIMIT ?",
    ),
    maxRecentId: db.query<Count, []>("SELECT COALESCE(MAX(id), 0) AS n FROM recent_urls"),
    trimRecent: db.query<never, [id: number]>("DELETE FROM recent_urls WHERE id <= ?"),
    urlCount: db.query<Count, []>("SELECT COUNT(*) AS n FROM urls"),
    stateCounts: db.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM urls GROUP BY state"),
    schedule: db.query<
      never,
      [partition: number, url: string, host: string, priority: Priority, depth: number, dueAt: number, kind: 0 | 1]
    >("INSERT OR REPLACE INTO scheduled (partition, url, host, priority, depth, due_at, kind) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    due: db.query<RawScheduled, [now: number, limit: number]>(
      `SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE due_at <= ? ORDER BY due_at LIMIT ?`,
    ),
    unschedule: db.query<never, [partition: number, url: string]>("DELETE FROM scheduled WHERE partition = ? AND url = ?"),
    scheduledAt: db.query<{ due_at: number }, [partition: number, url: string]>(
      "SELECT due_at FROM scheduled WHERE partition = ? AND url = ?",
    ),
    nextDue: db.query<{ t: number | null }, []>("SELECT MIN(due_at) AS t FROM scheduled"),
    scheduledByState: db.query<{ state: string | null; n: number; first: number }, []>(
      `SELECT u.state AS state, COUNT(*) AS n, MIN(s.due_at) AS first FROM scheduled s
       LEFT JOIN urls u ON u.partition = s.partition AND u.url = s.url GROUP BY u.state`,
    ),
    failingByHost: db.query<{ host: string; n: number; first: number; note: string | null }, [limit: number]>(
      `SELECT s.host AS host, COUNT(*) AS n, MIN(s.due_at) AS first, MAX(u.note) AS note FROM scheduled s
       JOIN urls u ON u.partition = s.partition AND u.url = s.url WHERE u.state IN ('retry-wait', 'dead')
       GROUP BY s.host ORDER BY n DESC, host LIMIT ?`,
    ),
    scheduledCount: db.query<Count, []>("SELECT COUNT(*) AS n FROM scheduled"),
    loadHost: db.query<{ state: string }, [host: string]>("SELECT state FROM hosts WHERE host = ?"),
    saveHost: db.query<never, [host: string, partition: number, state: string]>(
      "INSERT OR REPLACE INTO hosts (host, partition, state) VALUES (?, ?, ?)",
    ),
    loadRobots: db.query<RawRobots, [host: string]>("SELECT verdict, body, fetched_at, expires_at FROM robots WHERE host = ?"),
    saveRobots: db.query<
      never,
      [host: string, partition: number, verdict: StoredRobots["verdict"], body: string | null, fetchedAt: number, expiresAt: number]
    >("INSERT OR REPLACE INTO robots (host, partition, verdict, body, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)"),
    queuedInPartition: db.query<QueuedUrl, [partition: number, host: string, priority: number, seq: number, limit: number]>(
      `SELECT ${QUEUE_COLUMNS} FROM queue WHERE partition = ? AND (host, priority, seq) > (?, ?, ?) ORDER BY host, priority, seq LIMIT ?`,
    ),
    urlsInPartition: db.query<RawUrlRow, [partition: number, afterUrl: string, limit: number]>(
      "SELECT * FROM urls WHERE partition = ? AND url > ? ORDER BY url LIMIT ?",
    ),
    anyQueuedIn: db.query<{ x: 1 }, [partition: number]>("SELECT 1 AS x FROM queue WHERE partition = ? LIMIT 1"),
    anyUrlIn: db.query<{ x: 1 }, [partition: number]>("SELECT 1 AS x FROM urls WHERE partition = ? LIMIT 1"),
    urlKeysInPartition: db.query<{ url: string }, [partition: number, afterUrl: string, limit: number]>(
      "SELECT url FROM urls WHERE partition = ? AND url > ? ORDER BY url LIMIT ?",
    ),
    scheduledInPartition: db.query<RawScheduled, [partition: number]>(`SELECT ${SCHEDULED_COLUMNS} FROM scheduled WHERE partition = ?`),
    hostsInPartition: db.query<{ host: string; state: string }, [partition: number]>("SELECT host, state FROM hosts WHERE partition = ?"),
    robotsInPartition: db.query<RawRobots & { host: string }, [partition: number]>(
      "SELECT host, verdict, body, fetched_at, expires_at FROM robots WHERE partition = ?",
    ),
    deleteQueuePartition: db.query<never, [partition: number]>("DELETE FROM queue WHERE partition = ?"),
    deleteUrlsPartition: db.query<never, [partition: number]>("DELETE FROM urls WHERE partition = ?"),
    deleteScheduledPartition: db.query<never, [partition: number]>("DELETE FROM scheduled WHERE partition = ?"),
    deleteHostsPartition: db.query<never, [partition: number]>("DELETE FROM hosts WHERE partition = ?"),
    deleteRobotsPartition: db.query<never, [partition: number]>("DELETE FROM robots WHERE partition = ?"),
    getMeta: db.query<{ value: string }, [key: string]>("SELECT value FROM meta WHERE key = ?"),
    setMeta: db.query<never, [key: string, value: string]>("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"),
  };
}

/** A `COUNT(*) AS n` (or `MAX(...) AS n`) row. */
interface Count {
  n: number;
}

export class FrontierStore {
  /** Each host's sitemaps to read (sitemap-table.ts). */
  readonly sitemaps: SitemapTable;
  /** The hosts of the crawl's seeds (scope-root-table.ts). */
  readonly scopeRoots: ScopeRootTable;
  private readonly db: Database;
  private nextSeq: number;
  private readonly recentLog: boolean;
  private readonly s: ReturnType<typeof prepare>;
  /** The change journal, when kept (`journal: true`). */
  readonly journal: ChangeJournal | undefined;
  private txDepth = 0;
  /** Multi-row statements by row count (enqueueMany, logAdmittedMany). */
  private readonly enqueueChunks = new Map<number, Statement>();
  private readonly logChunks = new Map<number, Statement>();

  private constructor(db: Database, options: FrontierStoreOptions) {
    this.db = db;
    this.recentLog = options.recentLog ?? false;
    this.s = prepare(db);
    this.journal = options.journal ? new ChangeJournal(db) : undefined;
    const note = (partition: number, change: Change) => this.note(partition, change);
    this.sitemaps = new SitemapTable(db, note);
    this.scopeRoots = new ScopeRootTable(db, note);
    const savedSeq = Number(this.getMeta("seq") ?? 0);
    const queuedSeq = this.count(this.s.maxSeq);
    this.nextSeq = Math.max(savedSeq, queuedSeq) + 1;
  }

  /**
   * Opens (creating when needed) the store at `path`; `:memory:` gives a throwaway store for tests. A file
   * that is damaged (corrupt, torn, not SQLite) is found here and refused with StoreDamagedError (core/errors:
   * the schema is read, and `PRAGMA quick_check` runs over every page of a store up to 1 GiB).
   */
  static open(path: string, options: FrontierStoreOptions = {}): FrontierStore {
    let db: Database;
    try {
      db = new Database(path, { create: true });
    } catch (error) {
      if (isStoreDamage(error)) throw new StoreDamagedError(path, (error as Error).message, { cause: error });
      throw error;
    }
    try {
      return FrontierStore.setUp(db, path, options);
    } catch (error) {
      db.close();
      if (isStoreDamage(error) && !(error instanceof StoreDamagedError)) {
        throw new StoreDamagedError(path, (error as Error).message, { cause: error });
      }
      throw error;
    }
  }

  private static setUp(db: Database, path: string, options: FrontierStoreOptions): FrontierStore {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA cache_size = -131072");
    // Checkpoints copy WAL pages into the database and sync it; a busy frontier rewrites the same hot pages
    // (host queues, URL rows) many times between checkpoints, so checkpointing every 64 MiB instead of
    // every 4 MiB writes each of them once instead of many times.
    db.exec("PRAGMA wal_autocheckpoint = 16384");
    if (path !== ":memory:") checkSqliteStore(path, sizeOnDisk(path), (sql) => db.query(sql).all() as Array<Record<string, unknown>>);
    const version = storedVersion(db);
    if (version !== undefined && (version > SCHEMA_VERSION || version < OLDEST_SCHEMA_VERSION)) {
      db.close();
      throw new Error(
        `frontier store ${path} has schema version ${version}; this build reads ${OLDEST_SCHEMA_VERSION} to ${SCHEMA_VERSION}: use a new directory`,
      );
    }
    db.transaction(() => {
      db.exec(SCHEMA);
      db.exec(JOURNAL_SCHEMA);
      if (version !== undefined) upgradeSchema(db, version);
    })();
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
    // The store's identity: a replica tells this store's writes from another's by it (a node that lost its
    // disk comes back with the same node id and a new store).
    db.query("INSERT OR IGNORE INTO meta (key, value) VALUES ('store-id', ?)").run(crypto.randomUUID());
    return new FrontierStore(db, options);
  }

  /** This store's identity, made when it was created. */
  get id(): string {
    return this.getMeta("store-id") ?? "";
  }

  /**
   * Runs `fn` in one transaction: all of its writes commit together or not at all. Nested calls join the
   * outer transaction; the journal's row for it is written when the outermost one ends. A caller must not
   * catch an error inside a transaction and go on (the journal would keep the failed part's changes).
   */
  tx<T>(fn: () => T): T {
    const journal = this.journal;
    if (!journal) return this.db.transaction(fn)();
    const outer = this.txDepth === 0;
    this.txDepth++;
    try {
      const result = this.db.transaction(() => {
        const r = fn();
        if (outer) journal.flush();
        return r;
      })();
      if (outer) journal.committed();
      return result;
    } catch (error) {
      if (outer) journal.discard();
      throw error;
    } finally {
      this.txDepth--;
    }
  }

  /** Runs `fn` without noting its writes in the journal (replaying or importing another store's rows). */
  untracked<T>(fn: () => T): T {
    return this.journal ? this.journal.mute(fn) : fn();
  }

  /** Notes a change for the journal; a write outside any transaction is journaled on its own. */
  private note(partition: number, change: Change): void {
    const journal = this.journal;
    if (!journal) return;
    journal.note(partition, change);
    if (this.txDepth === 0) {
      journal.flush();
      journal.committed();
    }
  }

  // ---- queue --------------------------------------------------------------------------------------

  head(partition: number, host: string): QueuedUrl | undefined {
    return this.s.head.get(partition, host) ?? undefined;
  }

  /**
   * Appends a URL to its host's queue behind others of the same priority; returns its sequence number, or
   * undefined when it was not added.
   */
  enqueue(item: Omit<QueuedUrl, "seq">): number | undefined {
    return this.enqueueMany([item])[0];
  }

  /** Writes a queue row with its own sequence number (a replayed or restored row, kept as its store wrote it). */
  putQueued(item: QueuedUrl): void {
    this.s.putQueued.run(item.partition, item.host, item.priority, item.seq, item.url, item.depth, item.hops, kindCode(item.kind));
    this.note(item.partition, queuedChange(item));
  }

  /** Makes the next sequence number larger than `seq` (after rows with another store's numbers came in). */
  reserveSeq(seq: number): void {
    if (seq >= this.nextSeq) this.nextSeq = seq + 1;
  }

  /**
   * `enqueue` for many URLs, in order, with one multi-row INSERT per up to ENQUEUE_CHUNK of them: each
   * statement run has a fixed cost (binding, stepping, the crossing into SQLite) that was most of an
   * admitted link's. Returns each URL's sequence number, or undefined for one that was not added (which a
   * fresh sequence number never collides into; were it to happen, the rows are looked up one by one).
   */
  enqueueMany(items: ReadonlyArray<Omit<QueuedUrl, "seq">>): Array<number | undefined> {
    const seqs: Array<number | undefined> = [];
    for (let from = 0; from < items.length; from += ENQUEUE_CHUNK) {
      const chunk = items.slice(from, from + ENQUEUE_CHUNK);
      const params: Array<string | number> = [];
      const chunkSeqs: number[] = [];
      for (const item of chunk) {
        const seq = this.nextSeq++;
        chunkSeqs.push(seq);
        params.push(item.partition, item.host, item.priority, seq, item.url, item.depth, item.hops, kindCode(item.kind));
      }
      const changes = this.manyStatement(this.enqueueChunks, chunk.length, ENQUEUE_ROW, ENQUEUE_INTO).run(...params).changes;
      chunk.forEach((item, i) => {
        const seq = chunkSeqs[i]!;
        // All rows went in, none did, or this one did if the row at its key is its own (an ignored row left
        // another's there).
        const added =
          changes === chunk.length || (changes > 0 && this.s.queuedAt.get(item.partition, item.host, item.priority, seq)?.url === item.url);
        if (!added) {
          seqs.push(undefined);
          return;
        }
        seqs.push(seq);
        this.note(item.partition, queuedChange({ ...item, seq }));
      });
    }
    return seqs;
  }

  dequeue(item: Pick<QueuedUrl, "partition" | "host" | "priority" | "seq">): void {
    this.s.dequeue.run(item.partition, item.host, item.priority, item.seq);
    this.note(item.partition, ["d", item.host, item.priority, item.seq]);
  }

  /** Whether a URL is in its host's queue (scans that host's queue: for handoff imports, not hot paths). */
  isQueued(partition: number, host: string, url: string): boolean {
    return this.s.queuedUrl.get(partition, host, url) !== null;
  }

  /** Queued URL counts by host, for every partition or for one. */
  queuedByHost(partition?: number): Map<string, number> {
    const out = new Map<string, number>();
    const rows = partition === undefined ? this.s.hostCounts.all() : this.s.hostCountsIn.all(partition);
    for (const row of rows) out.set(row.host, row.n);
    return out;
  }

  queuedForHost(partition: number, host: string): number {
    return this.count(this.s.hostCount, partition, host);
  }

  totalQueued(): number {
    return this.count(this.s.totalQueued);
  }

  /** Removes the `n` lowest-priority, most recently queued URLs (the size limit); returns what was dropped. */
  dropLowestPriority(n: number): { partition: number; host: string; url: string }[] {
    const dropped = this.s.dropLowest.all(n);
    for (const d of dropped) {
      this.note(d.partition, ["d", d.host, d.priority, d.seq]);
      this.setUrlState(d, "dropped", "frontier size limit");
    }
    return dropped;
  }

  // ---- URL state ----------------------------------------------------------------------------------

  getUrl(partition: number, url: string): UrlRow | undefined {
    const raw = this.s.getUrl.get(partition, url);
    return raw ? toUrlRow(raw) : undefined;
  }

  /**
   * Whether a URL was ever admitted: it has a state row (fetched, or finished without a page), or it waits in
   * its host's queue. The exact check behind a Bloom "maybe"; a queued URL has no state row until its first
   * result, which saves a second random B-tree insert for each of the many URLs admitted and not yet fetched.
   */
  isKnown(partition: number, host: string, url: string): boolean {
    return this.s.hasUrl.get(partition, url) !== null || this.isQueued(partition, host, url);
  }

  /**
   * Notes admissions in the recent log (embedded mode's seen-set replay), when the store keeps one, with one
   * multi-row INSERT per up to ENQUEUE_CHUNK of them.
   */
  logAdmittedMany(urls: readonly string[]): void {
    if (!this.recentLog) return;
    for (let from = 0; from < urls.length; from += ENQUEUE_CHUNK) {
      const chunk = urls.slice(from, from + ENQUEUE_CHUNK);
      this.manyStatement(this.logChunks, chunk.length, "(?)", "INSERT INTO recent_urls (url) VALUES ").run(...chunk);
    }
  }

  /** The prepared `INTO ... VALUES row, row, ...` statement for `n` rows, prepared on first use. */
  private manyStatement(cache: Map<number, Statement>, n: number, row: string, into: string): Statement {
    let statement = cache.get(n);
    if (!statement) {
      statement = this.db.prepare(into + Array.from({ length: n }, () => row).join(", "));
      cache.set(n, statement);
    }
    return statement;
  }

  /** Sets a URL's state (creating its row when it has none yet). */
  setUrlState(key: UrlKey & { depth: number }, state: UrlStatus, note?: string): void {
    this.s.setUrlState.run(key.partition, key.url, key.host, state, key.depth, note ?? null);
    this.note(key.partition, ["us", key.url, key.host, state, key.depth, note ?? null]);
  }

  /** Writes a URL's whole state after a fetch (creating its row on its first result). */
  recordFetch(row: UrlRow): void {
    this.importUrl(row);
  }

  /** URLs admitted after `afterId` (recent log), in order: replayed into the Bloom filter after an unclean stop. */
  urlsSince(afterId: number, limit: number): { id: number; url: string }[] {
    return this.s.recentSince.all(afterId, limit);
  }

  /** The id of the newest logged admission (0 when none); a seen-set snapshot records it. */
  maxUrlId(): number {
    return this.count(this.s.maxRecentId);
  }

  /** Forgets logged admissions up to `id`, which a seen-set snapshot now covers. */
  trimRecent(id: number): void {
    this.s.trimRecent.run(id);
  }

  urlCount(): number {
    return this.count(this.s.urlCount);
  }

  urlStateCounts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const row of this.s.stateCounts.all()) out[row.state] = row.n;
    return out;
  }

  // ---- schedule -----------------------------------------------------------------------------------

  /** Schedules a URL's next visit, replacing any earlier schedule of it. */
  schedule(item: ScheduledUrl): void {
    this.s.schedule.run(item.partition, item.url, item.host, item.priority, item.depth, item.dueAt, kindCode(item.kind));
    this.note(item.partition, scheduledChange(item));
  }

  /** Takes up to `limit` scheduled URLs whose time has come, removing them from the schedule. */
  takeDue(now: number, limit: number): ScheduledUrl[] {
    const rows = this.s.due.all(now, limit).map(toScheduled);
    for (const r of rows) this.unschedule(r.partition, r.url);
    return rows;
  }

  unschedule(partition: number, url: string): void {
    this.s.unschedule.run(partition, url);
    this.note(partition, ["x", url]);
  }

  scheduledAt(partition: number, url: string): number | undefined {
    return this.s.scheduledAt.get(partition, url)?.due_at;
  }

  nextDueAt(): number | undefined {
    return this.s.nextDue.get()?.t ?? undefined;
  }

  scheduledCount(): number {
    return this.count(this.s.scheduledCount);
  }

  /**
   * Scheduled URLs by the state of their URL (`fetched` and the other finished states: refetches;
   * `retry-wait`: retries; `dead`: resting after too many failures), each with how many and the first due.
   * Reads the whole schedule: for a summary, not a hot path.
   */
  scheduledByState(): Array<{ state: UrlStatus | null; count: number; firstDueAt: number }> {
    return this.s.scheduledByState.all().map((r) => ({ state: r.state as UrlStatus | null, count: r.n, firstDueAt: r.first }));
  }

  /**
   * The hosts with the most URLs whose fetches failed (waiting for a retry, or resting after too many
   * failures), with when the first is tried again and a failure note.
   */
  failingByHost(limit: number): Array<{ host: string; count: number; firstDueAt: number; note: string | null }> {
    return this.s.failingByHost.all(limit).map((r) => ({ host: r.host, count: r.n, firstDueAt: r.first, note: r.note }));
  }

  // ---- hosts and robots.txt -----------------------------------------------------------------------

  /**
   * A host's saved state; undefined when none was saved. Throws when the saved text is not a host's state
   * (a damaged store): the host's politeness state is never guessed.
   */
  loadHost(host: string): PersistedHost | undefined {
    const row = this.s.loadHost.get(host);
    if (!row) return undefined;
    try {
      return parsePersistedHost(row.state);
    } catch (error) {
      throw new Error(`frontier store: the saved state of host ${host} is unreadable: ${(error as Error).message}`, { cause: error });
    }
  }

  saveHost(host: string, partition: number, state: PersistedHost): void {
    const json = JSON.stringify(state);
    this.s.saveHost.run(host, partition, json);
    this.note(partition, ["h", host, json]);
  }

  loadRobots(host: string): StoredRobots | undefined {
    const row = this.s.loadRobots.get(host);
    return row ? toRobots(row) : undefined;
  }

  saveRobots(host: string, partition: number, robots: StoredRobots): void {
    this.s.saveRobots.run(host, partition, robots.verdict, robots.body ?? null, robots.fetchedAt, robots.expiresAt);
    this.note(partition, ["r", host, robots.verdict, robots.body ?? null, robots.fetchedAt, robots.expiresAt]);
  }

  // ---- partition handoff --------------------------------------------------------------------------

  /** A page of a partition's queue, in key order after `after` (undefined: from the start). */
  queuedInPartition(partition: number, after: Pick<QueuedUrl, "host" | "priority" | "seq"> | undefined, limit: number): QueuedUrl[] {
    const a = after ?? { host: "", priority: 0, seq: 0 };
    return this.s.queuedInPartition.all(partition, a.host, a.priority, a.seq, limit);
  }

  /** A page of a partition's URL states, in URL order after `afterUrl` ("" from the start). */
  urlsInPartition(partition: number, afterUrl: string, limit: number): UrlRow[] {
    return this.s.urlsInPartition.all(partition, afterUrl, limit).map(toUrlRow);
  }

  /** Whether the store knows any URL of a partition (queued, or with a state). */
  knowsPartition(partition: number): boolean {
    return this.s.anyQueuedIn.get(partition) !== null || this.s.anyUrlIn.get(partition) !== null;
  }

  /**
   * Every URL the store knows of a partition (the exact seen-set: queued ones, then those with a state),
   * in pages of about `pageSize`, for rebuilding a seen-set that lost them. Queued URLs come first because
   * a URL only ever moves from the queue to a state row (fetched, dropped, disallowed), never back (a due
   * retry or refetch is queued again but keeps its row): read in this order while the crawl goes on, no
   * URL known before the first page is read is missed. A scheduled URL has a state row.
   */
  *knownUrlsInPartition(partition: number, pageSize: number): Generator<string[]> {
    let after: QueuedUrl | undefined;
    for (;;) {
      const page = this.queuedInPartition(partition, after, pageSize);
      if (page.length === 0) break;
      yield page.map((q) => q.url);
      after = page[page.length - 1];
    }
    let afterUrl = "";
    for (;;) {
      const page = this.s.urlKeysInPartition.all(partition, afterUrl, pageSize);
      if (page.length === 0) break;
      yield page.map((r) => r.url);
      afterUrl = page[page.length - 1]!.url;
    }
  }

  scheduledInPartition(partition: number): ScheduledUrl[] {
    return this.s.scheduledInPartition.all(partition).map(toScheduled);
  }

  hostsInPartition(partition: number): Array<{ host: string; state: string; robots?: StoredRobots }> {
    const robots = new Map<string, StoredRobots>();
    for (const r of this.s.robotsInPartition.all(partition)) robots.set(r.host, toRobots(r));
    const out = this.s.hostsInPartition.all(partition).map((h) => ({
      ...h,
      robots: robots.get(h.host),
    }));
    for (const [host, r] of robots) if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: r });
    // A host known only by its sitemaps (one another host's robots.txt named) moves with the partition too.
    for (const host of this.sitemaps.hostsInPartition(partition))
      if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: undefined });
    return out;
  }

  /** Writes a URL's full state as received from another node (handoff). */
  importUrl(row: UrlRow): void {
    this.s.importUrl.run(
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
    this.note(row.partition, urlRowChange(row));
  }

  /**
   * Removes everything of a partition (after it was handed to its new owner, or before its rows are
   * rebuilt from a replica), its sitemaps included. Its seeds' scope roots stay (they are the crawl's),
   * no longer marked as this store's to replicate. Not journaled: whoever holds the partition next claims
   * it afresh.
   */
  deletePartition(partition: number): void {
    this.s.deleteQueuePartition.run(partition);
    this.s.deleteUrlsPartition.run(partition);
    this.s.deleteScheduledPartition.run(partition);
    this.s.deleteHostsPartition.run(partition);
    this.s.deleteRobotsPartition.run(partition);
    this.sitemaps.deletePartition(partition);
    this.scopeRoots.releasePartition(partition);
  }

  // ---- bookkeeping --------------------------------------------------------------------------------

  getMeta(key: string): string | undefined {
    return this.s.getMeta.get(key)?.value;
  }

  setMeta(key: string, value: string): void {
    this.s.setMeta.run(key, value);
  }

  /** Saves the sequence counter; called inside the transactions that enqueue. */
  saveSeq(): void {
    this.setMeta("seq", String(this.nextSeq));
  }

  /** The `n` of a one-row count query. */
  private count<P extends SQLQueryBindings[]>(statement: Statement<Count, P>, ...params: P): number {
    return statement.get(...params)?.n ?? 0;
  }

  close(): void {
    this.saveSeq();
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}

/** The database file and its WAL, in bytes. */
function sizeOnDisk(path: string): number {
  let bytes = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      bytes += statSync(f).size;
    } catch {
      // no such file yet
    }
  }
  return bytes;
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
  return { dueAt: r.due_at, url: r.url, host: r.host, partition: r.partition, priority: r.priority, depth: r.depth, kind: r.kind };
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

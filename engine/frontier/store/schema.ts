/**
 * The frontier's durable schema (SQLite, WAL). Every queued URL and every URL's state lives here, so a
 * killed process loses nothing it had committed. Tables:
 *  - queue: per-host back queues, ordered by (priority, seq) within (partition, host); the head of a host is
 *    its next URL. `url` is relative to the row's host when it is on it (queue-table.ts, version 6).
 *    `kind` is 0 for a page, 1 for a media file (--fetch-media); `job` the crawl job's number (0: default);
 *    SQLite stores 0 and 1 in no bytes, a job number below 128 in one. A head handed to a fetcher stays in the table until its result is
 *    committed, so a crash refetches it. `queue_drop_order` serves the size limit (lowest priority, newest first)
 *    and exists only while the frontier has one (`keepDropOrder`, queue-table.ts).
 *  - urls: the fetch state of each URL once it has a result (or was dropped or disallowed). A URL admitted
 *    and not yet fetched lives only in `queue`; urls and queue together are the exact seen-set behind the
 *    Bloom filter.
 *  - recent_urls: URLs admitted since the last seen-set snapshot (embedded mode), replayed into the Bloom
 *    filter after an unclean stop and trimmed at each snapshot.
 *  - (scheduled) a URL waiting for a retry or refetch time is its `urls` row with `due_at` set (and the
 *    priority, kind and job it is queued with when due), found by the partial index `urls_due`; moved into
 *    `queue` when due (schedule-table.ts, version 11).
 *  - hosts: per-host politeness state and counters, as small JSON (rewritten after every fetch).
 *  - robots: each host's robots.txt verdict and text with its expiry (kept apart: the text can be 500 KiB).
 *  - sitemaps: each host's sitemaps to read (from robots.txt, an index, a redirect), with what they may list
 *    (grants), their state (pending, read, failed, disallowed) and when they were last read; a host with a
 *    pending sitemap is active even with an empty queue (sitemap-table.ts).
 *  - scope_roots: the hosts of the crawl's seeds, which `--scope host|domain` keeps the crawl on, each with
 *    the partition of the seed that made it (-1: a seed admitted by another frontier node).
 *  - job_counts: each crawl job's page results and errors, per partition (job-count-table.ts).
 *  - meta: counters and snapshots' bookkeeping.
 * A store that replicates its partitions also has the change journal's tables (change-journal.ts).
 * Why these keys: each table is clustered on what its hot queries ask (WITHOUT ROWID primary keys starting
 * with the partition), so a partition can be handed over whole by key range, and an admitted URL costs one
 * random B-tree insert (its queue row) instead of one per table and secondary index: on a crawl admitting
 * ~30 links a page, B-tree pages written to the WAL were the largest single cost.
 */
import type { Database } from "bun:sqlite";

export const SCHEMA_VERSION = 11;

/**
 * The versions, one after the other; a store of an older one is brought up to date when opened, a newer
 * one is refused. Every step but 6 only adds: the tables and columns it brings are created when missing.
 *   3: queue, urls, recent_urls, scheduled, hosts, robots, meta.
 *   4: sitemaps, scope_roots (scope and sitemaps); journal, journal_state (replicated partition state).
 *   5: the URL kind of queue and scheduled rows (media files, --fetch-media); 0 (a page) for older rows.
 *   6: a queue row's URL relative to its host (`/path` for http://host/path, `~/path` for https), which an
 *      older build would read as it is; older rows keep their whole URLs, which are read and looked up as
 *      they are (queue-table.ts), so nothing is rewritten. `queue_drop_order` ascending (the same order,
 *      read backwards, in about half the bytes): the one step that replaces, the index rebuilt on upgrade
 *      (since then built only for a frontier with a size limit, and dropped for one without: no version
 *      step, since a build that always keeps it makes it again when it opens the store).
 *   7: a URL's captures (urls.captures, engine/frontier/captures.ts); null for older rows (none known).
 *   8: the crawl job (its number, core/jobs) of queue and scheduled rows, 0 (job `default`, no bytes) for
 *      older rows; job_counts, each job's page results and errors per partition.
 *   9: a feed's own reread schedule on its sitemap row (sitemaps.feed: the validators of its last answer and
 *      its interval; sitemaps.due_at: when it is read again), null and 0 for older rows (read when offered).
 *  10: the crawl job of a sitemap or feed row (sitemaps.job), whose entries are that job's; 0 (job
 *      `default`) for older rows.
 *  11: a URL's retry or refetch time in its `urls` row (due_at, due_priority, due_kind, due_job, indexed by
 *      `urls_due` where due_at > 0) instead of a `scheduled` table and its `scheduled_due` index: a page's
 *      result writes one row instead of two, and a B-tree page fewer. An older store's scheduled rows move
 *      into their URLs' rows (a row made, in state `queued`, for one that had none) and the table is dropped.
 */
export const OLDEST_SCHEMA_VERSION = 3;

/**
 * The size limit's order (lowest priority, newest first: ORDER BY priority DESC, seq DESC) as an ascending
 * index that SQLite reads backwards. Ascending, a new row's entry (seq only grows) goes at the end of its
 * priority's run, and SQLite leaves the pages it fills that way full: 37-38 B an entry (bench:scale) where the
 * same index descending (before version 6), every new entry at the start of its run, left pages half full at
 * 66-69 B. Not part of SCHEMA: it is kept only while the frontier has a size limit (queue-table.ts
 * `keepDropOrder`), since every dequeue deletes an entry of it at a random place (a B-tree page written to
 * the WAL per fetched URL, for a limit most crawls never reach).
 */
export const QUEUE_DROP_ORDER = "CREATE INDEX IF NOT EXISTS queue_drop_order ON queue (priority, seq)";

/**
 * The queued URLs of crawl jobs other than `default`, by job and partition: what a job's `queued` counts
 * (an index-only read), without an entry for job default's URLs (the crawl without jobs pays nothing).
 */
const QUEUE_JOB_INDEX = "CREATE INDEX IF NOT EXISTS queue_job ON queue (job, partition) WHERE job != 0";

/** Feeds waiting for their next read, by when it is due; a sitemap (due_at 0) has no entry. */
const FEED_DUE_INDEX = "CREATE INDEX IF NOT EXISTS sitemaps_feed_due ON sitemaps (due_at) WHERE due_at > 0";

/** URLs waiting for a retry or refetch, by when they are due; a URL with nothing scheduled (due_at 0) has no entry. */
const URL_DUE_INDEX = "CREATE INDEX IF NOT EXISTS urls_due ON urls (due_at) WHERE due_at > 0";

/**
 * Each host's pending sitemaps in the order they are read (offered first, then by URL): the host's next one is
 * one index seek (with the whole table indexed by (state, partition, host) it was a search and a sort), the
 * pending counts read the index alone, and a sitemap read leaves the index instead of moving in it. An access
 * path, not data: a store of any version gets it when it opens, and loses the index it replaced
 * (`sitemaps_pending`, which a build before it makes again beside it: both work). Measured alone, 100,000
 * hosts offered, taken and finished a probe each: 49 µs of CPU a host instead of 70-79.
 */
const SITEMAPS_PENDING_INDEX =
  "DROP INDEX IF EXISTS sitemaps_pending; CREATE INDEX IF NOT EXISTS sitemaps_pending_by_offer ON sitemaps (partition, host, offered_at, url) WHERE state = 'pending'";

/** What is made after SCHEMA and upgradeSchema: indexes on columns an older store gets only from the upgrade. */
export const LATE_SCHEMA = `${QUEUE_JOB_INDEX}; ${FEED_DUE_INDEX}; ${URL_DUE_INDEX}; ${SITEMAPS_PENDING_INDEX};`;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS queue (
  partition INTEGER NOT NULL,
  host TEXT NOT NULL,
  priority INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  depth INTEGER NOT NULL,
  hops INTEGER NOT NULL,
  kind INTEGER NOT NULL DEFAULT 0,
  job INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (partition, host, priority, seq)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS urls (
  partition INTEGER NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  state TEXT NOT NULL,
  depth INTEGER NOT NULL,
  failures INTEGER NOT NULL DEFAULT 0,
  last_status INTEGER NOT NULL DEFAULT 0,
  last_fetched_at INTEGER NOT NULL DEFAULT 0,
  refetch_ms INTEGER NOT NULL DEFAULT 0,
  etag TEXT,
  last_modified TEXT,
  fingerprint TEXT,
  simhash TEXT,
  changed_last_visit INTEGER NOT NULL DEFAULT 0,
  note TEXT,
  captures TEXT,
  due_at INTEGER NOT NULL DEFAULT 0,
  due_priority INTEGER NOT NULL DEFAULT 0,
  due_kind INTEGER NOT NULL DEFAULT 0,
  due_job INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (partition, url)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS recent_urls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS hosts (
  host TEXT PRIMARY KEY,
  partition INTEGER NOT NULL,
  state TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS robots (
  host TEXT PRIMARY KEY,
  partition INTEGER NOT NULL,
  verdict TEXT NOT NULL,
  body TEXT,
  fetched_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS sitemaps (
  partition INTEGER NOT NULL,
  host TEXT NOT NULL,
  url TEXT NOT NULL,
  grants TEXT NOT NULL,
  from_index INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  hops INTEGER NOT NULL,
  state TEXT NOT NULL,
  offered_at INTEGER NOT NULL,
  read_at INTEGER NOT NULL DEFAULT 0,
  feed TEXT,
  due_at INTEGER NOT NULL DEFAULT 0,
  job INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (partition, host, url)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS scope_roots (
  host TEXT PRIMARY KEY,
  partition INTEGER NOT NULL DEFAULT -1
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS job_counts (
  partition INTEGER NOT NULL,
  job INTEGER NOT NULL,
  pages INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  PRIMARY KEY (partition, job)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS rendered_links (
  partition INTEGER NOT NULL,
  url TEXT NOT NULL,
  PRIMARY KEY (partition, url)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Brings a store of version `from` (OLDEST_SCHEMA_VERSION or later) up to SCHEMA_VERSION, after SCHEMA
 * (and the journal's schema) created the tables it lacked. A scope_roots table made before roots named
 * their seed's partition gets the column, its roots marked as no partition's (-1): they stay roots, and
 * their seeds' partitions carry them again once those seeds are admitted again. Queue and schedule rows made
 * before URL kinds get the column, as pages. Queue rows made before version 6 keep their whole URLs (they
 * are read as they are); their drop-order index, descending, is dropped (the frontier builds it ascending
 * when it has a size limit: one pass over the queue, 3.9 s for 3 million rows on a 2-core box).
 */
export function upgradeSchema(db: Database, from: number): void {
  if (from >= SCHEMA_VERSION) return;
  addColumnIfMissing(db, "scope_roots", "partition", "INTEGER NOT NULL DEFAULT -1");
  // Version 5: the rows of a store of 3 or 4 are all pages.
  addColumnIfMissing(db, "queue", "kind", "INTEGER NOT NULL DEFAULT 0");
  addColumnIfMissing(db, "scheduled", "kind", "INTEGER NOT NULL DEFAULT 0");
  // Version 8: every row of an older store is job default's.
  addColumnIfMissing(db, "queue", "job", "INTEGER NOT NULL DEFAULT 0");
  addColumnIfMissing(db, "scheduled", "job", "INTEGER NOT NULL DEFAULT 0");
  // Version 6: the drop order's index ascending. An older store's descending one is dropped; the frontier builds
  // the ascending one when it opens the store with a size limit (keepDropOrder).
  if (from < 6) db.exec("DROP INDEX IF EXISTS queue_drop_order");
  // Version 7: URLs fetched before it have no captures on record.
  addColumnIfMissing(db, "urls", "captures", "TEXT");
  // Version 9: sitemaps and feeds of an older store have no schedule of their own (read when offered again).
  addColumnIfMissing(db, "sitemaps", "feed", "TEXT");
  addColumnIfMissing(db, "sitemaps", "due_at", "INTEGER NOT NULL DEFAULT 0");
  // Version 10: every sitemap and feed of an older store is job default's.
  addColumnIfMissing(db, "sitemaps", "job", "INTEGER NOT NULL DEFAULT 0");
  // Version 11: the schedule moves into the URLs' rows.
  if (from < 11) moveScheduleIntoUrls(db);
}

/**
 * Version 11: each scheduled row's time, priority, kind and job go into its URL's row; a scheduled URL with
 * no row (none of the frontier's own paths make one) gets a row in state `queued`, which it takes anyway
 * when due. Then the table and its index are dropped. One pass over the schedule while the store opens.
 */
function moveScheduleIntoUrls(db: Database): void {
  for (const column of ["due_at", "due_priority", "due_kind", "due_job"])
    addColumnIfMissing(db, "urls", column, "INTEGER NOT NULL DEFAULT 0");
  const hasTable = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'scheduled'").get() !== null;
  if (!hasTable) return;
  db.exec(`INSERT INTO urls (partition, url, host, state, depth, due_at, due_priority, due_kind, due_job)
    SELECT partition, url, host, 'queued', depth, due_at, priority, kind, job FROM scheduled WHERE true
    ON CONFLICT (partition, url) DO UPDATE SET due_at = excluded.due_at, due_priority = excluded.due_priority,
    due_kind = excluded.due_kind, due_job = excluded.due_job`);
  db.exec("DROP TABLE scheduled");
}

function addColumnIfMissing(db: Database, table: string, column: string, type: string): void {
  const columns = db.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all();
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}

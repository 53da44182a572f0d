/**
 * The frontier's durable schema (SQLite, WAL). Every queued URL and every URL's state lives here, so a
 * killed process loses nothing it had committed. Tables:
 *  - queue: per-host back queues, ordered by (priority, seq) within (partition, host); the head of a host is
 *    its next URL. `kind` is 0 for a page, 1 for a media file (--fetch-media); SQLite stores both in no bytes. A head handed to a fetcher stays in the table until its result is committed, so a crash
 *    refetches it. `queue_drop_order` serves the size limit (lowest priority, newest first).
 *  - urls: the fetch state of each URL once it has a result (or was dropped or disallowed). A URL admitted
 *    and not yet fetched lives only in `queue`; urls and queue together are the exact seen-set behind the
 *    Bloom filter.
 *  - recent_urls: URLs admitted since the last seen-set snapshot (embedded mode), replayed into the Bloom
 *    filter after an unclean stop and trimmed at each snapshot.
 *  - scheduled: URLs waiting for a retry or refetch time; moved into `queue` when due.
 *  - hosts: per-host politeness state and counters, as small JSON (rewritten after every fetch).
 *  - robots: each host's robots.txt verdict and text with its expiry (kept apart: the text can be 500 KiB).
 *  - meta: counters and snapshots' bookkeeping.
 * Why these keys: each table is clustered on what its hot queries ask (WITHOUT ROWID primary keys starting
 * with the partition), so a partition can be handed over whole by key range, and an admitted URL costs one
 * random B-tree insert (its queue row) instead of one per table and secondary index: on a crawl admitting
 * ~30 links a page, B-tree pages written to the WAL were the largest single cost.
 */
export const SCHEMA_VERSION = 4;

/**
 * How a store of an older version is brought up to this one, by the version it has: each step runs in
 * order, in one transaction with the new version number. Version 4 added the URL kind (media files).
 */
export const MIGRATIONS: Record<number, string> = {
  3: `
ALTER TABLE queue ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scheduled ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;
`,
};

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
  PRIMARY KEY (partition, host, priority, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS queue_drop_order ON queue (priority DESC, seq DESC);

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
  PRIMARY KEY (partition, url)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS recent_urls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS scheduled (
  partition INTEGER NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  priority INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  kind INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (partition, url)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS scheduled_due ON scheduled (due_at);

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

CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

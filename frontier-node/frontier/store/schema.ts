/**
 * The frontier's durable schema (SQLite, WAL). Every queued URL and every URL's state lives here, so a
 * killed process loses nothing it had committed. Tables:
 *  - queue: per-host back queues, ordered by (priority, seq); the head of a host is its next URL. A head
 *    handed to a fetcher stays in the table until its result is committed, so a crash refetches it.
 *  - urls: every URL ever admitted (the exact seen-set behind the Bloom filter) and its fetch state.
 *  - scheduled: URLs waiting for a retry or refetch time; moved into `queue` when due.
 *  - hosts: per-host politeness state and counters, as small JSON (rewritten after every fetch).
 *  - robots: each host's robots.txt verdict and text with its expiry (kept apart: the text can be 500 KiB).
 *  - meta: counters and snapshots' bookkeeping.
 * Every row carries its host's partition, so a partition can be handed to another frontier node whole.
 */
export const SCHEMA_VERSION = 2;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS queue (
  host TEXT NOT NULL,
  partition INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  url TEXT NOT NULL,
  depth INTEGER NOT NULL,
  hops INTEGER NOT NULL,
  PRIMARY KEY (host, priority, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS queue_drop_order ON queue (priority DESC, seq DESC);
CREATE INDEX IF NOT EXISTS queue_partition ON queue (partition);
CREATE UNIQUE INDEX IF NOT EXISTS queue_url ON queue (url);

CREATE TABLE IF NOT EXISTS urls (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  host TEXT NOT NULL,
  partition INTEGER NOT NULL,
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
  note TEXT
);
CREATE INDEX IF NOT EXISTS urls_partition ON urls (partition);

CREATE TABLE IF NOT EXISTS scheduled (
  due_at INTEGER NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  partition INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  PRIMARY KEY (due_at, url)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS scheduled_url ON scheduled (url);
CREATE INDEX IF NOT EXISTS scheduled_partition ON scheduled (partition);

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

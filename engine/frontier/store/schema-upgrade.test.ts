/**
 * The store's schema versions: a store written by an older build opens and is brought up to date with
 * nothing lost; a store of a newer build is refused with a clear error.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrontierStore } from "./frontier-store.ts";
import { SCHEMA_VERSION } from "./schema.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "schema-upgrade-"));
  dirs.push(dir);
  return join(dir, "frontier.sqlite");
}

/**
 * Gives a store of this build the schedule of a version-10 one: a `scheduled` table with its index, the
 * URLs' rows without their schedule columns, and no row for a URL that was only scheduled.
 */
function asVersion10(db: Database): void {
  db.exec(`CREATE TABLE scheduled (partition INTEGER NOT NULL, url TEXT NOT NULL, host TEXT NOT NULL, priority INTEGER NOT NULL,
    depth INTEGER NOT NULL, due_at INTEGER NOT NULL, kind INTEGER NOT NULL DEFAULT 0, job INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (partition, url)) WITHOUT ROWID; CREATE INDEX scheduled_due ON scheduled (due_at)`);
  db.exec("INSERT INTO scheduled SELECT partition, url, host, due_priority, depth, due_at, due_kind, due_job FROM urls WHERE due_at > 0");
  db.exec("DELETE FROM urls WHERE due_at > 0 AND state = 'queued'");
  db.exec("DROP INDEX urls_due");
  for (const column of ["due_at", "due_priority", "due_kind", "due_job"]) db.exec(`ALTER TABLE urls DROP COLUMN ${column}`);
}

/** A store as a version-3 build left it: a queued URL, none of the tables version 4 brought, no URL kinds. */
function version3Store(path: string, scopeRootsWithoutPartition = false): void {
  const store = FrontierStore.open(path);
  store.tx(() => store.enqueue({ partition: 3, host: "a.test", priority: 2, url: "http://a.test/", depth: 0, hops: 0, kind: "page" }));
  store.close();
  const db = new Database(path);
  asVersion10(db);
  db.exec("DROP TABLE sitemaps; DROP TABLE scope_roots; DROP TABLE journal; DROP TABLE journal_state");
  db.exec("ALTER TABLE queue DROP COLUMN kind; ALTER TABLE scheduled DROP COLUMN kind");
  // A store of the scope branch before roots named their partition.
  if (scopeRootsWithoutPartition)
    db.exec("CREATE TABLE scope_roots (host TEXT PRIMARY KEY) WITHOUT ROWID; INSERT INTO scope_roots VALUES ('a.test')");
  db.exec("UPDATE meta SET value = '3' WHERE key = 'schema'");
  db.close();
}

test("schema - a version-3 store opens, keeps its rows and gets the sitemaps, scope roots and journal tables", () => {
  const path = storePath();
  version3Store(path);
  const store = FrontierStore.open(path, { journal: true });
  expect(store.totalQueued()).toBe(1);
  store.tx(() => {
    store.sitemaps.offer(
      { partition: 3, host: "a.test", url: "http://a.test/s.xml", grants: [], fromIndex: false, depth: 0, hops: 0 },
      1,
      1,
    );
    store.scopeRoots.add([{ host: "a.test", partition: 3 }]);
  });
  expect(store.sitemaps.pendingFor(3, "a.test")).toBe(1);
  expect(store.scopeRoots.inPartition(3)).toEqual(["a.test"]);
  expect(store.journal!.partitions()).toEqual([3]);
  store.close();
  const db = new Database(path);
  expect(db.query("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({ value: String(SCHEMA_VERSION) });
  db.close();
});

/** A store as a version-4 build left it (sitemaps, scope roots, journal): a queued and a scheduled URL, no URL kinds. */
function version4Store(path: string): void {
  const store = FrontierStore.open(path, { journal: true });
  store.tx(() => {
    store.enqueue({ partition: 3, host: "a.test", priority: 2, url: "http://a.test/", depth: 0, hops: 0, kind: "page" });
    store.schedule({ partition: 3, url: "http://a.test/later", host: "a.test", priority: 2, depth: 1, dueAt: 5, kind: "page" });
    store.scopeRoots.add([{ host: "a.test", partition: 3 }]);
  });
  store.close();
  const db = new Database(path);
  asVersion10(db);
  db.exec("ALTER TABLE queue DROP COLUMN kind; ALTER TABLE scheduled DROP COLUMN kind");
  db.exec("UPDATE meta SET value = '4' WHERE key = 'schema'");
  db.close();
}

test("schema - a version-4 store opens with its rows, journal and scope roots, its URLs pages, and takes media files after", () => {
  const path = storePath();
  version4Store(path);
  const store = FrontierStore.open(path, { journal: true });
  expect(store.head(3, "a.test")).toMatchObject({ url: "http://a.test/", kind: "page" });
  expect(store.scopeRoots.inPartition(3)).toEqual(["a.test"]);
  expect(store.journal!.partitions()).toEqual([3]);
  store.tx(() =>
    store.enqueue({ partition: 3, host: "a.test", priority: 1, url: "http://a.test/x.jpg", depth: 1, hops: 0, kind: "media" }),
  );
  expect(store.head(3, "a.test")).toMatchObject({ url: "http://a.test/x.jpg", kind: "media" });
  expect(store.takeDue(10, 10)).toEqual([expect.objectContaining({ url: "http://a.test/later", kind: "page" })]);
  store.close();
  const db = new Database(path);
  expect(db.query("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({ value: String(SCHEMA_VERSION) });
  db.close();
});

/** A store as a version-5 build left it: queued URLs whole in their rows (not relative to their host), the drop order's index descending. */
function version5Store(path: string): void {
  const store = FrontierStore.open(path, { journal: true });
  store.tx(() =>
    store.enqueueMany([
      { partition: 3, host: "a.test", priority: 2, url: "http://a.test/old", depth: 1, hops: 0, kind: "page" },
      { partition: 3, host: "a.test", priority: 3, url: "https://a.test/old-tls", depth: 1, hops: 0, kind: "media" },
    ]),
  );
  store.close();
  const db = new Database(path);
  asVersion10(db);
  db.exec(
    "UPDATE queue SET url = CASE substr(url, 1, 1) WHEN '/' THEN 'http://' || host || url ELSE 'https://' || host || substr(url, 2) END",
  );
  db.exec("DROP INDEX IF EXISTS queue_drop_order; CREATE INDEX queue_drop_order ON queue (priority DESC, seq DESC)");
  expect(db.query("SELECT url FROM queue ORDER BY seq").all()).toEqual([{ url: "http://a.test/old" }, { url: "https://a.test/old-tls" }]);
  db.exec("UPDATE meta SET value = '5' WHERE key = 'schema'");
  db.close();
}

const dropOrderIndex = (db: Database) =>
  db.query("SELECT sql FROM sqlite_schema WHERE name = 'queue_drop_order'").get() as { sql: string } | null;

test("schema - a version-5 store opens, its whole queued URLs read, found (never admitted twice) and dropped as before", () => {
  const path = storePath();
  version5Store(path);
  const store = FrontierStore.open(path, { journal: true });
  // The descending index is gone with the upgrade; a frontier with a size limit builds it again, ascending.
  expect(() => store.dropLowestPriority(1)).toThrow(/no such index/);
  expect(store.keepDropOrder(true)).toBe(true);
  expect(store.head(3, "a.test")).toMatchObject({ url: "http://a.test/old", kind: "page" });
  expect(store.isKnown(3, "a.test", "http://a.test/old")).toBe(true);
  expect(store.isKnown(3, "a.test", "https://a.test/old-tls")).toBe(true);
  expect(store.isQueued(3, "a.test", "https://a.test/old-tls")).toBe(true);
  expect(store.isKnown(3, "a.test", "http://a.test/new")).toBe(false);
  store.tx(() => store.enqueue({ partition: 3, host: "a.test", priority: 2, url: "http://a.test/new", depth: 1, hops: 0, kind: "page" }));
  expect(store.isKnown(3, "a.test", "http://a.test/new")).toBe(true);
  expect(store.queuedInPartition(3, undefined, 10).map((q) => q.url)).toEqual([
    "http://a.test/old",
    "http://a.test/new",
    "https://a.test/old-tls",
  ]);
  expect(store.tx(() => store.dropLowestPriority(1)).map((d) => d.url)).toEqual(["https://a.test/old-tls"]);
  store.close();
  const db = new Database(path);
  expect(db.query("SELECT url FROM queue ORDER BY seq").all()).toEqual([{ url: "http://a.test/old" }, { url: "/new" }]);
  // The drop order's index was built again, ascending (read backwards), and is kept with the store.
  expect(dropOrderIndex(db)?.sql).toBe("CREATE INDEX queue_drop_order ON queue (priority, seq)");
  expect(db.query("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({ value: String(SCHEMA_VERSION) });
  db.close();
});

test("schema - scope roots kept without their partition are kept, as no partition's", () => {
  const path = storePath();
  version3Store(path, true);
  const store = FrontierStore.open(path);
  expect(store.scopeRoots.list()).toEqual(["a.test"]);
  expect(store.scopeRoots.inPartition(3)).toEqual([]);
  store.tx(() => store.scopeRoots.add([{ host: "a.test", partition: 3 }]));
  expect(store.scopeRoots.inPartition(3)).toEqual(["a.test"]);
  store.close();
});

test("schema - a version-9 store opens with its sitemaps and feeds job default's, and keeps a job's sitemap after", () => {
  const path = storePath();
  const store9 = FrontierStore.open(path);
  store9.tx(() =>
    store9.sitemaps.offer(
      { partition: 3, host: "a.test", url: "http://a.test/feed.xml", grants: [], fromIndex: false, depth: 0, hops: 0, feed: true },
      1,
      1,
    ),
  );
  store9.close();
  const db = new Database(path);
  asVersion10(db);
  db.exec("ALTER TABLE sitemaps DROP COLUMN job");
  db.exec("UPDATE meta SET value = '9' WHERE key = 'schema'");
  db.close();
  const store = FrontierStore.open(path);
  expect(store.sitemaps.next(3, "a.test")).toMatchObject({ url: "http://a.test/feed.xml", feed: { rereadMs: 0 } });
  expect(store.sitemaps.next(3, "a.test")?.job).toBeUndefined();
  store.tx(() =>
    store.sitemaps.offer(
      { partition: 3, host: "b.test", url: "http://b.test/s.xml", grants: [], fromIndex: false, depth: 0, hops: 0, job: 6 },
      1,
      1,
    ),
  );
  expect(store.sitemaps.next(3, "b.test")?.job).toBe(6);
  store.close();
});

test("schema - a version-10 store's schedule moves into its URLs' rows, each with its time, priority, kind and job, and its table goes", () => {
  const path = storePath();
  const store10 = FrontierStore.open(path, { journal: true });
  const fetched = {
    partition: 3,
    url: "http://a.test/page",
    host: "a.test",
    state: "fetched" as const,
    depth: 2,
    failures: 0,
    lastStatus: 200,
    lastFetchedAt: 1,
    refetchMs: 40,
    etag: '"e"',
    lastModified: null,
    fingerprint: "f",
    simhash: null,
    changedLastVisit: false,
    note: null,
  };
  store10.tx(() => {
    store10.recordFetch(fetched);
    store10.schedule({ partition: 3, url: fetched.url, host: "a.test", priority: 1, depth: 2, dueAt: 41, kind: "page" });
    store10.setUrlState({ partition: 5, url: "http://b.test/x.jpg", host: "b.test", depth: 1 }, "retry-wait", "timeout");
    store10.schedule({ partition: 5, url: "http://b.test/x.jpg", host: "b.test", priority: 3, depth: 1, dueAt: 30, kind: "media", job: 4 });
    // Scheduled with no state row: a version-10 store could hold one.
    store10.schedule({ partition: 3, url: "http://a.test/only", host: "a.test", priority: 2, depth: 1, dueAt: 50, kind: "page" });
  });
  store10.close();
  const db = new Database(path);
  asVersion10(db);
  expect(db.query("SELECT url, due_at FROM scheduled ORDER BY due_at").all()).toEqual([
    { url: "http://b.test/x.jpg", due_at: 30 },
    { url: "http://a.test/page", due_at: 41 },
    { url: "http://a.test/only", due_at: 50 },
  ]);
  expect(db.query("SELECT COUNT(*) AS n FROM urls").get()).toEqual({ n: 2 });
  db.exec("UPDATE meta SET value = '10' WHERE key = 'schema'");
  db.close();
  const store = FrontierStore.open(path, { journal: true });
  expect(store.nextDueAt()).toBe(30);
  expect(store.scheduledCount()).toBe(3);
  expect(store.getUrl(3, fetched.url)).toEqual(fetched);
  expect(store.failingByHost(5)).toEqual([{ host: "b.test", count: 1, firstDueAt: 30, note: "timeout" }]);
  expect(store.takeDue(45, 10)).toEqual([
    { dueAt: 30, url: "http://b.test/x.jpg", host: "b.test", partition: 5, priority: 3, depth: 1, kind: "media", job: 4 },
    { dueAt: 41, url: fetched.url, host: "a.test", partition: 3, priority: 1, depth: 2, kind: "page" },
  ]);
  expect(store.scheduledAt(3, "http://a.test/only")).toBe(50);
  expect(store.getUrl(3, "http://a.test/only")?.state).toBe("queued");
  store.close();
  const after = new Database(path);
  expect(after.query("SELECT name FROM sqlite_schema WHERE name IN ('scheduled', 'scheduled_due', 'urls_due')").all()).toEqual([
    { name: "urls_due" },
  ]);
  after.close();
});

test("schema - pending sitemaps are indexed by offer order: a store with the index of a build before gets it, and reads them in that order", () => {
  const path = storePath();
  const offer = (url: string, now: number) =>
    store.sitemaps.offer({ partition: 2, host: "a.test", url, grants: ["http://a.test"], fromIndex: false, depth: 0, hops: 0 }, now, 0);
  let store = FrontierStore.open(path);
  store.tx(() => {
    offer("http://a.test/z.xml", 10);
    offer("http://a.test/b.xml", 20);
    offer("http://a.test/a.xml", 20);
  });
  store.close();
  // As a build before this index leaves the store: its own index of pending sitemaps instead.
  const db = new Database(path);
  db.exec("DROP INDEX sitemaps_pending_by_offer; CREATE INDEX sitemaps_pending ON sitemaps (state, partition, host)");
  db.close();
  store = FrontierStore.open(path);
  expect(store.sitemaps.pendingFor(2, "a.test")).toBe(3);
  const order: string[] = [];
  for (let row = store.sitemaps.next(2, "a.test"); row; row = store.sitemaps.next(2, "a.test")) {
    order.push(row.url);
    store.tx(() => store.sitemaps.finish(row!, "read", 30));
  }
  expect(order).toEqual(["http://a.test/z.xml", "http://a.test/a.xml", "http://a.test/b.xml"]);
  expect(store.sitemaps.pendingFor(2, "a.test")).toBe(0);
  store.close();
  const after = new Database(path);
  expect(after.query("SELECT name FROM sqlite_schema WHERE name LIKE 'sitemaps_pending%'").all()).toEqual([
    { name: "sitemaps_pending_by_offer" },
  ]);
  after.close();
});

test("schema - a store of a newer version is refused, naming both versions", () => {
  const path = storePath();
  FrontierStore.open(path).close();
  const db = new Database(path);
  db.exec(`UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema'`);
  db.close();
  expect(() => FrontierStore.open(path)).toThrow(`has schema version ${SCHEMA_VERSION + 1}; this build reads 3 to ${SCHEMA_VERSION}`);
});

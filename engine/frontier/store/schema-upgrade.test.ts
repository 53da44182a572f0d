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

/** A store as a version-3 build left it: a queued URL, none of the tables version 4 brought, no URL kinds. */
function version3Store(path: string, scopeRootsWithoutPartition = false): void {
  const store = FrontierStore.open(path);
  store.tx(() => store.enqueue({ partition: 3, host: "a.test", priority: 2, url: "http://a.test/", depth: 0, hops: 0, kind: "page" }));
  store.close();
  const db = new Database(path);
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

test("schema - a store of a newer version is refused, naming both versions", () => {
  const path = storePath();
  FrontierStore.open(path).close();
  const db = new Database(path);
  db.exec(`UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema'`);
  db.close();
  expect(() => FrontierStore.open(path)).toThrow(`has schema version ${SCHEMA_VERSION + 1}; this build reads 3 to ${SCHEMA_VERSION}`);
});

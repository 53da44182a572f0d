import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreDamagedError } from "../../../core/errors/index.ts";
import { SCHEMA_VERSION } from "./schema.ts";
import { openStoreFile } from "./store-file.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "store-file-"));
  dirs.push(dir);
  return join(dir, "frontier.sqlite");
}

const idOf = (db: Database) => (db.query("SELECT value FROM meta WHERE key = 'store-id'").get() as { value: string }).value;

test("store file - opened again, a store keeps its identity and is in WAL mode", () => {
  const path = storePath();
  const first = openStoreFile(path, (db) => db);
  const id = idOf(first);
  first.close();
  const again = openStoreFile(path, (db) => db);
  expect(idOf(again)).toBe(id);
  expect((again.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
  again.close();
});

test("store file - a file that is not SQLite is refused as a damaged store, naming the file", () => {
  const path = storePath();
  writeFileSync(path, "this is not a database, just text ".repeat(200));
  expect(() => openStoreFile(path, (db) => db)).toThrow(StoreDamagedError);
  expect(() => openStoreFile(path, (db) => db)).toThrow(path);
});

test("store file - a store written by a newer build is refused with what to do", () => {
  const path = storePath();
  openStoreFile(path, (db) => db).close();
  const raw = new Database(path);
  raw.query("UPDATE meta SET value = ? WHERE key = 'schema'").run(String(SCHEMA_VERSION + 1));
  raw.close();
  expect(() => openStoreFile(path, (db) => db)).toThrow(/use a new directory/);
});

test("store file - when the caller's use of the new database fails, the database is closed and the error passes through", () => {
  let opened: Database | undefined;
  expect(() =>
    openStoreFile(":memory:", (db) => {
      opened = db;
      throw new Error("could not build the store");
    }),
  ).toThrow("could not build the store");
  expect(() => opened!.query("SELECT 1").get()).toThrow();
});

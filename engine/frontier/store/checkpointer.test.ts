import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackgroundCheckpointer } from "./checkpointer.ts";
import { FrontierStore } from "./frontier-store.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "checkpointer-"));
  dirs.push(dir);
  return join(dir, "frontier.sqlite");
}

/** A WAL-mode database that never checkpoints by itself, with `rows` rows of 1 KB written one commit each. */
function walOnly(path: string, rows: number): Database {
  const db = new Database(path, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA wal_autocheckpoint = 0");
  db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
  const insert = db.query("INSERT INTO t (k, v) VALUES (?, ?)");
  for (let k = 0; k < rows; k++) insert.run(k, new Uint8Array(1024));
  return db;
}

test("checkpointer - copies the WAL into the database on its own thread while the writer's connection stays open", async () => {
  const path = storePath();
  const db = walOnly(path, 200);
  const sizeBefore = statSync(path).size;
  const checkpointer = new BackgroundCheckpointer(path, 5);
  while (checkpointer.runs === 0) await Bun.sleep(5);
  // The file grew by the rows' pages: they were copied from the WAL by the thread, not by this connection.
  expect(statSync(path).size).toBeGreaterThan(sizeBefore + 100 * 1024);
  checkpointer.stop();
  expect((db.query("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n).toBe(200);
  db.close();
});

test("checkpointer - stop right after start returns, and a second stop does nothing", () => {
  const path = storePath();
  const db = walOnly(path, 1);
  const checkpointer = new BackgroundCheckpointer(path);
  const started = performance.now();
  checkpointer.stop();
  checkpointer.stop();
  expect(performance.now() - started).toBeLessThan(5_000);
  db.close();
});

test("checkpointer - a store with background checkpoints closes with its WAL emptied and opens again with its rows", async () => {
  const path = storePath();
  const store = FrontierStore.open(path, { backgroundCheckpoints: true });
  for (let i = 0; i < 50; i++) {
    store.tx(() => {
      for (let j = 0; j < 20; j++) {
        store.enqueue({ partition: 1, host: `h${j}.test`, url: `http://h${j}.test/p${i}`, priority: 2, depth: 1, hops: 0, kind: "page" });
      }
      store.saveSeq();
    });
    await Bun.sleep(1);
  }
  store.close();
  expect(!existsSync(`${path}-wal`) || statSync(`${path}-wal`).size === 0).toBe(true);
  const again = FrontierStore.open(path, { backgroundCheckpoints: true });
  expect(again.totalQueued()).toBe(1_000);
  again.close();
});

import { afterEach, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreDamagedError } from "../../../core/errors/index.ts";
import { FrontierStore } from "./frontier-store.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function storePath(): string {
  const dir = mkdtempSync(join(tmpdir(), "store-damage-"));
  dirs.push(dir);
  return join(dir, "frontier.sqlite");
}

/** A store with enough rows to span many pages, closed cleanly (everything checkpointed into the file). */
function filledStore(path: string): void {
  const store = FrontierStore.open(path);
  store.tx(() => {
    for (let i = 0; i < 5_000; i++) {
      store.enqueue({
        partition: i % 8,
        host: `h${i % 50}.test`,
        priority: 2,
        url: `http://h${i % 50}.test/${"p".repeat(80)}/${i}`,
        depth: 1,
        hops: 0,
        kind: "page",
      });
    }
  });
  store.close();
}

function scribble(path: string, at: number, bytes: number): void {
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.alloc(bytes, 0x41), 0, bytes, at);
  closeSync(fd);
}

test("store damage - a few KB of garbage inside a store is found when it is opened, naming the file", () => {
  const path = storePath();
  filledStore(path);
  scribble(path, 4096 * 20, 4096 * 2);
  let error: unknown;
  try {
    FrontierStore.open(path);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(StoreDamagedError);
  expect((error as StoreDamagedError).path).toBe(path);
  expect((error as Error).message).toContain(path);
});

test("store damage - a file that is not SQLite at all, or whose header is overwritten, is refused as damaged", () => {
  const garbage = storePath();
  writeFileSync(garbage, Buffer.alloc(8192, 0x41));
  expect(() => FrontierStore.open(garbage)).toThrow(StoreDamagedError);
  const torn = storePath();
  filledStore(torn);
  scribble(torn, 0, 100);
  expect(() => FrontierStore.open(torn)).toThrow(StoreDamagedError);
});

test("store damage - a whole store opens, and opens again", () => {
  const path = storePath();
  filledStore(path);
  const store = FrontierStore.open(path);
  expect(store.totalQueued()).toBe(5_000);
  store.close();
});

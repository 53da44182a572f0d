import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockDir } from "./index.ts";

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "dir-lock-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("dir lock - takes LOCK with this pid and removes it on release", () => {
  const dir = freshDir();
  const lock = lockDir(dir);
  expect(lock.ok).toBe(true);
  expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(String(process.pid));
  if (lock.ok) lock.release();
  expect(existsSync(join(dir, "LOCK"))).toBe(false);
});

test("dir lock - refuses while another live process holds it, naming its pid", () => {
  const dir = freshDir();
  writeFileSync(join(dir, "LOCK"), String(process.ppid));
  expect(lockDir(dir)).toEqual({ ok: false, holder: process.ppid });
});

test("dir lock - takes over a lock whose process is gone", () => {
  const dir = freshDir();
  writeFileSync(join(dir, "LOCK"), "2147483646");
  const lock = lockDir(dir);
  expect(lock.ok).toBe(true);
  expect(readFileSync(join(dir, "LOCK"), "utf8")).toBe(String(process.pid));
});

import { expect, test } from "bun:test";
import { isDiskFull, isStoreDamage } from "./disk-errors.ts";

test("disk errors - a full disk is told by code, by message (an error from another thread), or by a cause", () => {
  expect(isDiskFull(Object.assign(new Error("write failed"), { code: "ENOSPC" }))).toBe(true);
  expect(isDiskFull(Object.assign(new Error("x"), { code: "SQLITE_FULL" }))).toBe(true);
  expect(isDiskFull(new Error("ENOSPC: no space left on device, write"))).toBe(true);
  expect(isDiskFull(new Error("store failed", { cause: Object.assign(new Error("x"), { code: "ENOSPC" }) }))).toBe(true);
  expect(isDiskFull(new Error("connection refused"))).toBe(false);
  expect(isDiskFull(undefined)).toBe(false);
});

test("disk errors - a damaged store is told by SQLite's codes or messages, and is not a full disk", () => {
  const corrupt = Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" });
  expect(isStoreDamage(corrupt)).toBe(true);
  expect(isStoreDamage(Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" }))).toBe(true);
  expect(isStoreDamage("database disk image is malformed")).toBe(true);
  expect(isDiskFull(corrupt)).toBe(false);
  expect(isStoreDamage(Object.assign(new Error("x"), { code: "SQLITE_FULL" }))).toBe(false);
});

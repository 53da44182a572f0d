import { expect, test } from "bun:test";
import { MetaTable } from "./meta-table.ts";
import { openStoreFile } from "./store-file.ts";

test("meta table - a value is read back, replaced, and absent until set", () => {
  const meta = new MetaTable(openStoreFile(":memory:", (d) => d));
  expect(meta.get("seq")).toBeUndefined();
  meta.set("seq", "41");
  meta.set("seq", "42");
  expect(meta.get("seq")).toBe("42");
});

test("meta table - a new store already holds its schema version and an identity of its own", () => {
  const one = new MetaTable(openStoreFile(":memory:", (d) => d));
  const two = new MetaTable(openStoreFile(":memory:", (d) => d));
  expect(Number(one.get("schema"))).toBeGreaterThan(0);
  expect(one.get("store-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(one.get("store-id")).not.toBe(two.get("store-id"));
});

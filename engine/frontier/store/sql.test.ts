import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { countOf, kindCode, MultiRowInsert } from "./sql.ts";

test("sql - a multi-row insert writes every row and prepares one statement per row count", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (a INTEGER, b TEXT)");
  const insert = new MultiRowInsert(db, "INSERT INTO t (a, b) VALUES ", "(?, ?)");
  expect(insert.of(3).run(1, "x", 2, "y", 3, "z").changes).toBe(3);
  expect(insert.of(3)).toBe(insert.of(3));
  expect(insert.of(1).run(4, "w").changes).toBe(1);
  expect(countOf(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM t"))).toBe(4);
});

test("sql - a count with no row is zero, and a URL kind is stored as 0 for a page and 1 for media", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (n INTEGER)");
  expect(countOf(db.query<{ n: number }, []>("SELECT n FROM t"))).toBe(0);
  expect([kindCode("page"), kindCode(undefined), kindCode("media")]).toEqual([0, 0, 1]);
});

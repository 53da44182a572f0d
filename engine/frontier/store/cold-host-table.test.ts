import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { type ColdHost, ColdHostTable } from "./cold-host-table.ts";

const cold = (host: string, queued: number, dueAt = 0): ColdHost => ({ host, partition: 1, dueAt, queued, before: false, lostAt: 0 });

test("cold host table - the queued bound is never below a cold host's count, through adds, bumps and takes", () => {
  const table = new ColdHostTable(new Database(":memory:"));
  const hosts = Array.from({ length: 2_000 }, (_, i) => `h${i}.test`);
  for (const [i, h] of hosts.entries()) table.add(cold(h, i % 7, i));
  for (const [i, h] of hosts.entries()) if (i % 3 === 0) table.bump(h, 5);
  table.add(cold("h1.test", 4)); // made cold again: counts add up
  table.takeDue(500, 300);
  table.take("h1999.test");
  for (const h of hosts) {
    const row = table.get(h);
    if (row) expect(table.queuedAtMost(h)).toBeGreaterThanOrEqual(row.queued);
  }
  expect(table.count()).toBe(2_000 - 300 - 1);
});

test("cold host table - rows left by an earlier process make the bound unknown until the table is cleared", () => {
  const db = new Database(":memory:");
  new ColdHostTable(db).add(cold("old.test", 3));
  const table = new ColdHostTable(db);
  expect(table.queuedAtMost("old.test")).toBe(Number.POSITIVE_INFINITY);
  table.clear();
  expect(table.queuedAtMost("old.test")).toBe(0);
  table.add(cold("old.test", 2));
  expect(table.queuedAtMost("old.test")).toBeGreaterThanOrEqual(2);
});

test("cold host table - a bump of a host that is not cold adds nothing to the bound", () => {
  const table = new ColdHostTable(new Database(":memory:"));
  expect(table.bump("warm.test", 10)).toBe(false);
  expect(table.queuedAtMost("warm.test")).toBe(0);
});

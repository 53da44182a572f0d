import { describe, expect, test } from "bun:test";
import type { Change } from "./changes.ts";
import { RobotsTable, type StoredRobots } from "./robots-table.ts";
import { openStoreFile } from "./store-file.ts";

function setup() {
  const notes: Array<[number, Change]> = [];
  const robots = new RobotsTable(
    openStoreFile(":memory:", (d) => d),
    (p, c) => void notes.push([p, c]),
  );
  return { robots, notes };
}

const parsed: StoredRobots = { verdict: "parse", body: "User-agent: *\nDisallow: /private", fetchedAt: 1_000, expiresAt: 2_000 };

describe("robots table", () => {
  test("robots table - a robots.txt to parse reads back with its text; a verdict without text has none", () => {
    const { robots } = setup();
    robots.put("a.test", 1, parsed);
    robots.put("down.test", 1, { verdict: "disallow-all", fetchedAt: 1_000, expiresAt: 1_500 });
    expect(robots.get("a.test")).toEqual(parsed);
    expect(robots.get("down.test")).toEqual({ verdict: "disallow-all", body: undefined, fetchedAt: 1_000, expiresAt: 1_500 });
    expect(robots.get("never.test")).toBeUndefined();
  });

  test("robots table - fetched again, the newer verdict replaces the older", () => {
    const { robots } = setup();
    robots.put("a.test", 1, { verdict: "disallow-all", fetchedAt: 1_000, expiresAt: 1_500 });
    robots.put("a.test", 1, { verdict: "allow-all", fetchedAt: 2_000, expiresAt: 3_000 });
    expect(robots.get("a.test")?.verdict).toBe("allow-all");
  });

  test("robots table - each save is journaled under its partition; a partition's verdicts move and go together", () => {
    const { robots, notes } = setup();
    robots.put("a.test", 1, parsed);
    robots.put("b.test", 2, { verdict: "allow-all", fetchedAt: 1, expiresAt: 2 });
    expect(notes[0]).toEqual([1, ["r", "a.test", "parse", parsed.body!, 1_000, 2_000]]);
    expect([...robots.inPartition(1).keys()]).toEqual(["a.test"]);
    robots.deletePartition(1);
    expect(robots.get("a.test")).toBeUndefined();
    expect(robots.get("b.test")).toBeDefined();
  });
});

import { describe, expect, test } from "bun:test";
import type { Change } from "./changes.ts";
import { ScheduleTable, type ScheduledUrl } from "./schedule-table.ts";
import { openStoreFile } from "./store-file.ts";
import { UrlTable } from "./url-table.ts";

function setup() {
  const db = openStoreFile(":memory:", (d) => d);
  const notes: Array<[number, Change]> = [];
  const note = (p: number, c: Change) => void notes.push([p, c]);
  return { schedule: new ScheduleTable(db, note), urls: new UrlTable(db, () => {}), notes };
}

const due = (url: string, dueAt: number, partition = 0): ScheduledUrl => ({
  dueAt,
  url,
  host: "a.test",
  partition,
  priority: 2,
  depth: 1,
  kind: "page",
});

describe("schedule table", () => {
  test("schedule table - hands out only what is due, earliest first, and forgets what it handed out", () => {
    const { schedule } = setup();
    schedule.put(due("http://a.test/later", 3_000));
    schedule.put(due("http://a.test/b", 2_000));
    schedule.put(due("http://a.test/a", 1_000));
    expect(schedule.nextDueAt()).toBe(1_000);
    expect(schedule.takeDue(2_500, 10).map((s) => s.url)).toEqual(["http://a.test/a", "http://a.test/b"]);
    expect(schedule.takeDue(2_500, 10)).toEqual([]);
    expect(schedule.nextDueAt()).toBe(3_000);
    expect(schedule.count()).toBe(1);
  });

  test("schedule table - scheduling a URL again replaces its time, and a media file stays a media file", () => {
    const { schedule } = setup();
    schedule.put(due("http://a.test/x", 5_000));
    schedule.put({ ...due("http://a.test/x", 9_000), kind: "media" });
    expect(schedule.dueAt(0, "http://a.test/x")).toBe(9_000);
    expect(schedule.takeDue(10_000, 10)).toEqual([{ ...due("http://a.test/x", 9_000), kind: "media" }]);
    expect(schedule.nextDueAt()).toBeUndefined();
  });

  test("schedule table - summaries group by the URL's state and name the hosts whose fetches fail", () => {
    const { schedule, urls } = setup();
    schedule.put(due("http://a.test/retry", 1_000));
    schedule.put(due("http://a.test/refetch", 5_000));
    urls.setState({ partition: 0, host: "a.test", url: "http://a.test/retry", depth: 1 }, "retry-wait", "timeout");
    urls.setState({ partition: 0, host: "a.test", url: "http://a.test/refetch", depth: 1 }, "fetched");
    expect(schedule.byState().sort((a, b) => a.firstDueAt - b.firstDueAt)).toEqual([
      { state: "retry-wait", count: 1, firstDueAt: 1_000 },
      { state: "fetched", count: 1, firstDueAt: 5_000 },
    ]);
    expect(schedule.failingByHost(5)).toEqual([{ host: "a.test", count: 1, firstDueAt: 1_000, note: "timeout" }]);
  });

  test("schedule table - taking and removing are journaled; a partition is read and deleted on its own", () => {
    const { schedule, notes } = setup();
    schedule.put(due("http://a.test/x", 1_000, 3));
    schedule.put(due("http://a.test/y", 1_000, 4));
    schedule.remove(3, "http://a.test/x");
    expect(notes.map(([p, c]) => [p, c[0]])).toEqual([
      [3, "s"],
      [4, "s"],
      [3, "x"],
    ]);
    expect(schedule.inPartition(4).map((s) => s.url)).toEqual(["http://a.test/y"]);
    schedule.deletePartition(4);
    expect(schedule.count()).toBe(0);
  });
});

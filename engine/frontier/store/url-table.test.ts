import { describe, expect, test } from "bun:test";
import type { Change } from "./changes.ts";
import { ScheduleTable } from "./schedule-table.ts";
import { openStoreFile } from "./store-file.ts";
import { UrlTable, type UrlRow } from "./url-table.ts";

function setup() {
  const notes: Array<[number, Change]> = [];
  const urls = new UrlTable(
    openStoreFile(":memory:", (d) => d),
    (p, c) => void notes.push([p, c]),
  );
  return { urls, notes };
}

const fetched = (url: string, partition = 1): UrlRow => ({
  partition,
  url,
  host: "a.test",
  state: "fetched",
  depth: 2,
  failures: 0,
  lastStatus: 200,
  lastFetchedAt: 1_000,
  refetchMs: 86_400_000,
  etag: '"v1"',
  lastModified: null,
  fingerprint: "f1",
  simhash: null,
  changedLastVisit: true,
  note: null,
});

describe("url table", () => {
  test("url table - a fetch result is read back whole, validators and flags included", () => {
    const { urls } = setup();
    urls.put(fetched("http://a.test/p"));
    expect(urls.get(1, "http://a.test/p")).toEqual(fetched("http://a.test/p"));
    expect(urls.has(1, "http://a.test/p")).toBe(true);
    expect(urls.get(2, "http://a.test/p")).toBeUndefined();
  });

  test("url table - setting a state keeps what the last fetch learned and replaces the note", () => {
    const { urls } = setup();
    urls.put(fetched("http://a.test/p"));
    urls.setState({ partition: 1, host: "a.test", url: "http://a.test/p", depth: 2 }, "queued");
    expect(urls.get(1, "http://a.test/p")).toMatchObject({ state: "queued", etag: '"v1"', lastStatus: 200, note: null });
    urls.setState({ partition: 1, host: "a.test", url: "http://a.test/new", depth: 3 }, "dropped", "frontier size limit");
    expect(urls.get(1, "http://a.test/new")).toMatchObject({ state: "dropped", depth: 3, failures: 0, note: "frontier size limit" });
    expect(urls.stateCounts()).toEqual({ queued: 1, dropped: 1 });
    expect(urls.count()).toBe(2);
  });

  test("url table - every write is noted for the journal under the URL's partition", () => {
    const { urls, notes } = setup();
    urls.put(fetched("http://a.test/p", 4));
    urls.setState({ partition: 4, host: "a.test", url: "http://a.test/p", depth: 2 }, "gone", "410");
    expect(notes.map(([p, c]) => [p, c[0]])).toEqual([
      [4, "u"],
      [4, "us"],
    ]);
    expect(notes[1]![1]).toEqual(["us", "http://a.test/p", "a.test", "gone", 2, "410"]);
  });

  test("url table - a result and its refetch written at once leave what a put and a schedule leave, and journal both", () => {
    const db = openStoreFile(":memory:", (d) => d);
    const notes: Array<[number, Change]> = [];
    const urls = new UrlTable(db, (p, c) => void notes.push([p, c]));
    const schedule = new ScheduleTable(db, (p, c) => void notes.push([p, c]));
    const next = {
      dueAt: 9_000,
      url: "http://a.test/p",
      host: "a.test",
      partition: 4,
      priority: 1 as const,
      depth: 2,
      kind: "media" as const,
      job: 3,
    };
    urls.putScheduled(fetched("http://a.test/p", 4), next);
    const once = { row: urls.get(4, "http://a.test/p"), due: schedule.inPartition(4), notes: notes.splice(0) };
    urls.put(fetched("http://a.test/q", 4));
    schedule.put({ ...next, url: "http://a.test/q" });
    const twice = {
      row: urls.get(4, "http://a.test/q"),
      due: schedule.inPartition(4).filter((d) => d.url.endsWith("q")),
      notes: notes.splice(0),
    };
    expect(once.row).toEqual({ ...twice.row!, url: "http://a.test/p" });
    expect(once.due).toEqual([next]);
    expect(twice.due).toEqual([{ ...next, url: "http://a.test/q" }]);
    expect(once.notes.map(([p, c]) => [p, c[0]])).toEqual([
      [4, "u"],
      [4, "s"],
    ]);
    expect(once.notes[1]![1]).toEqual(["s", "http://a.test/p", "a.test", 1, 2, 9_000, "media", 3]);
    expect(twice.notes[1]![1]).toEqual(["s", "http://a.test/q", "a.test", 1, 2, 9_000, "media", 3]);
    // A later write of the row keeps the schedule; another URL's schedule is refused.
    urls.put({ ...fetched("http://a.test/p", 4), state: "gone" });
    expect(schedule.dueAt(4, "http://a.test/p")).toBe(9_000);
    expect(() => urls.putScheduled(fetched("http://a.test/p", 4), { ...next, url: "http://a.test/r" })).toThrow(/another URL/);
  });

  test("url table - a partition is paged in URL order and deleted without touching the others", () => {
    const { urls } = setup();
    for (const u of ["http://a.test/c", "http://a.test/a", "http://a.test/b"]) urls.put(fetched(u, 7));
    urls.put(fetched("http://a.test/other", 8));
    expect(urls.keysInPartition(7, "", 2)).toEqual(["http://a.test/a", "http://a.test/b"]);
    expect(urls.inPartition(7, "http://a.test/b", 10).map((r) => r.url)).toEqual(["http://a.test/c"]);
    urls.deletePartition(7);
    expect(urls.anyIn(7)).toBe(false);
    expect(urls.anyIn(8)).toBe(true);
  });
});

import { describe, expect, test } from "bun:test";
import { RecentUrlLog } from "./recent-url-log.ts";
import { openStoreFile } from "./store-file.ts";

const urls = Array.from({ length: 150 }, (_, i) => `http://a.test/${i}`);

describe("recent url log", () => {
  test("recent url log - admissions are replayed in order, across statement chunks, from any point", () => {
    const log = new RecentUrlLog(
      openStoreFile(":memory:", (d) => d),
      true,
    );
    log.addMany(urls);
    expect(log.since(0, 1_000).map((r) => r.url)).toEqual(urls);
    const tenth = log.since(0, 10).at(-1)!.id;
    expect(log.since(tenth, 3).map((r) => r.url)).toEqual(urls.slice(10, 13));
    expect(log.maxId()).toBe(log.since(0, 1_000).at(-1)!.id);
  });

  test("recent url log - a snapshot's trim forgets what it covers and keeps the rest", () => {
    const log = new RecentUrlLog(
      openStoreFile(":memory:", (d) => d),
      true,
    );
    log.addMany(urls.slice(0, 5));
    const covered = log.maxId();
    log.addMany(urls.slice(5, 7));
    log.trim(covered);
    expect(log.since(0, 100).map((r) => r.url)).toEqual(urls.slice(5, 7));
  });

  test("recent url log - without the log (a cluster's seen-set needs no replay) nothing is written", () => {
    const log = new RecentUrlLog(
      openStoreFile(":memory:", (d) => d),
      false,
    );
    log.addMany(urls);
    expect(log.since(0, 1_000)).toEqual([]);
    expect(log.maxId()).toBe(0);
  });
});

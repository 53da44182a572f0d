/**
 * Broken and full disks under `crawl`. A store with garbage written into it is refused at start with a
 * message that names the file, says what it held, what is safe and what to do, and exits 1 (no stack).
 * A disk that fills up mid-crawl (a small tmpfs, tests/support/small-disk.ts) pauses the crawl, which says
 * so, and the crawl goes on by itself once there is room: every expected page is fetched, politely, every
 * WARC file reads whole (no torn record), and the store opens cleanly afterwards.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { FrontierStore } from "../../../engine/frontier/index.ts";
import { mountSmallDisk } from "../../support/small-disk.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  missing,
  pageRequests,
  parseSummary,
  readAllRecords,
  useHarness,
  waitFor,
} from "./harness.ts";

const h = useHarness();
const MIN_GAP_MS = 300;

describe("crawl: broken and full disks", () => {
  test("a store with a few KB of garbage in it: exit 1 with which file, what it held, what is safe and what to do, no stack", async () => {
    const web = await h.web({ hosts: 2, pagesPerHost: 4, linksPerPage: 3, pageBytes: 2000 });
    const seeds = ["site0.test", "site1.test"].map((host) => web.url(host));
    const out = h.tempDir();
    const argv = crawlArgs(web, seeds, out, ["--min-gap", "0"]);
    const first = await h.crawl(argv, { out }).waitExit(60_000);
    expect(first.code).toBe(0);
    const store = join(out, "frontier.sqlite");
    const fd = openSync(store, "r+");
    writeSync(fd, Buffer.alloc(6 * 1024, 0x41), 0, 6 * 1024, 0);
    closeSync(fd);

    const again = await h.crawl(argv, { out }).waitExit(30_000);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${store} is damaged`);
    expect(again.stderr).toContain("It holds the queue");
    expect(again.stderr).toContain(`Safe: every page fetched so far, in ${join(out, "warc")}`);
    expect(again.stderr).toContain(".recover");
    expect(again.stderr).toContain("start over");
    expect(again.stderr).not.toMatch(/\n\s+at |SQLiteError/);
  }, 90_000);

  test("a damaged jobs.sqlite: exit 1 naming it and what it holds (the jobs' records, not the queue), no stack", async () => {
    const web = await h.web({ hosts: 1, pagesPerHost: 3, linksPerPage: 2, pageBytes: 2000 });
    const out = h.tempDir();
    const argv = crawlArgs(web, [web.url("site0.test")], out, ["--min-gap", "0"]);
    expect((await h.crawl(argv, { out }).waitExit(60_000)).code).toBe(0);
    const jobs = join(out, "jobs.sqlite");
    const fd = openSync(jobs, "r+");
    writeSync(fd, Buffer.alloc(6 * 1024, 0x41), 0, 6 * 1024, 0);
    closeSync(fd);
    const again = await h.crawl(argv, { out }).waitExit(30_000);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${jobs} is damaged`);
    expect(again.stderr).toContain("crawl jobs' records");
    expect(again.stderr).not.toContain("It holds the queue");
    expect(again.stderr).not.toMatch(/\n\s+at |SQLiteError/);
  }, 90_000);

  test("a disk that fills up mid-crawl pauses the crawl, which says so and finishes once there is room: no page lost, no torn WARC record", async () => {
    const disk = mountSmallDisk(24 * 1024 * 1024);
    try {
      const web = await h.web({ hosts: 4, pagesPerHost: 10, linksPerPage: 5, pageBytes: 20_000 });
      const seeds = ["site0.test", "site1.test", "site2.test", "site3.test"].map((host) => web.url(host));
      const expected = web.expectedPages(seeds);
      const out = join(disk.dir, "out");
      mkdirSync(out);
      const run = h.crawl(crawlArgs(web, seeds, out, ["--min-gap", `${MIN_GAP_MS}ms`, "--max-duration", "120s"]), { out });
      await waitFor(() => pageRequests(web).length >= expected.pages.size / 4, { timeoutMs: 30_000, what: "a quarter of the pages", run });
      disk.fill(0);
      await waitFor(() => run.stderr().includes("is full"), { timeoutMs: 30_000, what: "the crawl to say the disk is full", run });
      const pausedAt = pageRequests(web).length;
      expect(pausedAt).toBeLessThan(expected.pages.size);
      disk.free();
      await waitFor(() => run.stderr().includes("room on the disk"), {
        timeoutMs: 30_000,
        what: "the crawl to say there is room again",
        run,
      });
      const exit = await run.waitExit(120_000);
      expectCleanExit(exit);
      expect(parseSummary(exit.stdout, run).reason).toBe("done");

      const pages = pageRequests(web);
      expect(missing(expected.pages, fetchCounts(pages).keys())).toEqual([]);
      expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
      // Every WARC file reads whole (a torn gzip member would throw), and every expected page is in one.
      const records = await readAllRecords(out);
      const stored = new Set(records.filter((r) => r.type === "response").map((r) => r.url ?? ""));
      expect(missing(expected.pages, stored)).toEqual([]);
      const store = FrontierStore.open(join(out, "frontier.sqlite"));
      expect(store.totalQueued()).toBe(0);
      store.close();
    } finally {
      disk.unmount();
    }
  }, 240_000);
});

/**
 * The same content under several URLs is fetched (the crawler cannot know before) but stored once; pages
 * that differ by a word are near-duplicates, stored and counted as such.
 */
import { describe, expect, test } from "bun:test";
import {
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  readAllRecords,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

describe("crawl: duplicate content", () => {
  test("byte-identical pages under different URLs are stored once; near-duplicates are stored and counted", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "dup.test";
    const mustFetch = (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: `every page of ${host}`,
    });
    const { exit, summary } = await interrupt(run);
    expect(exit.code).toBe(0);
    expect(repeated(pageRequests(web))).toEqual({});

    const stored = (await readAllRecords(out)).filter((r) => r.type === "response" && r.status === 200).map((r) => r.url!);
    const identical = ["/a", "/b", "/copy/a", "/c?ref=1"].map((p) => web.url(host, p));
    expect(stored.filter((u) => identical.includes(u)).length).toBe(1);
    for (const p of ["/", "/near/1", "/near/2", "/other"]) expect(stored).toContain(web.url(host, p));
    expect(stored.length).toBe(new Set(stored).size);
    expect(summary.counters["content.exact-duplicates"]).toBe(3);
    expect(summary.counters["content.near-duplicates"]).toBeGreaterThanOrEqual(1);
  }, 45_000);
});

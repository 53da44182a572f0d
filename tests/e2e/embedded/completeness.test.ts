/**
 * Completeness: crawling the normal hosts of the test web to exhaustion fetches exactly the pages a
 * correct crawler reaches from the seed (the test web's own breadth-first walk), each once, and none
 * that robots.txt forbids.
 */
import { describe, expect, test } from "bun:test";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  parseSummary,
  probeRequests,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

describe("crawl: completeness", () => {
  test("a crawl from one seed fetches exactly the reachable allowed pages, each once", async () => {
    const web = await h.web({ hosts: 3, pagesPerHost: 8, linksPerPage: 8, pageBytes: 4000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    // The walk must reach more than the seed's host, or the test would not exercise cross-host links.
    expect(expected.hosts.size).toBeGreaterThan(1);
    expect(expected.disallowed.size).toBeGreaterThan(0);

    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [seed], out, ["--max-duration", "60s"]), { out });
    const stillMissing = () => missing(expected.pages, fetchCounts(pageRequests(web)).keys());
    await waitUntilIdle(run, () => stillMissing().length === 0, {
      timeoutMs: 30_000,
      what: "every expected page to be requested",
      detail: () => `missing: ${stillMissing().join(", ")}`,
    });
    const { exit, summary } = await interrupt(run);

    expectCleanExit(exit);
    expect(summary.queued).toBe(0);
    const pages = pageRequests(web);
    expect([...fetchCounts(pages).keys()].sort()).toEqual([...expected.pages].sort());
    expect(repeated(pages)).toEqual({});
    // Every host crawled is asked for /sitemap.xml once (its robots.txt names none; the test web answers 404).
    expect(
      probeRequests(web)
        .map((r) => r.host)
        .sort(),
    ).toEqual([...expected.hosts].sort());
    for (const url of expected.disallowed) expect(fetchCounts(web.requests).has(url)).toBe(false);
    expect(summary.pagesFetched).toBe(expected.pages.size);
  }, 60_000);

  test("--max-pages stops the crawl cleanly after that many pages", async () => {
    const web = await h.web({ hosts: 3, pagesPerHost: 8, linksPerPage: 8, pageBytes: 2000 });
    const seed = web.url("site0.test");
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [seed], out, ["--max-pages", "7"]), { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    const summary = parseSummary(exit.stdout, run);
    expect(summary.reason).toBe("max-pages");
    expect(summary.pagesFetched).toBe(7);
    expect(pageRequests(web).length).toBe(7);
    expect(summary.resumeCommand).toBe(`bun run crawl ${crawlArgs(web, [seed], out, ["--max-pages", "7"]).join(" ")}`);
  }, 40_000);

  test("a crawl with nothing left to fetch ends by itself and reports done", async () => {
    const web = await h.web({ hosts: 2, pagesPerHost: 4, linksPerPage: 4, pageBytes: 2000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [seed], out), { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    const summary = parseSummary(exit.stdout, run);
    expect(summary.reason).toBe("done");
    expect([...fetchCounts(pageRequests(web)).keys()].sort()).toEqual([...expected.pages].sort());
  }, 40_000);
});

/**
 * Hosts that fail: two never finish a response (one drips a byte every 500 ms, one never answers) and end
 * as timeouts after --response-timeout, counted as such, while the crawl of every other host goes on; one
 * answers 404, 410, 403 and 500, each recorded once and not retried within the crawl.
 */
import { describe, expect, test } from "bun:test";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  pathsOf,
  readAllRecords,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const TIMEOUT_MS = 2000;

describe("crawl: failing hosts", () => {
  test("a dripping and a hanging host time out without stalling the other hosts", async () => {
    const web = await h.web({ hosts: 3, pagesPerHost: 20, linksPerPage: 8, pageBytes: 3000, special: true });
    const slowHosts = ["drip.test", "hang.test"];
    const normalSeeds = ["site0.test", "site1.test", "site2.test"].map((host) => web.url(host));
    const expected = web.expectedPages(normalSeeds);
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(web, [...slowHosts.map((host) => web.url(host)), ...normalSeeds], out, [
        "--response-timeout",
        `${TIMEOUT_MS}ms`,
        "--connect-timeout", // may not exceed the response timeout
        "1s",
        "--max-duration",
        "60s",
        // A host whose home page timed out backs off (half a minute and more) before its /sitemap.xml probe,
        // which would keep the crawl from idling in this test's time; this test is about the pages.
        "--sitemaps",
        "robots",
      ]),
      { out },
    );
    const homeOf = (host: string) => web.requestsTo(host).find((r) => r.path === "/");
    const fetched = () => fetchCounts(pageRequests(web)).keys();
    await waitUntilIdle(
      run,
      () => slowHosts.every((host) => (homeOf(host)?.endedAt ?? Infinity) < Infinity) && missing(expected.pages, fetched()).length === 0,
      {
        timeoutMs: 30_000,
        what: "the slow hosts to be given up and the normal hosts crawled",
        detail: () => `missing: ${missing(expected.pages, fetched()).join(", ")}`,
      },
    );
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    for (const host of slowHosts) {
      const home = homeOf(host)!;
      // The crawler gave up (closed the connection) after its response timeout, not before; that the
      // timeout ended it (and not the stop) the summary's timeout count below says.
      expect(home.completed).toBe(false);
      expect(home.endedAt - home.startedAt).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
      // A timed-out page is retried after an hour, not now.
      expect(pathsOf(web, host).filter((p) => p === "/").length).toBe(1);
      // Nothing of the half-read drip was followed.
      expect(pathsOf(web, host)).not.toContain("/never");
    }
    expect(summary.counters["fetch.network-error.timeout"]).toBe(2);

    // While hang.test held its request open, the other hosts were fetched as usual.
    const hang = homeOf("hang.test")!;
    const during = pageRequests(web, expected.hosts).filter((r) => r.startedAt > hang.startedAt && r.startedAt < hang.endedAt);
    expect(during.length).toBeGreaterThanOrEqual(10);
    expect([...fetchCounts(pageRequests(web, expected.hosts)).keys()].sort()).toEqual([...expected.pages].sort());
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 45_000);

  test("error answers are recorded once each and the crawl goes on", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "errors.test";
    const mustFetch = (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: `every page of ${host}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    expect(repeated(pageRequests(web))).toEqual({});
    for (const status of [404, 410, 403, 500]) expect(summary.counters[`fetch.status.${status}`]).toBe(1);
    const stored = (await readAllRecords(out)).filter((r) => r.type === "response" && r.url?.startsWith(web.url(host)));
    expect(Object.fromEntries(stored.map((r) => [new URL(r.url!).pathname, r.status]))).toMatchObject({
      "/404": 404,
      "/410": 410,
      "/403": 403,
      "/500": 500,
      "/ok": 200,
    });
  }, 45_000);
});

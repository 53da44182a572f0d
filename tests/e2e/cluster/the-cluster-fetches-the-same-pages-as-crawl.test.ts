/**
 * Completeness across roles: a local cluster (`bun run cluster up`: 2 frontier nodes, 2 fetch nodes)
 * seeded through `crawlctl seed add` fetches, by the time it is idle, exactly the pages a correct crawler
 * reaches from the seeds (the test web's own breadth-first walk), each once, and exactly the pages
 * `crawl` (embedded mode) fetches from the same web with the same policy.
 */
import { describe, expect, test } from "bun:test";
import { crawlArgs, interrupt, useHarness, waitUntilIdle } from "../embedded/harness.ts";
import { assertPolite, gapPolicyOf } from "../politeness.ts";
import { fetchCounts, MIN_GAP_MS, missing, pageRequests, repeated, useCluster, waitForIdle } from "./harness.ts";

const embedded = useHarness();
const cluster = useCluster();

describe("cluster: the pages it fetches", () => {
  test("the cluster fetches exactly the expected pages, each once, and the same set as crawl", async () => {
    const web = await cluster.web({ hosts: 4, pagesPerHost: 8, linksPerPage: 8, pageBytes: 3000 });
    const seeds = [web.url("site0.test"), web.url("site2.test")];
    const expected = web.expectedPages(seeds);
    // The walk must cross hosts and meet robots.txt, or the comparison would prove little.
    expect(expected.hosts.size).toBeGreaterThan(2);
    expect(expected.disallowed.size).toBeGreaterThan(0);

    // crawl, on the same web, with the same gap.
    const out = embedded.tempDir();
    const run = embedded.crawl(crawlArgs(web, seeds, out, ["--min-gap", `${MIN_GAP_MS}ms`, "--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 40_000,
      what: "crawl to fetch every expected page",
    });
    await interrupt(run);
    const byCrawl = [...fetchCounts(pageRequests(web)).keys()].sort();
    // The web is the cluster harness's, judged after the test for the cluster's part alone: judge crawl's now.
    assertPolite(web, [gapPolicyOf(run.argv)]);
    web.clearRequests();

    const c = await cluster.up({ web });
    await c.seed(seeds);
    const totals = await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });

    const pages = pageRequests(web);
    const byCluster = [...fetchCounts(pages).keys()].sort();
    expect(missing(expected.pages, byCluster)).toEqual([]);
    expect(byCluster).toEqual([...expected.pages].sort());
    expect(byCluster).toEqual(byCrawl);
    expect(repeated(pages)).toEqual({});
    for (const url of expected.disallowed) expect(fetchCounts(web.requests).has(url)).toBe(false);
    // The totals agree with the test web: every page fetched is counted once.
    expect(totals.pagesFetched).toBe(expected.pages.size);
  }, 120_000);
});

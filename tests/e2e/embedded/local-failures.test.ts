/**
 * Our own limits are not the host's fault: the egress proxy stops taking connections for a few seconds in
 * the middle of a crawl. The crawl pauses as a whole and says the proxy is the cause, gives every task that
 * met the refusal back untouched, and goes on by itself once the proxy is back: no host is marked
 * unreachable or given a longer gap, every page is fetched exactly once, and the gaps hold.
 */
import { describe, expect, test } from "bun:test";
import { assertPolite, gapPolicyOf } from "../politeness.ts";
import { startTcpGate } from "../../support/tcp-gate.ts";
import { expectCleanExit, fetchCounts, interrupt, missing, pageRequests, repeated, useHarness, waitFor, waitUntilIdle } from "./harness.ts";

const h = useHarness();

describe("crawl: local failures", () => {
  test("a proxy that refuses connections for 3 s pauses the crawl, blames no host, and the crawl resumes by itself", async () => {
    const web = await h.web({ hosts: 8, pagesPerHost: 8, linksPerPage: 4, pageBytes: 2000 });
    const gate = await startTcpGate(web.port);
    try {
      const seeds = Array.from({ length: 8 }, (_, i) => web.url(`site${i}.test`));
      const expected = web.expectedPages(seeds);
      const out = h.tempDir();
      // A short keep-alive, so each request opens its own connection to the proxy and meets the refusals.
      const argv = [...seeds, "--out", out, "--proxy", gate.url, "--min-gap", "300ms", "--keep-alive", "1ms", "--max-duration", "60s"];
      const run = h.crawl(argv, { out });
      const fetched = () => fetchCounts(pageRequests(web)).keys();
      await waitFor(() => pageRequests(web).length >= 12, { timeoutMs: 20_000, what: "12 pages before the outage", run });
      await gate.close();
      const closedAt = web.requests.length;
      await waitFor(() => run.stderr().includes("fetching paused"), {
        timeoutMs: 10_000,
        what: "the crawl to notice the proxy is gone",
        run,
      });
      // A few seconds of outage, as a proxy restarting would have.
      await new Promise((r) => setTimeout(r, 3_000));
      const duringOutage = web.requests.length - closedAt;
      await gate.open();
      await waitUntilIdle(run, () => missing(expected.pages, fetched()).length === 0, {
        timeoutMs: 40_000,
        what: "every page after the proxy came back",
        detail: () => `missing: ${missing(expected.pages, fetched()).join(", ")}`,
      });
      const { exit, summary } = await interrupt(run);
      expectCleanExit(exit);
      // Nothing reached the web while the proxy refused (a request already on its way may finish).
      expect(duringOutage).toBeLessThanOrEqual(8);
      // A request on its way as the proxy went may be dropped by it before the refusals start: either names the proxy.
      expect(exit.stderr).toMatch(
        /fetching paused: the egress proxy (refused the connection or could not be reached|closed a connection before answering)/,
      );
      expect(exit.stderr).toMatch(/fetching again: the local trouble \(proxy-(unreachable|dropped)\) is over after \d+\.\d s/);
      // One warning for the outage, not one per task or per host.
      expect(exit.stderr.match(/fetching paused/g)).toHaveLength(1);
      // The frontier never saw a failure: no host marked unreachable, retried, or slowed by an error.
      expect(Object.keys(summary.counters).filter((k) => k.startsWith("fetch.network-error."))).toEqual([]);
      expect(summary.counters["fetch.local.proxy-unreachable"]).toBeGreaterThanOrEqual(1);
      expect(summary.counters["frontier.abandoned"]).toBe(summary.counters["fetch.local.proxy-unreachable"]);
      // The summary names no host as unreachable or waiting out a failure.
      expect(exit.stdout).not.toMatch(/was unreachable|could not be read|connection was refused/);
      expect(summary.reason).toBe("done");
      expect(repeated(pageRequests(web))).toEqual({});
      expect([...fetched()].sort()).toEqual([...expected.pages].sort());
      assertPolite(web, [gapPolicyOf(argv)]);
    } finally {
      await gate.stop();
    }
  }, 90_000);
});

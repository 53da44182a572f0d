/**
 * A host that pushes back is waited for: after a 429 or 503 with Retry-After (seconds or an HTTP date),
 * the crawler's next request to that host comes no sooner than Retry-After, and the throttled page is
 * fetched once the host answers again.
 */
import { describe, expect, test } from "bun:test";
import { RATELIMIT_COUNT, type TestWeb } from "../../testweb/index.ts";
import { crawlArgs, fetchCounts, interrupt, missing, pageRequests, useHarness, waitUntilIdle } from "./harness.ts";

const h = useHarness();

/** For each throttled response of `host`: how long after it ended the next request started, and the wait owed. */
function waitsAfterThrottle(web: TestWeb, host: string): Array<{ waitedMs: number; owedMs: number }> {
  const log = web.requestsTo(host);
  const out: Array<{ waitedMs: number; owedMs: number }> = [];
  log.forEach((r, i) => {
    const next = log[i + 1];
    if (r.retryAfter === undefined || !next) return;
    out.push({ waitedMs: next.startedAt - r.endedAt, owedMs: r.retryAfterWaitMs ?? Number.NaN });
  });
  return out;
}

describe("crawl: throttling", () => {
  test("after 429 or 503 with Retry-After the host is left alone at least that long, then its pages are fetched", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const hosts = ["ratelimit.test", "unavailable.test"];
    // One crawl per host, side by side: the two hosts serve byte-identical home pages, so a single crawl
    // would rightly skip the second home page as an exact duplicate and never see its links.
    const runs = hosts.map((host) => {
      const out = h.tempDir();
      return { host, run: h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out }) };
    });
    const ok = (host: string) => pageRequests(web, [host]).filter((r) => r.status === 200);
    const mustFetch = (host: string) => (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    await Promise.all(
      runs.map(({ host, run }) =>
        waitUntilIdle(run, () => missing(mustFetch(host), fetchCounts(ok(host)).keys()).length === 0, {
          timeoutMs: 40_000,
          what: `every page of ${host} answered 200`,
          detail: () => `missing: ${missing(mustFetch(host), fetchCounts(ok(host)).keys()).join(", ")}`,
        }),
      ),
    );
    for (const { run } of runs) expect((await interrupt(run)).exit.code).toBe(0);

    const limited = waitsAfterThrottle(web, "ratelimit.test");
    expect(limited.length).toBe(RATELIMIT_COUNT);
    const down = waitsAfterThrottle(web, "unavailable.test");
    expect(down.length).toBe(1);
    for (const { waitedMs, owedMs } of [...limited, ...down]) {
      expect(owedMs).toBeGreaterThan(2000); // the test web asks for about 3 s
      expect(waitedMs).toBeGreaterThanOrEqual(owedMs - 50);
    }
    // Each page answered 200 exactly once: the throttled one was retried, nothing was fetched twice after.
    for (const host of hosts) {
      const counts = fetchCounts(ok(host));
      for (const url of mustFetch(host)) expect(counts.get(url)).toBe(1);
    }
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 60_000);
});

/**
 * Politeness across nodes: with 2 frontier nodes and 2 fetch nodes (the first on Deno when Deno is
 * installed), a crawl of normal and special hosts (robots.txt rules, Crawl-delay, a slow host, 429 with
 * Retry-After) breaks no rule the test web's checker knows, judged on server-side times: never two
 * requests in flight to a host, never a gap below the policy (after robots.txt too), never a page before
 * robots.txt or one it forbids. Both fetch nodes and both frontier nodes must have done part of the work,
 * or "across nodes" would not be tested. The same crawl runs again under `cluster up --secure` (TLS and
 * authentication on gRPC, NATS, Redis and the admin API): security must not cost politeness.
 */
import { describe, expect, test } from "bun:test";
import {
  requireDeno,
  MIN_GAP_MS,
  missing,
  fetchCounts,
  pageRequests,
  urlOf,
  useCluster,
  waitForIdle,
  ownerOf,
  type NodeView,
} from "./harness.ts";

const cluster = useCluster();

/** slow.test answers after 1.5 s: the default 10x multiplier would make this test take a minute. */
const MULTIPLIER = 2;
const SPECIAL = ["robots-disallow.test", "robots-404.test", "robots-redirect.test", "robots-delay.test", "slow.test", "ratelimit.test"];

describe("cluster: politeness", () => {
  for (const secure of [false, true])
    test(`2 frontier and 2 fetch nodes crawl normal and special hosts without a politeness violation${secure ? ", with TLS on every link" : ""}`, async () => {
      requireDeno(); // one fetch node runs on Deno
      const web = await cluster.web({ hosts: 6, pagesPerHost: 8, linksPerPage: 8, pageBytes: 3000, special: true });
      const normal = Array.from({ length: 6 }, (_, i) => web.url(`site${i}.test`));
      const expected = web.expectedPages(normal);
      const mustFetch = new Set([
        ...expected.pages,
        ...SPECIAL.flatMap((host) => (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p))),
      ]);

      const c = await cluster.up({ web, secure, frontiers: 2, fetchers: 2, frontierArgs: ["--gap-fetch-multiplier", String(MULTIPLIER)] });
      await c.seed([...normal, ...SPECIAL.map((host) => web.url(host))]);
      await waitForIdle(c, web, { timeoutMs: 90_000, procs: [c.proc] });

      expect(missing(mustFetch, fetchCounts(pageRequests(web)).keys())).toEqual([]);
      const violations = web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: MULTIPLIER });
      expect(violations.map((v) => v.message)).toEqual([]);
      for (const host of SPECIAL) {
        const forbidden = (web.behaviour(host)?.mustNotFetch ?? []).map((p) => web.url(host, p));
        expect(
          pageRequests(web, [host])
            .map(urlOf)
            .filter((u) => forbidden.includes(u)),
        ).toEqual([]);
      }
      for (const url of expected.disallowed) expect(fetchCounts(web.requests).has(url)).toBe(false);

      // The work was spread: each fetch node fetched pages, each frontier node owned crawled hosts.
      const nodes = await c.nodes();
      const fetchers = nodes.filter((n) => n.role === "fetcher");
      expect(fetchers.map((n) => n.runtime).sort()).toEqual(["bun", "deno"]);
      expect(Object.fromEntries(fetchers.map((n) => [n.id, pagesOf(n) > 0]))).toEqual({ "fetch-1": true, "fetch-2": true });
      const ring = await c.ring();
      const owners = new Set([...expected.hosts, ...SPECIAL].map((host) => ownerOf(ring, host)));
      expect([...owners].sort()).toEqual(["frontier-1", "frontier-2"]);
    }, 150_000);
});

function pagesOf(n: NodeView): number {
  return n.counters["fetcher.tasks.page"] ?? 0;
}

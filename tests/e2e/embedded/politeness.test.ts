/**
 * Politeness and robots.txt on a crawl of normal and special hosts, judged by the test web's own checker
 * on server-side times: never two requests in flight to a host, never a gap below the policy (after
 * robots.txt too), never a disallowed path, never a page before robots.txt, nothing but robots.txt from a
 * host whose robots.txt failed, and a robots.txt Crawl-delay honoured.
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
  urlOf,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const MIN_GAP_MS = 150;
const MULTIPLIER = 2; // slow.test answers after 1.5 s: the default 10x would make this test take a minute

const ROBOTS_HOSTS = [
  "robots-disallow.test",
  "robots-404.test",
  "robots-500.test",
  "robots-redirect.test",
  "robots-delay.test",
  "robots-unreachable.test",
];
/** Hosts that park their queued URLs until robots.txt can be read again: never idle. */
const PARKED = new Set(["robots-500.test", "robots-unreachable.test"]);

describe("crawl: politeness and robots.txt", () => {
  test("a crawl of normal and special hosts breaks no politeness or robots.txt rule", async () => {
    const web = await h.web({ hosts: 4, pagesPerHost: 6, linksPerPage: 6, pageBytes: 3000, special: true });
    const normalSeeds = ["site0.test", "site1.test", "site2.test", "site3.test"].map((host) => web.url(host));
    const specialHosts = [...ROBOTS_HOSTS, "slow.test"];
    const expected = web.expectedPages(normalSeeds);
    const mustFetch = new Set([
      ...expected.pages,
      ...specialHosts.flatMap((host) => (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p))),
    ]);
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(web, [...normalSeeds, ...specialHosts.map((host) => web.url(host))], out, [
        "--min-gap",
        `${MIN_GAP_MS}ms`,
        "--gap-fetch-multiplier",
        String(MULTIPLIER),
        "--max-duration",
        "90s",
      ]),
      { out },
    );
    const fetched = () => fetchCounts(pageRequests(web)).keys();
    await waitUntilIdle(run, () => missing(mustFetch, fetched()).length === 0, {
      timeoutMs: 45_000,
      what: "every page that must be fetched",
      hosts: [...expected.hosts, ...specialHosts.filter((host) => !PARKED.has(host))],
      detail: () => `missing: ${missing(mustFetch, fetched()).join(", ")}`,
    });
    // The failed-robots hosts must have been tried, or "nothing fetched from them" would prove nothing.
    for (const host of PARKED) expect(pathsOf(web, host)).toContain("/robots.txt");
    const { exit } = await interrupt(run);
    expectCleanExit(exit);

    const violations = web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: MULTIPLIER });
    expect(violations.map((v) => v.message)).toEqual([]);

    for (const host of specialHosts) {
      const forbidden = (web.behaviour(host)?.mustNotFetch ?? []).map((p) => web.url(host, p));
      expect(
        pageRequests(web, [host])
          .map(urlOf)
          .filter((u) => forbidden.includes(u)),
      ).toEqual([]);
    }
    for (const host of [...PARKED, "robots-disallow.test"]) {
      expect(pathsOf(web, host).filter((p) => p !== "/robots.txt")).toEqual([]);
    }
    for (const url of expected.disallowed) expect(fetchCounts(web.requests).has(url)).toBe(false);
    // robots.txt redirected: the target was read before any page, and its rule was obeyed.
    expect(pathsOf(web, "robots-redirect.test").slice(0, 2)).toEqual(["/robots.txt", "/robots-real.txt"]);
  }, 60_000);

  test("a host's robots.txt Crawl-delay spaces its requests at least that far apart", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "robots-delay.test";
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out });
    const mustFetch = (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: `every page of ${host}`,
    });
    await interrupt(run);

    const log = web.requestsTo(host);
    expect(log.length).toBe(6); // robots.txt, /, the /sitemap.xml probe, /page/1..3
    // The delay is due in full after every request, robots.txt (which announced it) and the probe included.
    const gaps = log.slice(1).map((r, i) => r.startedAt - log[i]!.endedAt);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(2000);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 40_000);

  test("with --min-gap 0 a host still waits 10 times its last fetch time between requests", async () => {
    // Every answer, robots.txt included, takes 100 ms: long enough that 10x it stands out of timer noise.
    const pages: Record<string, string> = {
      "/robots.txt": "User-agent: *\nDisallow: /private/\n",
      "/": '<a href="/a">a</a> <a href="/b">b</a>',
      "/a": "<p>a</p>",
      "/b": "<p>b</p>",
    };
    const web = await h.web({
      hosts: 1,
      extraHosts: {
        "sluggish.test": {
          description: "answers everything after 100 ms, its /sitemap.xml probe (404) too",
          robots: { kind: "rules", text: pages["/robots.txt"]! },
          servesRobots: true,
          servesSitemap: true,
          serve(_req, res, ctx) {
            const timer = setTimeout(() => {
              const body = pages[ctx.path];
              res.writeHead(body ? 200 : 404, { "content-type": ctx.path === "/robots.txt" ? "text/plain" : "text/html" });
              res.end(body ?? "");
            }, 100);
            res.on("close", () => clearTimeout(timer));
          },
        },
      },
    });
    const host = "sluggish.test";
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--min-gap", "0", "--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => ["/", "/a", "/b"].every((p) => pathsOf(web, host).includes(p)), {
      timeoutMs: 30_000,
      what: `every page of ${host}`,
    });
    await interrupt(run);
    const log = web.requestsTo(host);
    expect(log.length).toBe(5); // robots.txt, /, the /sitemap.xml probe, /a, /b
    // At least 1 s between requests (10 x each 100 ms answer), though no minimum gap was asked for.
    for (let i = 1; i < log.length; i++) expect(log[i]!.startedAt - log[i - 1]!.endedAt).toBeGreaterThanOrEqual(1000);
    expect(web.violations({ minGapMs: 0, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 45_000);
});

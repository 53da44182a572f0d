/**
 * Sitemaps (sitemaps.org) in `crawl`, judged from the test web's request log: the sitemaps robots.txt
 * names are read (an index, a gzip file, one on another host that robots.txt vouches for), their entries
 * fetched, and what the protocol does not let them list (another host, outside their directory, past
 * 50,000 entries or 50 MB) never is; robots.txt rules apply to sitemaps and to their entries; every
 * sitemap request keeps its host's gap (tolerance 0). A lastmod newer than a page's visit brings the page
 * back at once, an older one does not; priority orders a host's pages. A host whose robots.txt names no
 * sitemap is asked for `/sitemap.xml` once (the default `--sitemaps probe`), under its gap, quietly when it
 * has none; `--sitemaps robots` asks none and `--sitemaps off` reads none.
 */
import { describe, expect, test } from "bun:test";
import { SITEMAP_BIG_FILLERS, type HostBehaviour } from "../../testweb/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  parseSummary,
  pathsOf,
  readAllRecords,
  urlOf,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const must = (
  web: {
    behaviour(host: string): { mustFetch?: readonly string[]; mustNotFetch?: readonly string[] } | undefined;
    url(h: string, p?: string): string;
  },
  hosts: string[],
  key: "mustFetch" | "mustNotFetch",
) => hosts.flatMap((host) => (web.behaviour(host)?.[key] ?? []).map((p) => web.url(host, p)));

describe("crawl: sitemaps", () => {
  test("robots.txt sitemaps, an index, a gzip file and a cross-submission are read; nothing they may not list is fetched", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const hosts = ["sitemap-robots.test", "sitemap-store.test", "sitemap-priority.test", "sitemap-lastmod.test", "sitemap-stale.test"];
    const seeds = ["sitemap-robots.test", "sitemap-priority.test", "sitemap-lastmod.test", "sitemap-stale.test"].map((host) =>
      web.url(host),
    );
    const mustFetch = must(web, hosts, "mustFetch");
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, seeds, out, ["--max-duration", "60s"]), { out });
    const lastmodHome = web.url("sitemap-lastmod.test", "/");
    const fetched = () => fetchCounts(pageRequests(web));
    await waitUntilIdle(run, () => missing(mustFetch, fetched().keys()).length === 0 && (fetched().get(lastmodHome) ?? 0) >= 2, {
      timeoutMs: 40_000,
      what: "every sitemap and every page they list",
      detail: () => `missing: ${missing(mustFetch, fetched().keys()).join(", ")}; lastmod home: ${fetched().get(lastmodHome)}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    const requested = pageRequests(web).map(urlOf);
    expect(requested.filter((u) => must(web, hosts, "mustNotFetch").includes(u))).toEqual([]);
    // Nothing but what the sitemaps may list: no other host, nothing outside the store's directory.
    expect(missing(requested, [...mustFetch, web.url("sitemap-store.test", "/robots.txt")])).toEqual([]);
    for (const host of ["elsewhere.test", "third.test"]) expect(web.requestsTo(host)).toEqual([]);
    // The sitemap on sitemap-store.test was asked for only after that host's own robots.txt.
    expect(pathsOf(web, "sitemap-store.test").slice(0, 2)).toEqual(["/robots.txt", "/maps/for-robots.xml"]);
    // Each sitemap once; the lastmod host's home page twice (the sitemap said it changed), the stale one once.
    const counts = fetched();
    for (const sitemap of ["/maps/index.xml", "/maps/pages.xml", "/maps/more.xml.gz"])
      expect(counts.get(web.url("sitemap-robots.test", sitemap))).toBe(1);
    expect(counts.get(lastmodHome)).toBe(2);
    expect(counts.get(web.url("sitemap-stale.test", "/"))).toBe(1);
    // Priority 0.9 before 0.1 on one host, whatever the sitemap's order.
    const order = pathsOf(web, "sitemap-priority.test").filter((p) => p.startsWith("/high/") || p.startsWith("/low/"));
    expect(order).toEqual(["/high/1", "/low/1", "/low/2"]);
    // Every sitemap request kept its host's gap and robots.txt, with no tolerance.
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);

    expect(summary.counters).toMatchObject({
      "sitemap.read.index": 1,
      "sitemap.entries-invalid": 1,
      "sitemap.lastmod-due": 1,
    });
    // pages.xml, more.xml.gz, for-robots.xml and the three single-host sitemaps.
    expect(summary.counters["sitemap.read.urlset"]).toBe(6);
    // elsewhere.test in the index and in pages.xml; /outside and third.test in the store's sitemap.
    expect(summary.counters["sitemap.entries-out-of-location"]).toBe(4);
    const stored = new Set((await readAllRecords(out)).filter((r) => r.type === "response").map((r) => r.url));
    expect(stored.has(web.url("sitemap-robots.test", "/maps/pages.xml"))).toBe(true);
    expect(stored.has(web.url("sitemap-robots.test", "/maps/more.xml.gz"))).toBe(true);
  }, 60_000);

  test("nothing past 50,000 entries is taken", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "sitemap-limits.test";
    const mustFetch = must(web, [host], "mustFetch");
    const out = h.tempDir();
    // The fillers between the kept entries and those past the limit are refused by a URL pattern, so the
    // test need not fetch 49,997 pages. Reading 50,000 entries takes a while: the gap after it, ten times
    // that, is not the point here.
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--deny-urls", "*/filler/*", "--gap-fetch-multiplier", "1"]), { out });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 60_000,
      what: "the sitemap and the pages before its limit",
      detail: () => `missing: ${missing(mustFetch, fetchCounts(pageRequests(web)).keys()).join(", ")}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    const requested = pageRequests(web, [host]).map(urlOf);
    expect(requested.filter((u) => must(web, [host], "mustNotFetch").includes(u))).toEqual([]);
    expect(summary.counters).toMatchObject({
      "sitemap.limit.entries": 1,
      "sitemap.entries": 50_000,
      "admission.rejected.url-denied": SITEMAP_BIG_FILLERS,
    });
    expect(web.violations({ minGapMs: 100, gapMultiplier: 1 }).map((v) => v.message)).toEqual([]);
  }, 90_000);

  test("nothing past 50 MB uncompressed is taken, and reading it through does not swell memory", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "sitemap-huge.test";
    const mustFetch = must(web, [host], "mustFetch");
    const out = h.tempDir();
    // hang.test, whose page never answers, keeps the crawl running while its memory is read.
    const run = h.crawl(crawlArgs(web, [web.url(host), web.url("hang.test")], out, ["--response-timeout", "2m", "--max-duration", "3m"]), {
      out,
    });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 60_000,
      hosts: [host],
      what: "the 50 MB sitemap and the page before its limit",
      detail: () => `missing: ${missing(mustFetch, fetchCounts(pageRequests(web)).keys()).join(", ")}`,
    });
    const peakRss = run.peakRssBytes();
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    const requested = pageRequests(web, [host]).map(urlOf);
    expect(requested.filter((u) => must(web, [host], "mustNotFetch").includes(u))).toEqual([]);
    expect(summary.counters).toMatchObject({ "sitemap.limit.bytes": 1, "sitemap.entries": 1 });
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    // 52 MB went through as a stream: this crawl peaks near 125 MB (VmHWM, garbage not yet collected
    // included). One that held the sitemap whole, as text and as bytes, would pass 250 MB.
    expect(peakRss).toBeDefined();
    expect(peakRss!).toBeLessThan(180 * 1024 * 1024);
  }, 90_000);

  test("by default a host whose robots.txt names no sitemap is asked for /sitemap.xml once, under its gap; absent or no sitemap, it is quiet; --sitemaps robots asks none", async () => {
    const soft404: HostBehaviour = {
      description: "/sitemap.xml answers 200 with an HTML page (a soft 404)",
      robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
      servesSitemap: true,
      serve: (_req, res, ctx) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(`<!doctype html><title>${ctx.path}</title><p>Nothing here links anywhere.</p>\n`);
      },
    };
    const web = await h.web({ hosts: 2, pagesPerHost: 4, special: true, extraHosts: { "soft404.test": soft404 } });
    const hosts = ["sitemap-probe.test", "site0.test", "site1.test", "soft404.test"];
    const probed = web.url("sitemap-probe.test", "/probed/1");
    const probesOf = () => web.requests.filter((r) => r.path === "/sitemap.xml").map((r) => r.host);
    for (const mode of ["probe", "robots"] as const) {
      web.clearRequests();
      const out = h.tempDir();
      const run = h.crawl(
        crawlArgs(
          web,
          hosts.map((host) => web.url(host)),
          out,
          mode === "probe" ? [] : ["--sitemaps", mode],
        ),
        { out },
      );
      const exit = await run.waitExit(60_000);
      expectCleanExit(exit);
      const { counters } = parseSummary(exit.stdout, run);
      // The gap, robots.txt and one request at a time hold over every request to a host, the probe included.
      expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
      if (mode === "robots") {
        expect(probesOf()).toEqual([]);
        expect(fetchCounts(pageRequests(web)).has(probed)).toBe(false);
        continue;
      }
      // The default: each host asked once, after robots.txt and its home page, before its other pages.
      expect(probesOf().sort()).toEqual([...hosts].sort());
      expect(pathsOf(web, "sitemap-probe.test")).toEqual(["/robots.txt", "/", "/sitemap.xml", "/probed/1"]);
      expect(pathsOf(web, "site0.test").slice(0, 3)).toEqual(["/robots.txt", "/", "/sitemap.xml"]);
      // Absent (404 on the site hosts) and not a sitemap (soft404.test) are counted as such, not as fetch errors.
      expect(counters).toMatchObject({
        "sitemap.probed": 4,
        "sitemap.probe.absent": 2,
        "sitemap.probe.not-a-sitemap": 1,
        "sitemap.read.urlset": 1,
      });
      expect(counters["fetch.status.404"]).toBeUndefined();
      // Nothing warned about: no warning or error line names a sitemap.
      expect(exit.stderr.split("\n").filter((l) => /"level":"(warn|error)"/.test(l) && l.includes("sitemap"))).toEqual([]);
    }
    web.clearRequests();
    const out = h.tempDir();
    const off = await h.crawl(crawlArgs(web, [web.url("sitemap-robots.test")], out, ["--sitemaps", "off"]), { out }).waitExit(30_000);
    expect(off.code).toBe(0);
    expect(pathsOf(web, "sitemap-robots.test")).toEqual(["/robots.txt", "/"]);
  }, 90_000);
});

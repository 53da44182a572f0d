/**
 * Redirects are not followed inline: each target comes back as a new URL through normalization, the seen
 * check, robots.txt and politeness. So every hop is its own request, fetched once; a loop ends when its
 * pages have been seen; a chain longer than 5 hops is abandoned; a target on another host is fetched
 * from that host, after its robots.txt.
 */
import { describe, expect, test } from "bun:test";
import { LONG_CHAIN } from "../../testweb/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  pathsOf,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

describe("crawl: redirects", () => {
  test("redirect chains are followed hop by hop, each target fetched once, loops and chains over 5 hops stop", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "redirects.test";
    const mustFetch = [...(web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p)), web.url("landing.test", "/from-redirects")];
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out });
    const fetched = () => fetchCounts(pageRequests(web)).keys();
    await waitUntilIdle(run, () => missing(mustFetch, fetched()).length === 0, {
      timeoutMs: 30_000,
      what: "every hop of the redirect chains",
      detail: () => `missing: ${missing(mustFetch, fetched()).join(", ")}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    const pages = pageRequests(web, [host, "landing.test"]);
    expect(repeated(pages)).toEqual({});
    const paths = pathsOf(web, host);
    // The good chain, in order: each hop requested only after the previous one answered.
    const chain = ["/r/1", "/r/2", "/r/3", "/r/4", "/final"];
    expect(paths.filter((p) => chain.includes(p))).toEqual(chain);
    // The loop: both pages once, then the seen-set ends it.
    expect(paths.filter((p) => p.startsWith("/loop/")).sort()).toEqual(["/loop/a", "/loop/b"]);
    // The long chain: /long/1 plus 5 hops, never the 6th hop or the end.
    const long = paths.filter((p) => p.startsWith("/long/"));
    expect(long).toEqual(["/long/1", "/long/2", "/long/3", "/long/4", "/long/5", "/long/6"]);
    for (let i = 7; i <= LONG_CHAIN; i++) expect(paths).not.toContain(`/long/${i}`);
    expect(paths).not.toContain("/long/end");
    // The cross-host hop: landing.test's robots.txt first, then the target (whose link home follows).
    // Sitemaps come before a host's pages (its home page aside): the /sitemap.xml probe, then the target.
    expect(pathsOf(web, "landing.test").slice(0, 3)).toEqual(["/robots.txt", "/sitemap.xml", "/from-redirects"]);
    expect(summary.counters["frontier.redirect-limit"]).toBe(1);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 45_000);

  test("a redirect into a path robots.txt disallows is not followed", async () => {
    const robotsText = "User-agent: *\nDisallow: /private/\n";
    const web = await h.web({
      hosts: 1,
      extraHosts: {
        "sneaky.test": {
          description: "/go redirects into /private/",
          robots: { kind: "rules", text: robotsText },
          serve(_req, res, ctx) {
            if (ctx.path === "/go") {
              res.writeHead(302, { location: "/private/secret", "content-length": "0" }).end();
              return;
            }
            res
              .writeHead(200, { "content-type": "text/html" })
              .end(ctx.path === "/" ? '<a href="/go">go</a> <a href="/open">open</a>' : "<p>leaf</p>");
          },
        },
      },
    });
    const host = "sneaky.test";
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "30s"]), { out });
    await waitUntilIdle(run, () => ["/", "/go", "/open"].every((p) => pathsOf(web, host).includes(p)), {
      timeoutMs: 20_000,
      what: "the redirecting page and its sibling",
    });
    const { summary } = await interrupt(run);
    expect(pathsOf(web, host)).not.toContain("/private/secret");
    expect(summary.counters["robots.disallowed"]).toBe(1);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 30_000);
});

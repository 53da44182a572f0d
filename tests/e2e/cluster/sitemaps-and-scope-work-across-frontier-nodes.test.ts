/**
 * Sitemaps and scope in a cluster of two frontier and two fetch nodes, judged from the test web's request
 * log: with `--scope domain` a seed's registrable domain keeps its other hosts in the crawl even when
 * another frontier node owns them (it learns the seed's domain from the cluster state), and nothing
 * outside it is fetched; robots.txt's sitemaps (an index, a gzip file, a cross-submission on another
 * host, whose entries face the scope like links) are read with every request to a host kept polite, with
 * no tolerance; `crawlctl url explain` and the admin API say why a URL was left out and what became of a
 * sitemap.
 */
import { describe, expect, test } from "bun:test";
import { fetchCounts, MIN_GAP_MS, ownerOf, pageRequests, urlOf, useCluster, waitForIdle, waitForPages } from "./harness.ts";

const cluster = useCluster();
const MULTIPLIER = 2;

interface Explanation {
  normalized: string;
  owner: string;
  state: string;
  scopeRejection: string;
  sitemap: string;
}

describe("cluster: sitemaps and scope", () => {
  test("--scope domain holds across frontier nodes; sitemaps are read politely; url explain names the rule", async () => {
    const web = await cluster.web({ hosts: 1, special: true });
    const c = await cluster.up({
      web,
      frontiers: 2,
      fetchers: 2,
      frontierArgs: ["--scope", "domain", "--gap-fetch-multiplier", String(MULTIPLIER)],
    });
    const ring = await c.ring();
    // Precondition: a host of the seed's domain belongs to the other frontier node, so "across nodes" is tested.
    expect(ownerOf(ring, "shop.scope.test")).not.toBe(ownerOf(ring, "www.scope.test"));

    const seeds = ["www.scope.test", "sitemap-robots.test", "sitemap-priority.test"].map((host) => web.url(host));
    await c.seed(seeds);
    const paths: Record<string, string[]> = {
      "www.scope.test": ["/", "/a", "/files/doc.pdf", "/print/a", "/d/1", "/d/2", "/d/3", "/d/4", "/d/5", "/d/6"],
      "blog.scope.test": ["/", "/post/1"],
      "shop.scope.test": ["/", "/item/1"],
      "sitemap-robots.test": [...(web.behaviour("sitemap-robots.test")?.mustFetch ?? [])],
      // The cross-submitted sitemap is read (robots.txt of a seed's host named it); its own host's page is
      // outside the scope.
      "sitemap-store.test": ["/maps/for-robots.xml"],
      "sitemap-priority.test": [...(web.behaviour("sitemap-priority.test")?.mustFetch ?? [])],
    };
    const want = Object.entries(paths).flatMap(([host, list]) => list.map((p) => web.url(host, p)));
    await waitForPages(web, want, { timeoutMs: 90_000, what: "every page and sitemap the scope keeps", procs: [c.proc] });
    const stats = await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });

    // Exactly what the scope keeps, each once: nothing of outside.test, no archive or image, no page of the
    // store's host, nothing a sitemap may not list.
    const requested = pageRequests(web).map(urlOf);
    expect([...requested].sort()).toEqual([...want].sort());
    expect(Object.values(Object.fromEntries(fetchCounts(pageRequests(web)))).every((n) => n === 1)).toBe(true);
    expect(web.requestsTo("outside.test")).toEqual([]);
    const order = web
      .requestsTo("sitemap-priority.test")
      .map((r) => r.path)
      .filter((p) => p.startsWith("/high/") || p.startsWith("/low/"));
    expect(order).toEqual(["/high/1", "/low/1", "/low/2"]);
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: MULTIPLIER }).map((v) => v.message)).toEqual([]);

    expect(stats.counters["admission.rejected.scope"]).toBeGreaterThanOrEqual(2); // outside.test, sitemap-store.test/maps/own
    expect(stats.counters["admission.rejected.extension"]).toBe(2);
    expect(stats.counters["sitemap.read.index"]).toBe(1);
    expect(stats.counters["sitemap.entries-out-of-location"]).toBe(4);

    const outside = await explain("http://outside.test/");
    expect(outside.scopeRejection).toBe("scope: domain outside.test is not the domain of a seed (--scope domain)");
    expect(outside.state).toBe("unknown");
    expect((await explain("http://sitemap-store.test/maps/own")).scopeRejection).toBe(
      "scope: domain sitemap-store.test is not the domain of a seed (--scope domain)",
    );
    expect((await explain("http://shop.scope.test/item/1")).scopeRejection).toBe("");
    expect((await explain("http://www.scope.test/files/archive.zip")).scopeRejection).toBe("extension: .zip is on the extension deny-list");
    const sitemap = await explain("http://sitemap-robots.test/maps/more.xml.gz");
    expect(sitemap).toMatchObject({ sitemap: "read", scopeRejection: "" });
    expect(sitemap.owner).toBe(ownerOf(ring, "sitemap-robots.test"));
    const text = await c.crawlctl(["url", "explain", "http://outside.test/x"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\s+scope\s+scope: domain outside\.test is not the domain of a seed \(--scope domain\)$/m);

    /** crawlctl's answer, checked against the admin API's. */
    async function explain(url: string): Promise<Explanation> {
      const cli = await c.crawlctlJson<Explanation>(["url", "explain", url]);
      const http = await c.adminJson<{ explanation: Explanation }>(`/v1/urls/explain?url=${encodeURIComponent(url)}`);
      expect(http.explanation).toEqual(cli);
      return cli;
    }
  }, 180_000);
});

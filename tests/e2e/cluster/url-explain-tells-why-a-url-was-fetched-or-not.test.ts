/**
 * `crawlctl url explain` after a crawl, answered by the frontier node that owns the URL's host: a fetched
 * page (seen, allowed, fetched with 200, its partition and owner as the ring says), a page robots.txt
 * forbids (seen, disallowed, the rule named, never fetched) and a URL the normalizer rejects (the reason,
 * no owner asked). The admin API's `GET /v1/urls/explain` gives the same answers.
 */
import { describe, expect, test } from "bun:test";
import { partitionOf } from "../../../core/ring/index.ts";
import { fetchCounts, ownerOf, REGION, useCluster, waitForIdle } from "./harness.ts";

const cluster = useCluster();

interface Explanation {
  input: string;
  normalized: string;
  rejectedReason: string;
  host: string;
  partition: number;
  region: string;
  owner: string;
  seen: boolean;
  robots: string;
  robotsRule: string;
  state: string;
  lastStatus: number;
  lastFetchedAtMs: number;
}

describe("cluster: url explain", () => {
  test("url explain describes a fetched URL, a robots-disallowed one and one the normalizer rejects", async () => {
    const web = await cluster.web({ hosts: 2, pagesPerHost: 4, linksPerPage: 4, pageBytes: 2000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    const c = await cluster.up({ web });
    await c.seed([seed]);
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });
    const ring = await c.ring();

    const fetchedUrl = web.url("site0.test", "/page/1");
    expect(expected.pages.has(fetchedUrl)).toBe(true);
    expect(fetchCounts(web.requests).get(fetchedUrl)).toBe(1);
    const fetched = await explain(fetchedUrl);
    expect(fetched).toMatchObject({
      normalized: fetchedUrl,
      host: "site0.test",
      partition: partitionOf("site0.test", ring.partitions),
      region: REGION,
      owner: ownerOf(ring, "site0.test"),
      seen: true,
      robots: "allowed",
      state: "fetched",
      lastStatus: 200,
    });
    expect(fetched.lastFetchedAtMs).toBeGreaterThan(0);
    const text = await c.crawlctl(["url", "explain", fetchedUrl]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^\s+state\s+fetched, last status 200$/m);

    const forbiddenUrl = web.url("site0.test", "/private/0");
    expect(expected.disallowed.has(forbiddenUrl)).toBe(true);
    expect(fetchCounts(web.requests).has(forbiddenUrl)).toBe(false);
    expect(await explain(forbiddenUrl)).toMatchObject({
      normalized: forbiddenUrl,
      owner: ownerOf(ring, "site0.test"),
      seen: true,
      robots: "disallowed",
      robotsRule: "Disallow: /private/",
      state: "robots-disallowed",
      lastStatus: 0,
    });

    const rejected = await explain("ftp://site0.test/file");
    expect(rejected).toMatchObject({ normalized: "", owner: "", seen: false });
    expect(rejected.rejectedReason).toContain("unsupported-scheme");
    const rejectedText = await c.crawlctl(["url", "explain", "ftp://site0.test/file"]);
    expect(rejectedText.stdout).toMatch(/rejected: unsupported-scheme/);

    /** crawlctl's answer, checked against the admin API's. */
    async function explain(url: string): Promise<Explanation> {
      const cli = await c.crawlctlJson<Explanation>(["url", "explain", url]);
      const http = await c.adminJson<{ explanation: Explanation }>(`/v1/urls/explain?url=${encodeURIComponent(url)}`);
      expect(http.explanation).toEqual(cli);
      return cli;
    }
  }, 90_000);
});

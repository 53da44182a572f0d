/**
 * Crawler traps, infinite URL spaces robots.txt allows, are cut off by the crawler's own limits: with
 * `--max-depth 5` a calendar that links every next and previous day and a path that grows one level per
 * page stop five links from the seed, and a relative link that repeats `a/b/` forever is stopped by the
 * repeated-segment rule. The crawl then goes idle instead of fetching forever.
 */
import { describe, expect, test } from "bun:test";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  pageRequests,
  pathsOf,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const MAX_DEPTH = 5;

/** `/cal/YYYY/MM/DD` of 2025-01-01 plus `offset` days. */
function day(offset: number): string {
  return `/cal/${new Date(Date.UTC(2025, 0, 1 + offset)).toISOString().slice(0, 10).replaceAll("-", "/")}`;
}

describe("crawl: traps", () => {
  test("calendar, ever-deeper and repeating-path traps stop at the depth and repetition limits", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const hosts = ["calendar.test", "deep.test", "repeat.test"];
    // Seed "/" is depth 0 and /cal/2025/01/01 depth 1, so depth 5 reaches four days either side of it.
    const calendar = ["/", ...Array.from({ length: 2 * (MAX_DEPTH - 1) + 1 }, (_, i) => day(i - (MAX_DEPTH - 1)))];
    const deep = ["/", ...Array.from({ length: MAX_DEPTH }, (_, i) => `/d/${Array.from({ length: i + 1 }, (_, j) => j + 1).join("/")}`)];
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(
        web,
        hosts.map((host) => web.url(host)),
        out,
        ["--max-depth", String(MAX_DEPTH), "--max-duration", "60s"],
      ),
      { out },
    );
    // robots.txt and the /sitemap.xml probe (404 on these hosts) are no trap pages.
    const pagePaths = (host: string) => pathsOf(web, host).filter((p) => p !== "/robots.txt" && p !== "/sitemap.xml");
    await waitUntilIdle(
      run,
      () => calendar.every((p) => pagePaths("calendar.test").includes(p)) && deep.every((p) => pagePaths("deep.test").includes(p)),
      { timeoutMs: 30_000, what: "the trap pages within the limits", detail: () => JSON.stringify(hosts.map(pagePaths)) },
    );
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    expect(summary.queued).toBe(0);

    expect(pagePaths("calendar.test").sort()).toEqual(calendar.sort());
    expect(pagePaths("deep.test").sort()).toEqual(deep.sort());
    // /a/b/ then /a/b/a/b/; the next one repeats a segment 3 times and is refused.
    const rep = pagePaths("repeat.test");
    expect(rep.length).toBeGreaterThanOrEqual(2);
    expect(rep.length).toBeLessThanOrEqual(3);
    for (const p of rep) expect(p.split("/").filter((s) => s === "a").length).toBeLessThan(3);
    expect(repeated(pageRequests(web))).toEqual({});
    const rejected = Object.entries(summary.counters).filter(([k]) => k.startsWith("traps.rejected."));
    expect(rejected.length).toBeGreaterThan(0);
    expect(fetchCounts(pageRequests(web)).size).toBe(calendar.length + deep.length + rep.length);
  }, 45_000);
});

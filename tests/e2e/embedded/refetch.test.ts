/**
 * Refetching: a page fetched before is fetched again when its refetch interval has passed, with a
 * conditional GET (If-None-Match / If-Modified-Since from the first response), so an unchanged page costs
 * a 304 and a changed one comes back in full. A crawl with nothing left to fetch ends by itself, leaving
 * its refetches scheduled in the store; running the same command again once they are due fetches them.
 *
 * Slow: the shortest refetch interval the crawler accepts is one minute, so this test takes over a minute.
 * It runs with every other test: a test gated behind a variable CI never sets would prove nothing.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { describe, expect, test } from "bun:test";
import { stableEtag } from "../../testweb/index.ts";
import { crawlArgs, parseSummary, pathsOf, useHarness, waitFor } from "./harness.ts";

const h = useHarness();

/** The latest time a refetch is scheduled for in the crawl's store (read-only, as `crawl stats` reads it). */
function lastDueAt(out: string): number {
  const db = new Database(join(out, "frontier.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT max(due_at) AS due FROM scheduled").get() as { due: number | null }).due ?? Number.NaN;
  } finally {
    db.close();
  }
}

describe("crawl: refetch", () => {
  test("a page due for refetch is asked for conditionally: unchanged pages answer 304, a changed one comes back in full", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "etag.test";
    const paths = ["/", "/page/1", "/page/2", "/changing"];
    const out = h.tempDir();
    const argv = crawlArgs(web, [web.url(host)], out, ["--refetch-initial", "1m", "--refetch-min", "1m", "--max-duration", "120s"]);
    const first = await h.crawl(argv, { out }).waitExit(60_000);
    expect(parseSummary(first.stdout).reason).toBe("done");
    expect(paths.every((p) => pathsOf(web, host).includes(p))).toBe(true);

    // The refetches are in the store, due a minute after each fetch: the same command run once they are due fetches them.
    const due = lastDueAt(out);
    expect(due).toBeGreaterThan(Date.now());
    await waitFor(() => Date.now() > due, { timeoutMs: 90_000, what: "every refetch to be due" });
    const second = await h.crawl(argv, { out }).waitExit(60_000);
    expect(parseSummary(second.stdout).reason).toBe("done");

    const twice = paths.filter((p) => pathsOf(web, host).filter((x) => x === p).length === 2);
    expect(twice).toEqual(paths);
    const again = (p: string) => web.requestsTo(host).filter((r) => r.path === p)[1]!;
    for (const p of ["/", "/page/1", "/page/2"]) {
      expect(again(p).headers["if-none-match"]).toBe(stableEtag(p));
      expect(again(p).status).toBe(304);
    }
    expect(again("/changing").headers["if-none-match"]).toBe('"v1"');
    expect(again("/changing").status).toBe(200);
    // robots.txt is cached for up to a day: not fetched again for the refetch.
    expect(pathsOf(web, host).filter((p) => p === "/robots.txt").length).toBe(1);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 180_000);
});

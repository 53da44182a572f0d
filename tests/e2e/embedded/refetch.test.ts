/**
 * Refetching: a page fetched before is fetched again when its refetch interval has passed, with a
 * conditional GET (If-None-Match / If-Modified-Since from the first response), so an unchanged page costs
 * a 304 and a changed one comes back in full. Two ways: `crawl --continuous` keeps running after its queue
 * is empty and fetches each page again as it falls due (refetch bounds lowered to seconds with
 * --allow-short-refetch, which exists for tests and small sites of one's own; without it such bounds are
 * refused); and a crawl with nothing left to fetch within its --wait-horizon ends by itself, leaving its
 * refetches scheduled in the store, and running the same command again once they are due fetches them.
 *
 * Slow: without --allow-short-refetch the shortest refetch interval is one minute, so the second test takes
 * over a minute. It runs with every other test: a test gated behind a variable CI never sets would prove
 * nothing.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { describe, expect, test } from "bun:test";
import { stableEtag } from "../../testweb/index.ts";
import { expectCleanExit, crawlArgs, interrupt, parseSummary, pathsOf, readAllRecords, useHarness, waitFor } from "./harness.ts";

const h = useHarness();
const SHORT_REFETCH = ["--allow-short-refetch", "--refetch-initial", "4s", "--refetch-min", "2s", "--refetch-max", "1m"];

/** The latest time a refetch is scheduled for in the crawl's store (read-only, as `crawl stats` reads it): since
 * schema 11 a URL's refetch time is its `urls` row's due_at (0: nothing scheduled). */
function lastDueAt(out: string): number {
  const db = new Database(join(out, "frontier.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT max(due_at) AS due FROM urls WHERE due_at > 0").get() as { due: number | null }).due ?? Number.NaN;
  } finally {
    db.close();
  }
}

describe("crawl: refetch", () => {
  test("crawl --continuous asks again when pages are due: 304 for the unchanged ones, new content for the changed one", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "etag.test";
    const paths = ["/", "/page/1", "/page/2", "/changing"];
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--continuous", ...SHORT_REFETCH, "--max-duration", "90s"]), { out });
    const twice = () => paths.every((p) => pathsOf(web, host).filter((x) => x === p).length >= 2);
    await waitFor(() => twice() && web.requestsTo(host).every((r) => r.endedAt < Infinity), {
      timeoutMs: 60_000,
      what: "every page of etag.test to be fetched a second time",
      run,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    expect(summary.reason).toBe("interrupted");

    const visit = (p: string, n: number) => web.requestsTo(host).filter((r) => r.path === p)[n]!;
    for (const p of ["/", "/page/1", "/page/2"]) {
      expect(visit(p, 0).headers["if-none-match"]).toBeUndefined();
      expect(visit(p, 1).headers["if-none-match"]).toBe(stableEtag(p));
      expect(visit(p, 1).headers["if-modified-since"]).toBeDefined();
      expect(visit(p, 1).status).toBe(304);
    }
    expect(visit("/changing", 1).headers["if-none-match"]).toBe('"v1"');
    expect(visit("/changing", 1).status).toBe(200);
    // robots.txt is cached for up to a day: not fetched again for the refetch.
    expect(pathsOf(web, host).filter((p) => p === "/robots.txt").length).toBe(1);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);

    // The WARC has both versions of the changed page and the 304s as they came.
    const records = await readAllRecords(out);
    const changing = records.filter((r) => r.type === "response" && r.url === web.url(host, "/changing"));
    expect(changing.slice(0, 2).map((r) => new TextDecoder().decode(r.payload).match(/Version \d+/)?.[0])).toEqual([
      "Version 1",
      "Version 2",
    ]);
    expect(records.some((r) => r.type === "response" && r.url === web.url(host, "/page/1") && r.status === 304)).toBe(true);
  }, 90_000);

  test("refetch bounds below a minute are refused without --allow-short-refetch", async () => {
    const web = await h.web({ hosts: 1 });
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url("site0.test")], out, ["--refetch-initial", "4s", "--refetch-min", "2s"]), { out });
    const exit = await run.waitExit(20_000);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain("--allow-short-refetch");
    expect(web.requests).toEqual([]);
  }, 30_000);

  test("without --continuous a crawl ends leaving its refetches, and the same command run once they are due asks conditionally: unchanged pages answer 304, a changed one comes back in full", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "etag.test";
    const paths = ["/", "/page/1", "/page/2", "/changing"];
    const out = h.tempDir();
    const argv = crawlArgs(web, [web.url(host)], out, [
      "--refetch-initial",
      "1m",
      "--refetch-min",
      "1m",
      "--wait-horizon",
      "0s",
      "--max-duration",
      "120s",
    ]);
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

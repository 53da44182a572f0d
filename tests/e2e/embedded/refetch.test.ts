/**
 * Refetching, end to end: `crawl --continuous` keeps running after its queue is empty and fetches each page
 * again when its refetch interval has passed, with a conditional GET (If-None-Match / If-Modified-Since from
 * the first response), so an unchanged page costs a 304 and a changed one comes back in full. The test
 * lowers the refetch bounds to seconds with --allow-short-refetch (the switch exists for tests and small
 * sites of one's own); without it such bounds are refused.
 */
import { describe, expect, test } from "bun:test";
import { stableEtag } from "../../testweb/index.ts";
import { crawlArgs, interrupt, pathsOf, readAllRecords, useHarness, waitFor } from "./harness.ts";

const h = useHarness();
const SHORT_REFETCH = ["--allow-short-refetch", "--refetch-initial", "4s", "--refetch-min", "2s", "--refetch-max", "1m"];

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
    expect(exit.code).toBe(0);
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
    expect(web.violations({ minGapMs: 100 }).map((v) => v.message)).toEqual([]);

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
});

/**
 * Bodies that are too big are cut at the body cap, counted after decompression: a gzip bomb (10 MiB of
 * zeros in ~10 KB), a 20 MiB body with Content-Length and one without. What is stored is at most the cap,
 * marked truncated, and the crawler neither downloads the rest nor grows its memory with it.
 */
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { BOMB_BYTES, HUGE_BYTES } from "../../testweb/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  readAllRecords,
  useHarness,
  waitUntilIdle,
  warcFiles,
} from "./harness.ts";

const h = useHarness();

const CAP = 1024 * 1024;

describe("crawl: oversized bodies", () => {
  test("a gzip bomb and huge bodies are cut at the body cap, in the WARC and in memory", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "bomb.test";
    // Precondition: every hazard is well beyond the cap this test sets.
    expect(Math.min(BOMB_BYTES, HUGE_BYTES)).toBeGreaterThan(5 * CAP);
    const mustFetch = (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    const out = h.tempDir();
    // hang.test's page never answers, so the crawl is still running (and its memory readable) when the
    // bomb host is done: a crawl with nothing left ends by itself.
    const run = h.crawl(crawlArgs(web, [web.url(host), web.url("hang.test")], out, ["--max-body", "1MiB", "--max-duration", "60s"]), {
      out,
    });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      hosts: [host],
      what: `every page of ${host}`,
    });
    const peakRss = run.peakRssBytes();
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);

    // The huge bodies were not downloaded in full: the crawler hung up at the cap.
    for (const path of ["/huge", "/huge-chunked"]) {
      const r = web.requestsTo(host).find((x) => x.path === path)!;
      expect(r.status).toBe(200);
      expect(r.completed).toBe(false);
    }
    const records = await readAllRecords(out);
    const responses = (path: string) => records.filter((r) => r.type === "response" && r.url === web.url(host, path));
    // /huge-chunked cut at the cap is byte-identical to /huge cut at the cap: an exact duplicate, rightly
    // not stored again. The other two are stored, truncated.
    expect(responses("/bomb").length).toBe(1);
    expect(responses("/huge").length).toBe(1);
    expect(responses("/huge-chunked").length).toBe(0);
    expect(summary.counters["content.exact-duplicates"]).toBe(1);
    for (const stored of [...responses("/bomb"), ...responses("/huge")]) {
      expect(stored.payload.byteLength).toBe(CAP);
      expect(stored.warcHeaders["WARC-Truncated"]).toBe("length");
    }
    // Three capped bodies at most, whatever the 10 MiB bomb and 20 MiB bodies would have been.
    const warcBytes = warcFiles(out).reduce((sum, f) => sum + statSync(f).size, 0);
    expect(warcBytes).toBeLessThan(3 * CAP + 256 * 1024);
    // Memory stays sane: this crawl peaks near 85 MB (VmHWM, the peak over the process's life); the bytes
    // checks above are the precise ones, this catches a crawler that buffers bodies many times over.
    expect(peakRss).toBeDefined();
    expect(peakRss!).toBeLessThan(200 * 1024 * 1024);
  }, 45_000);
});

/**
 * Media, end to end. Every page's images, video and audio are listed in the WARC (a metadata record tied to
 * the page's response) and in OUT/warc/media.jsonl; without --fetch-media none of them is requested. With
 * --fetch-media each is fetched once, under the host's politeness and robots.txt like any request, stored
 * as a WARC response of its own type, cut at --max-media-body, and never parsed for links.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MEDIA_ON_PAGE } from "../../testweb/index.ts";
import { expectCleanExit, crawlArgs, fetchCounts, pageRequests, parseSummary, readAllRecords, repeated, useHarness } from "./harness.ts";

const h = useHarness();
const PAGES = Object.keys(MEDIA_ON_PAGE);

/** The media each page's metadata record lists, by page URL. */
function listedInWarc(records: Awaited<ReturnType<typeof readAllRecords>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of records.filter((r) => r.type === "metadata")) {
    const fields = new TextDecoder().decode(r.payload).split("\r\n").filter(Boolean);
    out[r.url!] = fields.map((f) => /^media: (\S+) (image|video|audio) \S+$/.exec(f)?.[1] ?? `unreadable: ${f}`);
  }
  return out;
}

describe("crawl: media", () => {
  test("media are listed in the WARC and media.jsonl, and not fetched without --fetch-media", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url("media.test")], out), { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    expect([...fetchCounts(pageRequests(web)).keys()].sort()).toEqual([...PAGES].sort());
    expect(web.requestsTo("media-cdn.test")).toEqual([]);

    const records = await readAllRecords(out);
    expect(listedInWarc(records)).toEqual(MEDIA_ON_PAGE);
    // Each metadata record describes the response of its page, from the same capture.
    for (const meta of records.filter((r) => r.type === "metadata")) {
      const response = records.find((r) => r.type === "response" && r.url === meta.url)!;
      expect(meta.warcHeaders["WARC-Refers-To"]).toBe(response.warcHeaders["WARC-Record-ID"]);
      expect(meta.warcHeaders["WARC-Concurrent-To"]).toBe(response.warcHeaders["WARC-Record-ID"]);
    }
    const lines = readFileSync(join(out, "warc", "media.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { page: string; url: string; kind: string; via: string });
    const byPage: Record<string, string[]> = {};
    for (const l of lines) (byPage[l.page] ??= []).push(l.url);
    expect(byPage).toEqual(MEDIA_ON_PAGE);
    expect(lines.find((l) => l.url.endsWith("/media/clip.mp4"))).toMatchObject({ kind: "video", via: "video/@src" });
    expect(lines.find((l) => l.url.endsWith("/img/poster.jpg"))).toMatchObject({ kind: "image", via: "video/@poster" });
    expect(parseSummary(exit.stdout, run).counters["content.media-listed"]).toBe(Object.values(MEDIA_ON_PAGE).flat().length);
  }, 40_000);

  test("with --fetch-media each media file is fetched once, politely, within robots.txt, capped, stored and never parsed", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url("media.test")], out, ["--fetch-media", "--max-media-body", "64KiB"]), { out });
    const exit = await run.waitExit(60_000);
    expectCleanExit(exit);

    const allowed = [...new Set(Object.values(MEDIA_ON_PAGE).flat())].filter((u) => !u.includes("/private/"));
    const fetched = [...fetchCounts(pageRequests(web)).keys()];
    expect(fetched.sort()).toEqual([...PAGES, ...allowed].sort());
    expect(repeated(pageRequests(web))).toEqual({});
    expect(fetched.some((u) => u.endsWith("/trap-media"))).toBe(false);
    // The other host's image waited for that host's robots.txt; every gap as the server saw it.
    // A host with a media file queued is a host the crawl fetches from: its /sitemap.xml is probed too (404 here).
    expect(web.requestsTo("media-cdn.test").map((r) => r.path)).toEqual(["/robots.txt", "/sitemap.xml", "/shared/banner.jpg"]);
    expect(web.violations({ minGapMs: 100, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);

    const records = await readAllRecords(out);
    for (const url of allowed) {
      const stored = records.filter((r) => r.type === "response" && r.url === url);
      expect({ url, stored: stored.length }).toEqual({ url, stored: 1 });
    }
    const huge = records.find((r) => r.type === "response" && r.url === web.url("media.test", "/img/huge.jpg"))!;
    expect(huge.payload.length).toBe(64 * 1024);
    expect(huge.warcHeaders["WARC-Truncated"]).toBe("length");
    expect(records.find((r) => r.type === "response" && r.url?.endsWith("/media/sound.ogg"))?.httpHeaders?.["content-type"]).toBe(
      "audio/ogg",
    );
    const summary = parseSummary(exit.stdout, run);
    expect(summary.counters["fetch.media"]).toBe(allowed.length);
    expect(summary.pagesFetched).toBe(PAGES.length);
  }, 70_000);
});

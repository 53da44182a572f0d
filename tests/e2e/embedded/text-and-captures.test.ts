/**
 * Extracted text and capture lookup, end to end on `crawl`: each HTML page stored gets one WET conversion
 * record naming its response record, beside the WARC file, and nothing else does; `--text off` writes no
 * WET file; `/v1/captures` on `crawl --http` answers, for every URL the test web saw fetched, a location
 * that holds that URL's response record when read back from the file, and answers the same after a restart.
 * The files are read byte-wise (tests/support/warc-bytes.ts), not with the crawler's own reader.
 */
import type { CaptureJson } from "../../../core/captures/index.ts";
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { normalizeUrl } from "../../../core/url/index.ts";
import { captureProblem, checkWetFiles } from "../../support/stored-captures.ts";
import {
  crawlArgs,
  expectCleanExit,
  interrupt,
  pageRequests,
  urlOf,
  useHarness,
  waitFor,
  waitUntilIdle,
  warcFiles,
  type CrawlRun,
  httpBase,
} from "./harness.ts";

const h = useHarness();
const MEDIA_HOSTS = ["media.test", "media-cdn.test"];

async function captures(base: string, url: string): Promise<CaptureJson[]> {
  const res = await fetch(`${base}/v1/captures?url=${encodeURIComponent(url)}`);
  expect({ url, status: res.status }).toEqual({ url, status: 200 });
  return (await res.json()) as CaptureJson[];
}

const normalized = (url: string) => {
  const n = normalizeUrl(url);
  if (!n.ok) throw new Error(`${url} does not normalize: ${n.reason}`);
  return n.url;
};

describe("crawl: text and captures", () => {
  test("each HTML page has one text record naming its response, media none; /v1/captures finds every fetched URL's record, also after a restart", async () => {
    const web = await h.web({ hosts: 1, pagesPerHost: 400, special: true });
    const out = h.tempDir();
    // site0.test keeps the crawl running while the media hosts are crawled and looked up.
    const argv = crawlArgs(web, [web.url("media.test"), web.url("site0.test")], out, ["--fetch-media", "--http", "127.0.0.1:0"]);
    const run = h.crawl(argv, { out });
    const base = await httpBase(run);
    await waitUntilIdle(run, () => ["/", "/gallery", "/video"].every((p) => web.requestsTo("media.test").some((r) => r.path === p)), {
      timeoutMs: 60_000,
      what: "the media hosts' pages and files fetched",
      hosts: MEDIA_HOSTS,
    });

    const fetched = [...new Set(pageRequests(web, MEDIA_HOSTS).map(urlOf))];
    expect(fetched.length).toBeGreaterThan(10);
    const problems: string[] = [];
    const answers = new Map<string, CaptureJson[]>();
    for (const url of fetched) {
      const found = await captures(base, url);
      answers.set(url, found);
      if (found.length !== 1) problems.push(`${url}: ${found.length} captures`);
      for (const c of found) {
        expect(c.job).toBe("default");
        const problem = captureProblem(join(out, "warc", c.warc.file), normalized(url), c.warc);
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
    expect(answers.get(web.url("media.test"))?.[0]).toMatchObject({ status: 200, contentType: expect.stringContaining("text/html") });
    expect(answers.get(web.url("media.test", "/img/logo.png"))?.[0]).toMatchObject({ status: 200, contentType: "image/png" });
    // A URL the crawl never fetched has no captures; a bad one is refused.
    expect(await captures(base, web.url("media.test", "/private/secret.jpg"))).toEqual([]);
    expect((await fetch(`${base}/v1/captures?url=nope`)).status).toBe(400);

    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    const wet = checkWetFiles(warcFiles(out));
    expect(wet.problems).toEqual([]);
    for (const page of ["/", "/gallery", "/video"].map((p) => web.url("media.test", p))) {
      expect({ page, text: wet.withText.filter((u) => u === page).length }).toEqual({ page, text: 1 });
    }
    expect(wet.withText.filter((u) => /\.(png|jpe?g|webp|mp4|webm|ogg)$/.test(u))).toEqual([]);
    expect(wet.htmlPages.length).toBeGreaterThan(3);

    // Restarted on the same --out: the captures are the URL's own state, kept in the store.
    const again = h.crawl(argv, { out });
    const base2 = await httpBase(again);
    for (const url of [web.url("media.test"), web.url("media.test", "/img/logo.png"), web.url("media.test", "/gallery")]) {
      expect({ url, captures: await captures(base2, url) }).toEqual({ url, captures: answers.get(url)! });
    }
    expectCleanExit((await interrupt(again)).exit);
  }, 120_000);

  test("--text off writes no WET file; the WARC files are written as ever", async () => {
    const web = await h.web({ hosts: 1, pagesPerHost: 6 });
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url("site0.test")], out, ["--text", "off"]), { out });
    expectCleanExit(await run.waitExit(60_000));
    expect(warcFiles(out).length).toBeGreaterThan(0);
    expect(readdirSync(join(out, "warc")).filter((f) => f.includes(".wet"))).toEqual([]);
  }, 90_000);
});

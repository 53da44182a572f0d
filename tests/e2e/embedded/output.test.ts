/**
 * What a crawl leaves under --out: WARC 1.1 files under OUT/warc, gzip per record, readable by a WARC
 * reader, holding a request and a response record for every page fetched (bodies exactly as served), and
 * OUT/warc/index.cdxj with one line per response record that points at it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { readRecordAt } from "../../../engine/fetch/warc/index.ts";
import { prosePool, sitePage } from "../../testweb/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  readAllRecords,
  readCdxj,
  urlOf,
  useHarness,
  waitUntilIdle,
  warcFiles,
} from "./harness.ts";

const h = useHarness();

describe("crawl: output", () => {
  test("every fetched page is in the WARC files as a request and a response record, and in index.cdxj", async () => {
    const web = await h.web({ hosts: 2, pagesPerHost: 5, linksPerPage: 5, pageBytes: 3000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [seed], out, ["--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: "every expected page",
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);

    const files = warcFiles(out);
    expect(files.length).toBeGreaterThan(0);
    const records = await readAllRecords(out);
    // Every file is WARC 1.1, one gzip member per record, opening with its warcinfo record.
    for (const file of files) {
      const text = gunzipSync(readFileSync(file)).toString("latin1");
      expect(text.startsWith("WARC/1.1\r\n")).toBe(true);
      expect(text.split("WARC/1.1\r\n").length - 1).toBe(records.filter((r) => r.file === file).length);
      expect(records.find((r) => r.file === file)?.type).toBe("warcinfo");
    }

    const fetchedUrls = web.requests.map(urlOf); // robots.txt included: it is a response like any other
    const responses = records.filter((r) => r.type === "response");
    const requests = records.filter((r) => r.type === "request");
    expect(responses.map((r) => r.url).sort()).toEqual([...fetchedUrls].sort());
    expect(requests.map((r) => r.url).sort()).toEqual([...fetchedUrls].sort());
    const pool = prosePool(web.shape.seed);
    for (const url of expected.pages) {
      const u = new URL(url);
      const response = responses.find((r) => r.url === url)!;
      expect(response.status).toBe(200);
      // The body stored is the body served, byte for byte.
      expect(new TextDecoder().decode(response.payload)).toBe(sitePage(web.shape, pool, u.hostname, u.pathname).body as string);
      const request = requests.find((r) => r.url === url)!;
      expect(request.warcHeaders["WARC-Concurrent-To"]).toBe(response.warcHeaders["WARC-Record-ID"]);
    }

    const index = readCdxj(out);
    expect(index.map((e) => e.url).sort()).toEqual(responses.map((r) => r.url!).sort());
    for (const entry of index) {
      expect(entry.surt.startsWith("test,site")).toBe(true);
      const record = await readRecordAt(join(out, "warc", entry.filename), entry.offset, entry.length);
      expect(record.type).toBe("response");
      expect(record.url).toBe(entry.url);
      expect(String(record.status)).toBe(entry.status);
    }
    expect(new Set(index.map((e) => e.filename))).toEqual(new Set(files.map((f) => basename(f))));
  }, 45_000);
});

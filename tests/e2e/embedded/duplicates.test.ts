/**
 * The same content under several URLs is fetched (the crawler cannot know before) but stored once: the
 * copies are WARC revisit records (identical-payload-digest) naming the URL that holds the bytes. A page whose
 * text is within 3 bits (SimHash) of a stored page is a revisit record of the project's near-duplicate
 * profile naming that page, and its links are fetched after every other page of the host.
 */
import { describe, expect, test } from "bun:test";
import { REVISIT_PROFILES } from "../../../engine/fetch/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  parseSummary,
  readAllRecords,
  repeated,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

describe("crawl: duplicate content", () => {
  test("byte-identical pages under different URLs are stored once; the copies and near-duplicates are revisits", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "dup.test";
    const mustFetch = (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p));
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out, ["--max-duration", "60s"]), { out });
    await waitUntilIdle(run, () => missing(mustFetch, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 30_000,
      what: `every page of ${host}`,
    });
    const { exit, summary } = await interrupt(run);
    expectCleanExit(exit);
    expect(repeated(pageRequests(web))).toEqual({});

    const stored = (await readAllRecords(out)).filter((r) => r.type === "response" && r.status === 200).map((r) => r.url!);
    const identical = ["/a", "/b", "/copy/a", "/c?ref=1"].map((p) => web.url(host, p));
    expect(stored.filter((u) => identical.includes(u)).length).toBe(1);
    for (const p of ["/", "/other"]) expect(stored).toContain(web.url(host, p));
    expect(stored.length).toBe(new Set(stored).size);
    expect(summary.counters["content.exact-duplicates"]).toBe(3);
    // Each one-word variant is stored in full, or (when its SimHash is within 3 bits of a stored page) as a
    // near-duplicate revisit: never both, never neither.
    const allRecords = await readAllRecords(out);
    const nearRevisits = allRecords
      .filter((r) => r.type === "revisit" && r.warcHeaders["WARC-Profile"] === REVISIT_PROFILES["near-duplicate"])
      .map((r) => r.url!);
    for (const p of ["/near/1", "/near/2"]) {
      expect([stored.includes(web.url(host, p)), nearRevisits.includes(web.url(host, p))].filter(Boolean)).toHaveLength(1);
    }
    expect(nearRevisits.length).toBeGreaterThanOrEqual(1);
    expect(summary.counters["content.near-duplicates"]).toBe(nearRevisits.length);

    // The copies are recorded as revisits of the one stored, with the digest of what they served.
    const records = allRecords;
    const original = records.find((r) => r.type === "response" && identical.includes(r.url!))!;
    const copies = records.filter(
      (r) => r.type === "revisit" && r.warcHeaders["WARC-Profile"] === REVISIT_PROFILES["identical-payload-digest"],
    );
    expect(copies.map((r) => r.url).sort()).toEqual(identical.filter((u) => u !== original.url).sort());
    for (const copy of copies) {
      expect(copy.warcHeaders["WARC-Refers-To-Target-URI"]).toBe(original.url);
      expect(copy.warcHeaders["WARC-Payload-Digest"]).toBe(original.warcHeaders["WARC-Payload-Digest"]);
      expect(copy.payload.length).toBe(0);
    }
  }, 45_000);

  test("a near duplicate is a revisit naming the page it resembles, and its links come after the host's other pages", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const host = "neardup.test";
    const out = h.tempDir();
    const run = h.crawl(crawlArgs(web, [web.url(host)], out), { out });
    const exit = await run.waitExit(30_000);
    expectCleanExit(exit);
    // One host, one request at a time: the order of the log is the order of the queue.
    const order = pageRequests(web, [host]).map((r) => r.path);
    expect(order).toEqual(["/", "/orig", "/near", "/later", "/o1", "/o2", "/l1", "/l2", "/n1", "/n2"]);

    const records = await readAllRecords(out);
    const near = records.find((r) => r.url === web.url(host, "/near") && (r.type === "response" || r.type === "revisit"))!;
    expect(near.type).toBe("revisit");
    expect(near.warcHeaders["WARC-Profile"]).toBe(REVISIT_PROFILES["near-duplicate"]);
    expect(near.warcHeaders["WARC-Refers-To-Target-URI"]).toBe(web.url(host, "/orig"));
    expect(near.warcHeaders["X-Crawler-SimHash"]).toMatch(/^[0-9a-f]{16}$/);
    expect(near.status).toBe(200);
    expect(records.find((r) => r.url === web.url(host, "/orig") && r.type === "response")?.payload.length).toBeGreaterThan(1000);
    expect(parseSummary(exit.stdout, run).counters["content.near-duplicates"]).toBe(1);
  }, 40_000);
});

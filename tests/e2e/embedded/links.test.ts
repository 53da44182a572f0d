/**
 * Which links the crawler follows: the ones a browser would show in HTML pages (even broken HTML), not
 * those the page asks it not to follow (rel=nofollow, meta robots nofollow, X-Robots-Tag nofollow), and
 * nothing found in bodies that are not HTML (images, binary, PDF, RSS, JSON, plain text). Pages marked
 * noindex are fetched and their links followed, but not stored.
 */
import { describe, expect, test } from "bun:test";
import { MALFORMED_LINKS } from "../../testweb/index.ts";
import {
  expectCleanExit,
  crawlArgs,
  fetchCounts,
  interrupt,
  missing,
  pageRequests,
  readAllRecords,
  repeated,
  urlOf,
  useHarness,
  waitUntilIdle,
} from "./harness.ts";

const h = useHarness();

const HOSTS = ["nofollow.test", "binary.test", "nonhtml.test", "malformed.test"];

describe("crawl: links", () => {
  test("links are followed from HTML only, never against nofollow, and noindex pages are not stored", async () => {
    const web = await h.web({ hosts: 1, special: true });
    const mustFetch = HOSTS.flatMap((host) => (web.behaviour(host)?.mustFetch ?? []).map((p) => web.url(host, p)));
    const mustNotFetch = HOSTS.flatMap((host) => (web.behaviour(host)?.mustNotFetch ?? []).map((p) => web.url(host, p)));
    // Precondition: the broken page's links are part of what must be fetched.
    for (const url of MALFORMED_LINKS) expect(mustFetch).toContain(url);
    const out = h.tempDir();
    const run = h.crawl(
      crawlArgs(
        web,
        HOSTS.map((host) => web.url(host)),
        out,
        ["--max-duration", "60s"],
      ),
      { out },
    );
    const fetched = () => fetchCounts(pageRequests(web)).keys();
    await waitUntilIdle(run, () => missing(mustFetch, fetched()).length === 0, {
      timeoutMs: 30_000,
      what: "every link that must be followed",
      detail: () => `missing: ${missing(mustFetch, fetched()).join(", ")}`,
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);

    const requested = pageRequests(web).map(urlOf);
    expect(requested.filter((u) => mustNotFetch.includes(u))).toEqual([]);
    // Nothing beyond what the pages link: no link invented from script text, comments or binary bytes.
    expect(missing(requested, [...mustFetch, ...HOSTS.map((host) => web.url(host))])).toEqual([]);
    expect(repeated(pageRequests(web))).toEqual({});

    const stored = new Set((await readAllRecords(out)).filter((r) => r.type === "response").map((r) => r.url));
    // noindex (meta or header): fetched and followed, not stored.
    expect(stored.has(web.url("nofollow.test", "/meta-noindex"))).toBe(false);
    expect(stored.has(web.url("nofollow.test", "/header-nofollow"))).toBe(false);
    expect(stored.has(web.url("nofollow.test", "/followed"))).toBe(true);
    // Non-HTML bodies are stored as fetched, just not parsed.
    expect(stored.has(web.url("binary.test", "/image"))).toBe(true);
    expect(stored.has(web.url("nonhtml.test", "/doc.pdf"))).toBe(true);
  }, 45_000);
});

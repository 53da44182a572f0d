/**
 * Address safety: a crawler fetches URLs strangers wrote, so it refuses hosts on loopback, private,
 * link-local and metadata addresses, and local names, before any request (the seed is rejected with its
 * reason, nothing is sent) unless `--allow-private-addresses` is given. With a proxy, the proxy resolves
 * names, whether it comes from --proxy or HTTP_PROXY. The full suite of notations is hostile-urls.test.ts.
 */
import { describe, expect, test } from "bun:test";
import type { HostBehaviour, TestWeb } from "../../testweb/index.ts";
import { expectCleanExit, fetchCounts, interrupt, missing, pageRequests, pathsOf, useHarness, waitUntilIdle } from "./harness.ts";

const h = useHarness();

/** What the test web serves for Host: 127.0.0.1, the loopback address a seed names directly. */
const loopbackSite: HostBehaviour = {
  description: "a two-page site on the loopback address",
  robots: { kind: "rules", text: "User-agent: *\nDisallow: /private/\n" },
  serve(_req, res, ctx) {
    const pages: Record<string, string> = {
      "/": '<!doctype html><title>loopback</title><a href="/next">next</a>',
      "/next": '<!doctype html><title>next</title><a href="/">home</a>',
    };
    const body = pages[ctx.path];
    res.statusCode = body ? 200 : 404;
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(body ?? "not found");
  },
};

async function loopbackWeb(): Promise<{ web: TestWeb; seed: string }> {
  const web = await h.web({ hosts: 1, extraHosts: { "127.0.0.1": loopbackSite } });
  return { web, seed: `http://127.0.0.1:${web.port}/` };
}

describe("crawl: address safety", () => {
  test("a seed on a loopback address is refused without --allow-private-addresses, and nothing is sent to it", async () => {
    const { web, seed } = await loopbackWeb();
    const out = h.tempDir();
    // Text log lines, as a person at a terminal reads them (the kit's default on a pipe is JSON).
    const run = h.crawl([seed, "--out", out, "--min-gap", "100ms", "--max-duration", "30s", "--log-format", "text"], { out });
    const exit = await run.waitExit(15_000);
    // The only seed was refused at admission: nothing to crawl, a usage error, and the reason on stderr.
    expect(exit.code).toBe(2);
    expect(exit.stderr).toContain(`crawl: seed rejected (argument): ${seed}: refused-address: loopback: 127.0.0.1 is a loopback address`);
    expect(exit.stderr).toContain("every seed was refused");
    expect(web.requests).toEqual([]);
    expect(web.connections).toBe(0);
  }, 20_000);

  test("with --allow-private-addresses a seed on a loopback address is fetched directly", async () => {
    const { web, seed } = await loopbackWeb();
    const out = h.tempDir();
    const run = h.crawl([seed, "--out", out, "--min-gap", "100ms", "--allow-private-addresses", "--max-duration", "30s"], { out });
    const want = ["http://127.0.0.1/", "http://127.0.0.1/next"];
    await waitUntilIdle(run, () => missing(want, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 20_000,
      what: "both loopback pages",
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    // robots.txt names no sitemap: /sitemap.xml is probed once, after the home page (the test web answers 404).
    expect(pathsOf(web, "127.0.0.1")).toEqual(["/robots.txt", "/", "/sitemap.xml", "/next"]);
    // Straight to the address: origin-form requests with a Host header, no proxy in between.
    expect(web.requests.every((r) => r.via === "direct" && r.headers.host === `127.0.0.1:${web.port}`)).toBe(true);
  }, 30_000);

  test("a proxy given in HTTP_PROXY is used for every request, robots.txt included", async () => {
    const web = await h.web({ hosts: 1, pagesPerHost: 2, linksPerPage: 2, pageBytes: 1000 });
    const seed = web.url("site0.test");
    const expected = web.expectedPages([seed]);
    const out = h.tempDir();
    const run = h.crawl([seed, "--out", out, "--min-gap", "100ms", "--max-duration", "30s"], {
      out,
      env: { HTTP_PROXY: web.proxyUrl },
    });
    await waitUntilIdle(run, () => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
      timeoutMs: 20_000,
      what: "the site through the proxy",
    });
    const { exit } = await interrupt(run);
    expectCleanExit(exit);
    expect(web.requests.length).toBe(expected.pages.size + 2); // the pages, robots.txt and the /sitemap.xml probe
    expect(web.requests.every((r) => r.via === "proxy")).toBe(true);
    expect(web.requests[0]!.path).toBe("/robots.txt");
  }, 30_000);
});

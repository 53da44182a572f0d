import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "node:http";
import { proxyGet } from "./client.ts";
import { expectedPages } from "./expected.ts";
import { isAllowed, parseRobots, type RobotsGroup } from "./robots.ts";
import { resolveShape, startTestWeb, type TestWeb } from "./server.ts";
import { maxOf } from "../../core/stats/index.ts";

/** The normalisation ARCHITECTURE.md asks of the crawler, enough of it for the hrefs the generator writes. */
function normalise(href: string, base: string): string | undefined {
  const u = new URL(href.replaceAll("&amp;", "&"), base);
  if (u.protocol !== "http:") return undefined;
  u.hash = "";
  for (const k of [...u.searchParams.keys()]) if (k.startsWith("utm_")) u.searchParams.delete(k);
  u.searchParams.sort();
  return u.href.replace(/\?$/, "");
}

/** A plain breadth-first crawl over the proxy: robots.txt first per host, links by regex. */
async function crawl(web: TestWeb, seeds: string[], maxDepth = Infinity) {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const robots = new Map<string, RobotsGroup>();
  const fetched = new Set<string>();
  const disallowed = new Set<string>();
  const seen = new Set(seeds);
  let level = seeds;
  for (let depth = 0; level.length > 0 && depth <= maxDepth; depth++) {
    const next: string[] = [];
    await Promise.all(
      level.map(async (url) => {
        const u = new URL(url);
        if (!robots.has(u.host)) {
          const r = await proxyGet(web.proxyUrl, `http://${u.host}/robots.txt`, { agent });
          robots.set(u.host, parseRobots(r.body.toString()));
        }
        if (!isAllowed(robots.get(u.host)!, u.pathname + u.search)) {
          disallowed.add(url);
          return;
        }
        const r = await proxyGet(web.proxyUrl, url, { agent });
        expect(r.status).toBe(200);
        fetched.add(url);
        for (const m of r.body.toString().matchAll(/href="([^"]*)"/g)) {
          const link = normalise(m[1]!, url);
          if (link && !seen.has(link)) {
            seen.add(link);
            next.push(link);
          }
        }
      }),
    );
    level = next;
  }
  agent.destroy();
  return { fetched, disallowed };
}

describe("expected page set", () => {
  let web: TestWeb;
  beforeAll(async () => {
    web = await startTestWeb({ hosts: 6, pagesPerHost: 15, linksPerPage: 12, pageBytes: 6000, seed: 7 });
  });
  afterAll(() => web.close());

  test("equals the pages a crawl over the server reaches", async () => {
    const expected = web.expectedPages();
    const got = await crawl(web, [web.url("site0.test")]);
    expect([...got.fetched].sort()).toEqual([...expected.pages].sort());
    expect([...got.disallowed].sort()).toEqual([...expected.disallowed].sort());
    expect(expected.hosts.size).toBe(6);
  });

  test("equals a depth-limited crawl when given maxDepth", async () => {
    const expected = web.expectedPages([web.url("site2.test")], { maxDepth: 1 });
    const got = await crawl(web, [web.url("site2.test")], 1);
    expect([...got.fetched].sort()).toEqual([...expected.pages].sort());
    expect(maxOf(expected.depth.values())).toBe(1);
    expect(expected.depth.get("http://site2.test/")).toBe(0);
  });

  test("never contains a path robots.txt disallows, but keeps the explicitly allowed one", () => {
    const expected = web.expectedPages();
    for (const url of expected.pages) expect(url).not.toMatch(/\/private\/\d+$|\.pdf$/);
    expect(expected.pages.has("http://site0.test/private/public-notes")).toBe(true);
    expect(expected.disallowed.size).toBeGreaterThan(0);
  });

  test("is a pure function of the shape and the seeds", () => {
    const shape = resolveShape({ hosts: 6, pagesPerHost: 15, linksPerPage: 12, pageBytes: 6000, seed: 7 });
    const a = expectedPages(shape, ["http://site0.test/"]);
    const b = expectedPages(shape, ["HTTP://SITE0.test:80/"]);
    expect([...a.pages]).toEqual([...b.pages]);
    // Every page is reachable under both seeds; the link structure, hence the depths, differ.
    const depth1 = (seed: number) => [...expectedPages({ ...shape, seed }, ["http://site0.test/"], { maxDepth: 1 }).pages].sort();
    expect(depth1(8)).not.toEqual(depth1(7));
  });

  test("refuses seeds outside the normal hosts", () => {
    expect(() => web.expectedPages(["http://calendar.test/"])).toThrow(/normal hosts/);
  });
});

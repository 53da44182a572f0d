/**
 * The sitemap task end to end over a real HTTP fetcher and a loopback server: streaming, gzip (as a file
 * and as a Content-Encoding), the protocol's location rules and limits, indexes, and what is stored.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { CapturedExchange, FetchTask, SitemapRef } from "../../../core/model/index.ts";
import { SITEMAP_MAX_BYTES, SITEMAP_MAX_ENTRIES } from "../../../core/sitemap/index.ts";
import { MemoryContentIndex } from "../../../adapters/memory/index.ts";
import { preciseNow } from "../../../core/politeness/index.ts";
import { AddressPolicy } from "../../../core/net/index.ts";
import { HttpFetcher } from "../http/index.ts";
import { startHttpServer, type TestServer } from "../http/test-servers.ts";
import { FetchWorker } from "./worker.ts";

const owned: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of owned.splice(0).reverse()) await item.close();
});

async function setup(routes: Record<string, (res: ServerResponse) => void>) {
  const server: TestServer = await startHttpServer((req, res) => {
    const route = routes[req.url ?? ""];
    if (route) route(res);
    else {
      res.statusCode = 404;
      res.end("not found");
    }
  });
  owned.push(server);
  const fetcher = new HttpFetcher({
    userAgent: "testbot/1.0 (+http://bot.example/info)",
    connectTimeoutMs: 2000,
    responseTimeoutMs: 20_000,
    maxBodyBytes: 64 * 1024,
    addressPolicy: new AddressPolicy({ allowPrivate: true }),
  });
  owned.push(fetcher);
  const stored: CapturedExchange[] = [];
  const worker = new FetchWorker({
    fetcher,
    maxBodyBytes: 64 * 1024,
    content: new MemoryContentIndex(),
    store: { write: async (x) => void stored.push(x) },
    agentToken: "testbot",
    sleep: async () => {},
    now: () => Date.now(),
    gap: { multiplier: 10, marginMs: 5 },
  });
  const origin = server.origin;
  const host = origin.slice("http://".length);
  const run = (path: string, sitemap: SitemapRef = { grants: [] }, depth = 0, fetchMedia = false) => {
    const task: FetchTask = {
      taskId: "t1",
      kind: "sitemap",
      url: `${origin}${path}`,
      host,
      partition: 0,
      depth,
      redirectHops: 0,
      hostGapMs: 0,
      issuedAt: Date.now(),
      sitemap,
      ...(fetchMedia ? { fetchMedia } : {}),
    };
    return worker.run(task);
  };
  return { origin, host, stored, run };
}

function xml(res: ServerResponse, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  res.setHeader("content-type", "application/xml");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(body);
}

const urlset = (locs: string[], extra = "") =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc>${extra}</url>`).join("\n")}</urlset>`;

describe("sitemap task", () => {
  test("takes the entries under the sitemap's directory, with lastmod and priority, and refuses the rest", async () => {
    const { origin, run, stored } = await setup({
      "/shop/sitemap.xml": (res) =>
        xml(
          res,
          `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc>${origin}/shop/a</loc><lastmod>2025-03-01</lastmod><priority>0.9</priority></url>
            <url><loc>${origin}/shop/b?x=1&amp;y=2</loc></url>
            <url><loc>${origin}/shop/b?y=2&amp;x=1</loc></url>
            <url><loc>${origin}/blog/c</loc></url>
            <url><loc>http://other.test/shop/d</loc></url>
            <url><loc>https://${origin.slice(7)}/shop/e</loc></url>
            <url><loc>not a url</loc></url>
            <url><loc>/shop/relative</loc></url>
          </urlset>`,
        ),
    });
    const { result, links } = await run("/shop/sitemap.xml", { grants: [] }, 2);
    expect(result.kind).toBe("response");
    expect(result.status).toBe(200);
    expect(result.sitemap).toEqual({ format: "urlset", entries: 2, outOfLocation: 3, invalid: 2 });
    expect(links).toEqual([
      {
        url: `${origin}/shop/a`,
        host: origin.slice(7),
        depth: 3,
        sourceUrl: `${origin}/shop/sitemap.xml`,
        redirectHops: 0,
        lastmod: Date.UTC(2025, 2, 1),
        sitemapPriority: 0.9,
      },
      { url: `${origin}/shop/b?x=1&y=2`, host: origin.slice(7), depth: 3, sourceUrl: `${origin}/shop/sitemap.xml`, redirectHops: 0 },
    ]);
    expect(stored.length).toBe(1);
    expect(stored[0]!.url).toBe(`${origin}/shop/sitemap.xml`);
    expect(result.bytes).toBe(stored[0]!.body.byteLength);
  });

  test("the request ends when the server ends the response, not with its last bytes of data", async () => {
    // The whole urlset is written at once and the response ended 300 ms later: the host's gap runs from
    // that end, so the result must not say the request ended any sooner.
    let serverEndedAt = Number.POSITIVE_INFINITY;
    const { origin, run } = await setup({
      "/late-end.xml": (res) => {
        res.setHeader("content-type", "application/xml");
        res.write(urlset([`${origin}/a`]));
        setTimeout(() => {
          serverEndedAt = preciseNow();
          res.end();
        }, 300);
      },
    });
    const { result, links } = await run("/late-end.xml");
    expect(links.map((l) => l.url)).toEqual([`${origin}/a`]);
    expect(result.endedAt).toBeGreaterThanOrEqual(serverEndedAt);
  });

  test("a robots.txt grant lets a sitemap list URLs of another host", async () => {
    const { run } = await setup({ "/sitemap-host1.xml": (res) => xml(res, urlset(["http://host1.test/a", "http://host2.test/b"])) });
    const { result, links } = await run("/sitemap-host1.xml", { grants: ["http://host1.test/"] });
    expect(links.map((l) => l.url)).toEqual(["http://host1.test/a"]);
    expect(result.sitemap?.outOfLocation).toBe(1);
  });

  test("reads a gzip file and a gzip Content-Encoding alike", async () => {
    const { origin, run, stored } = await setup({
      "/s.xml.gz": (res) => {
        res.setHeader("content-type", "application/x-gzip");
        res.end(gzipSync(urlset([`${origin}/gz/1`])));
      },
      "/s.xml": (res) => xml(res, gzipSync(urlset([`${origin}/ce/1`])), { "content-encoding": "gzip" }),
      "/twice.xml.gz": (res) => xml(res, gzipSync(gzipSync(urlset([`${origin}/both/1`]))), { "content-encoding": "gzip" }),
    });
    expect((await run("/s.xml.gz")).links.map((l) => l.url)).toEqual([`${origin}/gz/1`]);
    expect((await run("/s.xml")).links.map((l) => l.url)).toEqual([`${origin}/ce/1`]);
    expect((await run("/twice.xml.gz")).links.map((l) => l.url)).toEqual([`${origin}/both/1`]);
    // The WARC copy is the body as served, its Content-Encoding undone: a gzip file stays a gzip file.
    expect([...stored[0]!.body.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    expect(new TextDecoder().decode(stored[1]!.body)).toContain("/ce/1");
  });

  test("an index lists sitemaps of its own site, each inheriting the grants; an index listed by an index is not followed", async () => {
    const { origin, run } = await setup({
      "/index.xml": (res) =>
        xml(
          res,
          `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <sitemap><loc>${origin}/a/s1.xml.gz</loc><lastmod>2025-01-02T03:04:05Z</lastmod></sitemap>
            <sitemap><loc>http://elsewhere.test/s2.xml</loc></sitemap>
          </sitemapindex>`,
        ),
    });
    const { result, links } = await run("/index.xml", { grants: ["http://h.test/"] }, 1);
    expect(result.sitemap).toEqual({ format: "index", entries: 1, outOfLocation: 1, invalid: 0 });
    expect(links).toEqual([
      {
        url: `${origin}/a/s1.xml.gz`,
        host: origin.slice(7),
        depth: 1,
        sourceUrl: `${origin}/index.xml`,
        redirectHops: 0,
        sitemap: { grants: ["http://h.test/"], fromIndex: true },
        lastmod: Date.UTC(2025, 0, 2, 3, 4, 5),
      },
    ]);
    const nested = await run("/index.xml", { grants: [], fromIndex: true });
    expect(nested.links).toEqual([]);
    expect(nested.result.sitemap?.nestedIndex).toBe(true);
  });

  test("stops at 50,000 entries", async () => {
    const locs = Array.from({ length: SITEMAP_MAX_ENTRIES + 3 }, (_, i) => `http://h.test/p/${i}`);
    const { run } = await setup({ "/big.xml": (res) => xml(res, urlset(locs)) });
    const { result, links } = await run("/big.xml", { grants: ["http://h.test/"] });
    expect(links.length).toBe(SITEMAP_MAX_ENTRIES);
    expect(links.at(-1)?.url).toBe(`http://h.test/p/${SITEMAP_MAX_ENTRIES - 1}`);
    expect(result.sitemap?.limit).toBe("entries");
    expect(result.truncated).toBe(true); // the WARC copy is capped at the body cap
  });

  test("stops at 50 MB uncompressed, hangs up, and keeps only the body cap for the WARC file", async () => {
    // 52 MB of padding between two entries, served as a ~50 KB gzip file.
    const padding = `<!--${" ".repeat(SITEMAP_MAX_BYTES)}-->`;
    const body = gzipSync(`<urlset><url><loc>http://h.test/before</loc></url>${padding}<url><loc>http://h.test/after</loc></url></urlset>`);
    const { run, stored } = await setup({ "/huge.xml.gz": (res) => xml(res, body) });
    const { result, links } = await run("/huge.xml.gz", { grants: ["http://h.test/"] });
    expect(links.map((l) => l.url)).toEqual(["http://h.test/before"]);
    expect(result.sitemap?.limit).toBe("bytes");
    expect(stored[0]!.body.byteLength).toBeLessThanOrEqual(64 * 1024);
  });

  test("a non-2xx answer is stored and not read; a redirect goes back to the frontier as a sitemap to read", async () => {
    const { origin, run, stored } = await setup({
      "/moved.xml": (res) => {
        res.statusCode = 301;
        res.setHeader("location", "/new/sitemap.xml");
        res.end();
      },
    });
    const missing = await run("/gone.xml");
    expect(missing.result.status).toBe(404);
    expect(missing.result.sitemap).toBeUndefined();
    expect(missing.links).toEqual([]);
    const moved = await run("/moved.xml", { grants: ["http://g.test/"] });
    expect(moved.links).toEqual([
      {
        url: `${origin}/new/sitemap.xml`,
        host: origin.slice(7),
        depth: 0,
        sourceUrl: `${origin}/moved.xml`,
        redirectHops: 1,
        sitemap: { grants: ["http://g.test/", `${origin}/`] },
      },
    ]);
    expect(stored.length).toBe(2);
  });

  test("a body that is not gzip after all ends as a bad response", async () => {
    const { run } = await setup({ "/bad.xml": (res) => xml(res, "definitely not gzip", { "content-encoding": "gzip" }) });
    const { result } = await run("/bad.xml");
    expect(result.kind).toBe("network-error");
    expect(result.error).toBe("bad-response");
  });

  test("a feed's items (RSS or Atom) are taken anywhere on its site, at the top priority with their date as lastmod; other sites refused", async () => {
    const { origin, host, run } = await setup({
      "/blog/feed/": (res) =>
        xml(
          res,
          `<rss version="2.0"><channel><link>${origin}/</link>
            <item><link>${origin}/2026/01/new-post</link><pubDate>Fri, 04 Dec 2026 10:00:00 +0100</pubDate></item>
            <item><link>http://elsewhere.test/post</link></item>
          </channel></rss>`,
        ),
      "/atom.xml": (res) =>
        xml(
          res,
          gzipSync(
            `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="${origin}/a"/><updated>2026-12-04T09:00:00Z</updated></entry></feed>`,
          ),
        ),
    });
    const rss = await run("/blog/feed/", { grants: [] }, 0);
    expect(rss.result.sitemap).toEqual({ format: "rss", entries: 1, outOfLocation: 1, invalid: 0 });
    expect(rss.links).toEqual([
      {
        url: `${origin}/2026/01/new-post`,
        host,
        depth: 1,
        sourceUrl: `${origin}/blog/feed/`,
        redirectHops: 0,
        lastmod: Date.UTC(2026, 11, 4, 9),
        sitemapPriority: 1,
      },
    ]);
    const atom = await run("/atom.xml");
    expect(atom.result.sitemap).toEqual({ format: "atom", entries: 1, outOfLocation: 0, invalid: 0 });
    expect(atom.links.map((l) => [l.url, l.lastmod, l.sitemapPriority])).toEqual([[`${origin}/a`, Date.UTC(2026, 11, 4, 9), 1]]);
  });

  test("with --fetch-media, a sitemap's image and video extensions name media links; dates from the news extension", async () => {
    const { origin, host, run } = await setup({
      "/sitemap.xml": (res) =>
        xml(
          res,
          `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
            <url><loc>${origin}/story</loc><image:image><image:loc>${origin}/a.jpg</image:loc></image:image>
              <news:news><news:publication_date>2026-12-04T09:00:00Z</news:publication_date></news:news></url>
          </urlset>`,
        ),
    });
    const task = (fetchMedia: boolean) => run("/sitemap.xml", { grants: [] }, 0, fetchMedia);
    const without = await task(false);
    expect(without.links.map((l) => [l.url, l.kind, l.lastmod])).toEqual([[`${origin}/story`, undefined, Date.UTC(2026, 11, 4, 9)]]);
    const withMedia = await task(true);
    expect(withMedia.result.sitemap?.entries).toBe(1);
    expect(withMedia.links.map((l) => [l.url, l.kind])).toEqual([
      [`${origin}/story`, undefined],
      [`${origin}/a.jpg`, "media"],
    ]);
    expect(withMedia.links[1]).toMatchObject({ host, depth: 1 });
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "node:http";
import { gunzipSync } from "node:zlib";
import { proxyGet, type Reply } from "./client.ts";
import { startTestWeb, type TestWeb } from "./server.ts";
import { hammingDistance, simhash64 } from "../../core/content/index.ts";
import { extractPage } from "../../engine/fetch/index.ts";
import {
  BOMB_BYTES,
  HUGE_BYTES,
  MALFORMED_LINKS,
  MEDIA_HUGE_BYTES,
  MEDIA_ON_PAGE,
  SITEMAP_BIG_BEYOND,
  SITEMAP_BIG_FILLERS,
  SITEMAP_BIG_KEPT,
  SITEMAP_HUGE_PADDING,
  stableEtag,
} from "./special/index.ts";
import { DRIP_INTERVAL_MS, SLOW_MS } from "./special/timing.ts";

let web: TestWeb;
let agent: Agent;
const get = (url: string, headers?: Record<string, string>): Promise<Reply> => proxyGet(web.proxyUrl, url, { agent, headers });
const text = async (url: string): Promise<string> => (await get(url)).body.toString();

beforeAll(async () => {
  web = await startTestWeb({ hosts: 2, special: true });
  agent = new Agent({ keepAlive: true });
});
afterAll(async () => {
  agent.destroy();
  await web.close();
});

describe("special hosts", () => {
  test("robots variants answer robots.txt as documented", async () => {
    expect(await text("http://robots-disallow.test/robots.txt")).toBe("User-agent: *\nDisallow: /\n");
    expect((await get("http://robots-404.test/robots.txt")).status).toBe(404);
    expect((await get("http://robots-500.test/robots.txt")).status).toBe(500);
    const moved = await get("http://robots-redirect.test/robots.txt");
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe("/robots-real.txt");
    expect(await text("http://robots-redirect.test/robots-real.txt")).toContain("Disallow: /secret/");
    expect(await text("http://robots-delay.test/robots.txt")).toContain("Crawl-delay: 2");
    await expect(proxyGet(web.proxyUrl, "http://robots-unreachable.test/robots.txt")).rejects.toThrow();
    const reset = web.requestsTo("robots-unreachable.test")[0];
    expect(reset).toMatchObject({ status: 0, completed: false });
  });

  test("every special host declares its robots policy and a description", () => {
    for (const host of web.hosts.filter((h) => !h.startsWith("site"))) {
      const b = web.behaviour(host);
      expect(b?.description.length).toBeGreaterThan(10);
      expect(["rules", "allow-all", "disallow-all"]).toContain(b!.robots.kind);
    }
  });

  test("slow.test answers after about 1.5 s", async () => {
    const t0 = performance.now();
    expect((await get("http://slow.test/")).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(SLOW_MS - 20);
  });

  test("drip.test sends its head, then one byte per interval", async () => {
    const t0 = performance.now();
    const r = await proxyGet(web.proxyUrl, "http://drip.test/", { maxBytes: 2 });
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe("<!");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(2 * DRIP_INTERVAL_MS - 20);
  });

  test("hang.test serves robots.txt but never answers a page", async () => {
    expect((await get("http://hang.test/robots.txt")).status).toBe(200);
    await expect(proxyGet(web.proxyUrl, "http://hang.test/", { timeoutMs: 100 })).rejects.toThrow(/timeout/);
  });

  test("ratelimit.test answers 429 with Retry-After twice, then 200", async () => {
    const statuses: Array<[number, string | undefined]> = [];
    for (let i = 0; i < 3; i++) {
      const r = await get("http://ratelimit.test/");
      statuses.push([r.status, r.headers["retry-after"]]);
    }
    expect(statuses).toEqual([
      [429, "3"],
      [429, "3"],
      [200, undefined],
    ]);
    expect(web.requestsTo("ratelimit.test")[0]?.retryAfter).toBe("3");
  });

  test("unavailable.test answers 503 with an HTTP-date Retry-After a few seconds ahead, then 200", async () => {
    const first = await get("http://unavailable.test/");
    expect(first.status).toBe(503);
    const until = Date.parse(String(first.headers["retry-after"]));
    expect(until - Date.now()).toBeGreaterThan(2500);
    expect(until - Date.now()).toBeLessThan(4500);
    expect((await get("http://unavailable.test/")).status).toBe(200);
  });

  test("redirects.test chains, loops, runs long and leaves the host", async () => {
    const hop = async (path: string) => {
      const r = await get(`http://redirects.test${path}`);
      return [r.status, r.headers.location];
    };
    expect(await hop("/r/1")).toEqual([301, "http://redirects.test/r/2"]);
    expect(await hop("/r/2")).toEqual([302, "/r/3"]);
    expect(await hop("/r/3")).toEqual([307, "4"]);
    expect(await hop("/r/4")).toEqual([308, "/final"]);
    expect((await get("http://redirects.test/final")).status).toBe(200);
    expect(await hop("/loop/a")).toEqual([302, "/loop/b"]);
    expect(await hop("/loop/b")).toEqual([302, "/loop/a"]);
    expect(await hop("/long/8")).toEqual([301, "/long/end"]);
    expect(await hop("/away")).toEqual([302, "http://landing.test/from-redirects"]);
    expect((await get("http://landing.test/from-redirects")).status).toBe(200);
  });

  test("calendar.test, deep.test and repeat.test always have one more page", async () => {
    expect(await text("http://calendar.test/cal/2025/12/31")).toContain('href="/cal/2026/01/01"');
    expect((await get("http://calendar.test/cal/2025/02/30")).status).toBe(404);
    expect(await text("http://deep.test/d/1/2/3")).toContain('href="/d/1/2/3/4"');
    expect((await get("http://deep.test/d/1/3")).status).toBe(404);
    expect(await text("http://repeat.test/a/b/a/b/")).toContain('href="a/b/"');
    expect((await get("http://repeat.test/a/b/a/")).status).toBe(404);
  });

  test("errors.test answers each error status it links", async () => {
    for (const s of [404, 410, 403, 500]) expect((await get(`http://errors.test/${s}`)).status).toBe(s);
    expect((await get("http://errors.test/ok")).status).toBe(200);
  });

  test("malformed.test serves broken bytes with every expected link spelled in them", async () => {
    const body = (await get("http://malformed.test/")).body;
    expect(body.includes(Buffer.from([0x00, 0xff, 0xfe]))).toBe(true);
    const s = body.toString("latin1");
    for (const frag of ['HREF="upper"', "q?b=2&amp;a=1", "<noscript>", "<BASE HREF"]) expect(s).toContain(frag);
    expect(MALFORMED_LINKS.length).toBe(9);
  });

  test("bomb.test serves 10 MiB of zeros gzip-compressed and 20 MiB plain bodies", async () => {
    const bomb = await get("http://bomb.test/bomb");
    expect(bomb.headers["content-encoding"]).toBe("gzip");
    expect(bomb.body.length).toBeLessThan(64 * 1024);
    expect(gunzipSync(bomb.body).length).toBe(BOMB_BYTES);
    const huge = await proxyGet(web.proxyUrl, "http://bomb.test/huge", { maxBytes: 1 << 20 });
    expect(Number(huge.headers["content-length"])).toBe(HUGE_BYTES);
    const chunked = await proxyGet(web.proxyUrl, "http://bomb.test/huge-chunked", { maxBytes: 1 << 20 });
    expect(chunked.headers["content-length"]).toBeUndefined();
    expect(chunked.body.length).toBeGreaterThanOrEqual(1 << 20);
  });

  test("binary.test and nonhtml.test label link-looking bodies with non-HTML types", async () => {
    const png = await get("http://binary.test/image");
    expect(png.headers["content-type"]).toBe("image/png");
    expect(png.body.toString("latin1")).toContain('href="/trap-png"');
    expect((await get("http://binary.test/data")).headers["content-type"]).toBe("application/octet-stream");
    expect((await get("http://nonhtml.test/doc.pdf")).headers["content-type"]).toBe("application/pdf");
    expect((await get("http://nonhtml.test/notes.txt")).body.toString()).toContain("/trap-txt");
    expect((await get("http://nonhtml.test/page.xhtml")).headers["content-type"]).toBe("application/xhtml+xml");
    expect((await get("http://nonhtml.test/upper-type")).headers["content-type"]).toBe("TEXT/HTML; Charset=UTF-8");
  });

  test("nofollow.test marks links with rel, meta robots and X-Robots-Tag", async () => {
    const home = await text("http://nofollow.test/");
    expect(home).toContain('rel="nofollow" href="/nf/rel"');
    expect(await text("http://nofollow.test/meta-nofollow")).toContain('<meta name="robots" content="nofollow">');
    expect((await get("http://nofollow.test/header-nofollow")).headers["x-robots-tag"]).toBe("noindex, nofollow");
  });

  test("etag.test answers 304 to a matching If-None-Match or If-Modified-Since", async () => {
    const first = await get("http://etag.test/page/1");
    expect(first.headers.etag).toBe(stableEtag("/page/1"));
    const lm = String(first.headers["last-modified"]);
    expect((await get("http://etag.test/page/1", { "if-none-match": stableEtag("/page/1") })).status).toBe(304);
    expect((await get("http://etag.test/page/1", { "if-none-match": '"other"' })).status).toBe(200);
    expect((await get("http://etag.test/page/1", { "if-modified-since": lm })).status).toBe(304);
    expect((await get("http://etag.test/page/1", { "if-modified-since": "Tue, 31 Dec 2024 00:00:00 GMT" })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await get("http://etag.test/page/1", { "if-none-match": '"other"', "if-modified-since": lm })).status).toBe(200);
  });

  test("etag.test/changing has a new version at every fetch", async () => {
    const a = await get("http://etag.test/changing");
    const b = await get("http://etag.test/changing", { "if-none-match": String(a.headers.etag) });
    expect(b.status).toBe(200);
    expect(b.headers.etag).not.toBe(a.headers.etag);
    expect(b.body.equals(a.body)).toBe(false);
  });

  test("dup.test serves byte-identical copies and one-word near-duplicates", async () => {
    const a = (await get("http://dup.test/a")).body;
    for (const p of ["/b", "/copy/a", "/c?ref=1"]) expect((await get(`http://dup.test${p}`)).body.equals(a)).toBe(true);
    const words = (b: Buffer) => b.toString().split(" ");
    for (const p of ["/near/1", "/near/2"]) {
      const near = words((await get(`http://dup.test${p}`)).body);
      const base = words(a);
      expect(near.length).toBe(base.length);
      expect(near.filter((w, i) => w !== base[i]).length).toBe(1);
    }
    expect((await get("http://dup.test/other")).body.equals(a)).toBe(false);
  });

  test("sitemap hosts name their sitemaps in robots.txt and serve them as documented", async () => {
    const robots = await text("http://sitemap-robots.test/robots.txt");
    expect(robots).toContain("Sitemap: http://sitemap-robots.test/maps/index.xml");
    expect(robots).toContain("Sitemap: http://sitemap-store.test/maps/for-robots.xml");
    expect(await text("http://sitemap-robots.test/maps/index.xml")).toContain("<sitemapindex");
    const gz = await get("http://sitemap-robots.test/maps/more.xml.gz");
    expect(gz.headers["content-encoding"]).toBeUndefined();
    expect(gunzipSync(gz.body).toString()).toContain("<loc>http://sitemap-robots.test/from-gzip/1</loc>");
    const big = await text("http://sitemap-limits.test/big.xml");
    expect(big.split("<url>").length - 1).toBe(SITEMAP_BIG_KEPT + SITEMAP_BIG_FILLERS + SITEMAP_BIG_BEYOND);
    expect(SITEMAP_BIG_KEPT + SITEMAP_BIG_FILLERS).toBe(50_000);
    const huge = await get("http://sitemap-huge.test/huge.xml.gz");
    expect(huge.body.length).toBeLessThan(1024 * 1024);
    const unpacked = gunzipSync(huge.body).toString();
    expect(unpacked.length).toBeGreaterThan(SITEMAP_HUGE_PADDING);
    expect(unpacked.indexOf("/huge/after")).toBeGreaterThan(52_428_800);
    const lastmod = /<lastmod>([^<]+)<\/lastmod>/.exec(await text("http://sitemap-lastmod.test/sitemap.xml"))?.[1];
    expect(Math.abs(Date.parse(lastmod ?? "") - Date.now())).toBeLessThan(60_000);
  });

  test("neardup.test: /near is within 3 bits of /orig by the SimHash of its text, /later is not", async () => {
    const hash = async (p: string) => simhash64(extractPage(await text(`http://neardup.test${p}`), `http://neardup.test${p}`).text);
    const orig = await hash("/orig");
    expect(hammingDistance(orig, await hash("/near"))).toBeLessThanOrEqual(3);
    expect(hammingDistance(orig, await hash("/later"))).toBeGreaterThan(3);
    expect(await text("http://neardup.test/near")).not.toBe(await text("http://neardup.test/orig"));
  });

  test("media.test: each page names exactly the media of MEDIA_ON_PAGE; media answer with their type and a link inside", async () => {
    for (const [url, media] of Object.entries(MEDIA_ON_PAGE)) {
      const found = extractPage(await text(url), url)
        .media.map((m) => m.resolved)
        .filter((m): m is string => m !== undefined);
      expect([...new Set(found)]).toEqual(media);
    }
    const jpg = await get("http://media.test/img/a.jpg");
    expect(jpg.headers["content-type"]).toBe("image/jpeg");
    expect(jpg.body.toString("latin1")).toContain('href="/trap-media"');
    expect((await get("http://media.test/img/huge.jpg")).body.length).toBe(MEDIA_HUGE_BYTES);
    expect((await get("http://media.test/media/sound.ogg")).headers["content-type"]).toBe("audio/ogg");
    expect((await get("http://media-cdn.test/shared/banner.jpg")).status).toBe(200);
  });

  test("every mustFetch path of a host answers something other than 502", async () => {
    for (const host of web.hosts.filter((h) => !h.startsWith("site"))) {
      if (["hang.test", "drip.test", "slow.test"].includes(host)) continue;
      for (const p of web.behaviour(host)?.mustFetch ?? []) {
        const r = await proxyGet(web.proxyUrl, `http://${host}${p}`, { agent, maxBytes: 1 << 16 });
        expect(r.status).not.toBe(502);
        expect(r.status).not.toBe(0);
      }
    }
  });
});

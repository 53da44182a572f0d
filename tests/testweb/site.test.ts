import { describe, expect, test } from "bun:test";
import { resolveShape } from "./server.ts";
import { siteLinks, sitePage, sitePathKind } from "./site.ts";
import { prosePool } from "./text.ts";

const shape = resolveShape({});
const pool = prosePool(shape.seed);

describe("normal host generator", () => {
  test("renders the same bytes for the same seed, host and path", () => {
    const a = sitePage(shape, prosePool(shape.seed), "site3.test", "/page/7");
    const b = sitePage(shape, pool, "site3.test", "/page/7");
    expect(a).toEqual(b);
  });

  test("renders different pages for a different seed", () => {
    const other = { ...shape, seed: 2 };
    expect(sitePage(other, prosePool(2), "site3.test", "/page/7").body).not.toBe(sitePage(shape, pool, "site3.test", "/page/7").body);
  });

  test("makes pages of about pageBytes", () => {
    for (const path of ["/", "/page/0", "/page/19"]) {
      const n = Buffer.byteLength(sitePage(shape, pool, "site0.test", path).body);
      expect(n).toBeGreaterThan(shape.pageBytes * 0.95);
      expect(n).toBeLessThan(shape.pageBytes * 1.1);
    }
    const small = { ...shape, pageBytes: 3000 };
    expect(Buffer.byteLength(sitePage(small, pool, "site0.test", "/").body)).toBeLessThan(6000);
  });

  test("puts every generated link on the page with its href", () => {
    const page = sitePage(shape, pool, "site1.test", "/page/4").body;
    const links = siteLinks(shape, "site1.test", "/page/4");
    expect(links.length).toBeGreaterThanOrEqual(shape.linksPerPage + 1);
    for (const l of links) expect(page).toContain(`href="${l.href}"`);
    const hrefs = page.match(/href="/g) ?? [];
    // Nothing else on the page looks like a link: the page is exactly its link list.
    expect(hrefs.length).toBe(links.length);
  });

  test("links mostly within the host and sometimes to other hosts", () => {
    let same = 0;
    let other = 0;
    for (let k = 0; k < shape.pagesPerHost; k++) {
      for (const l of siteLinks(shape, "site2.test", `/page/${k}`)) {
        if (new URL(l.url).hostname === "site2.test") same++;
        else other++;
      }
    }
    expect(other).toBeGreaterThan(0);
    expect(same).toBeGreaterThan(other * 4);
  });

  test("writes hrefs that resolve and normalise to their canonical URL", () => {
    for (const path of ["/", "/page/3", "/private/public-notes"]) {
      for (const l of siteLinks(shape, "site5.test", path)) {
        const u = new URL(l.href.replaceAll("&amp;", "&"), `http://site5.test${path}`);
        u.hash = "";
        for (const k of [...u.searchParams.keys()]) if (k.startsWith("utm_")) u.searchParams.delete(k);
        expect(u.href.replace(/\?$/, "")).toBe(l.url);
      }
    }
  });

  test("baits only paths robots.txt disallows", () => {
    let baits = 0;
    for (let k = 0; k < shape.pagesPerHost; k++) {
      for (const l of siteLinks(shape, "site0.test", `/page/${k}`)) {
        if (!l.bait) continue;
        baits++;
        expect(l.url).toMatch(/\/private\/\d+$|\.pdf$/);
      }
    }
    expect(baits).toBeGreaterThan(0);
  });

  test("gives different pages different text", () => {
    const words = (s: string) => new Set(s.replace(/<[^>]+>/g, " ").split(/\s+/));
    const a = words(sitePage(shape, pool, "site0.test", "/page/1").body);
    const b = words(sitePage(shape, pool, "site0.test", "/page/2").body);
    const common = [...a].filter((w) => b.has(w)).length;
    expect(common / a.size).toBeLessThan(0.8);
  });

  test("knows which paths exist, ignoring the query", () => {
    expect(sitePathKind(shape, "/")).toBe("home");
    expect(sitePathKind(shape, "/page/19?utm_source=x")).toBe("page");
    expect(sitePathKind(shape, "/page/20")).toBeUndefined();
    expect(sitePathKind(shape, "/page/07")).toBeUndefined();
    expect(sitePage(shape, pool, "site0.test", "/nope").status).toBe(404);
  });
});

import { describe, expect, test } from "bun:test";
import {
  entryAllowed,
  levelOfSitemapPriority,
  parseLastmod,
  parseSitemapPriority,
  robotsGrant,
  sameSite,
  sitemapDirectory,
} from "./index.ts";

describe("sitemap protocol rules", () => {
  test("a sitemap speaks for its own directory: same scheme, host, port and path prefix", () => {
    const sm = "http://example.com/catalog/sitemap.xml";
    expect(sitemapDirectory(sm)).toBe("http://example.com/catalog/");
    expect(sitemapDirectory("http://example.com/sitemap.xml?v=2")).toBe("http://example.com/");
    expect(sitemapDirectory("http://example.com")).toBe("http://example.com/");
    expect(entryAllowed("http://example.com/catalog/show?item=23", sm, [])).toBe(true);
    expect(entryAllowed("http://example.com/image/show?item=23", sm, [])).toBe(false);
    expect(entryAllowed("https://example.com/catalog/page1", sm, [])).toBe(false);
    expect(entryAllowed("http://sub.example.com/catalog/page1", sm, [])).toBe(false);
    expect(entryAllowed("http://example.com:100/catalog/page1", sm, [])).toBe(false);
  });

  test("a robots.txt grants the sitemaps it names its whole origin, wherever they live", () => {
    const grant = robotsGrant("http://www.host1.com/robots.txt");
    expect(grant).toBe("http://www.host1.com/");
    const sm = "http://www.sitemaphost.com/sitemap-host1.xml";
    expect(entryAllowed("http://www.host1.com/deep/page", sm, [grant])).toBe(true);
    expect(entryAllowed("http://www.host2.com/page", sm, [grant])).toBe(false);
    expect(robotsGrant("http://h.test:8080/robots.txt")).toBe("http://h.test:8080/");
  });

  test("an index may list only sitemaps of its own site", () => {
    expect(sameSite("http://www.yoursite.com/sitemap_index.xml", "http://www.yoursite.com/a/sitemap1.xml.gz")).toBe(true);
    expect(sameSite("http://www.yoursite.com/sitemap_index.xml", "http://yourhost.yoursite.com/sitemap1.xml")).toBe(false);
    expect(sameSite("http://www.yoursite.com/sitemap_index.xml", "https://www.yoursite.com/sitemap1.xml")).toBe(false);
  });

  test("lastmod reads W3C Datetime, and nothing else", () => {
    expect(parseLastmod("2025-01-31")).toBe(Date.UTC(2025, 0, 31));
    expect(parseLastmod("2005")).toBe(Date.UTC(2005, 0, 1));
    expect(parseLastmod("2004-12")).toBe(Date.UTC(2004, 11, 1));
    expect(parseLastmod("2004-12-23T18:00:15+00:00")).toBe(Date.UTC(2004, 11, 23, 18, 0, 15));
    expect(parseLastmod("2004-12-23T18:00:15+01:00")).toBe(Date.UTC(2004, 11, 23, 17, 0, 15));
    expect(parseLastmod("2004-12-23T18:00Z")).toBe(Date.UTC(2004, 11, 23, 18, 0));
    expect(parseLastmod("1997-07-16T19:20:30.45-05:00")).toBe(Date.UTC(1997, 6, 17, 0, 20, 30, 450));
    expect(parseLastmod(" 2025-01-31T08:00:00 ")).toBe(Date.UTC(2025, 0, 31, 8));
    for (const bad of ["", "yesterday", "2025-02-30", "2025-13-01", "31/01/2025", "2025-01-31T25:00Z", "2025-01-31T08:00+99:00"])
      expect(parseLastmod(bad)).toBeUndefined();
  });

  test("priority maps onto the three front queues: >= 0.8 first, < 0.3 last", () => {
    expect(levelOfSitemapPriority(1)).toBe(1);
    expect(levelOfSitemapPriority(0.8)).toBe(1);
    expect(levelOfSitemapPriority(0.5)).toBe(2);
    expect(levelOfSitemapPriority(0.3)).toBe(2);
    expect(levelOfSitemapPriority(0.29)).toBe(3);
    expect(levelOfSitemapPriority(0)).toBe(3);
    expect(levelOfSitemapPriority(undefined)).toBeUndefined();
    expect(levelOfSitemapPriority(1.5)).toBeUndefined();
    expect(parseSitemapPriority("0.8")).toBe(0.8);
    expect(parseSitemapPriority(".5")).toBe(0.5);
    expect(parseSitemapPriority("1.0")).toBe(1);
    for (const bad of ["high", "1.1", "-0.1", "", "0.5.1"]) expect(parseSitemapPriority(bad)).toBeUndefined();
  });
});

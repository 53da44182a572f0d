import { describe, expect, test } from "bun:test";
import { SitemapReader, type SitemapEntry, type SitemapReaderLimits } from "./sitemap.ts";

const enc = new TextEncoder();

/** Feeds `body` in chunks of `size` bytes; returns the entries and the reader. */
function read(body: string | Uint8Array, size = 7, limits: Partial<SitemapReaderLimits> = {}) {
  const entries: SitemapEntry[] = [];
  const reader = new SitemapReader((e) => entries.push(e), limits);
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  for (let i = 0; i < bytes.length && !reader.done; i += size) reader.write(bytes.subarray(i, i + size));
  reader.end();
  return { entries, reader };
}

const URLSET = `\uFEFF<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>http://www.example.com/</loc><lastmod>2005-01-01</lastmod><changefreq>monthly</changefreq><priority>0.8</priority></url>
  <url>
    <loc>
      http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii
    </loc>
    <image:image><image:loc>http://www.example.com/image.jpg</image:loc></image:image>
  </url>
  <url><loc><![CDATA[http://www.example.com/cdata?a=1&b=2]]></loc></url>
  <url><lastmod>2004-12-23</lastmod></url>
</urlset>`;

describe("sitemap reader", () => {
  test("reads a urlset in small chunks: entities, CDATA and blanks undone, an image extension's loc as the entry's media, not an entry", () => {
    const { entries, reader } = read(URLSET, 5);
    expect(reader.format).toBe("urlset");
    expect(entries).toEqual([
      { loc: "http://www.example.com/", lastmod: "2005-01-01", priority: "0.8" },
      { loc: "http://www.example.com/catalog?item=12&desc=vacation_hawaii", media: ["http://www.example.com/image.jpg"] },
      { loc: "http://www.example.com/cdata?a=1&b=2" },
      { loc: "", lastmod: "2004-12-23" },
    ]);
    expect(reader.limit).toBeUndefined();
  });

  test("reads a sitemap index, and prefixed elements bound to the sitemaps namespace", () => {
    const { entries, reader } = read(
      `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
         <sm:sitemap><sm:loc>http://a.test/s1.xml.gz</sm:loc><sm:lastmod>2004-10-01T18:23:17+00:00</sm:lastmod></sm:sitemap>
         <sm:sitemap><sm:loc>http://a.test/s2.xml</sm:loc><sm:priority>0.9</sm:priority></sm:sitemap>
       </sm:sitemapindex>`,
    );
    expect(reader.format).toBe("index");
    expect(entries).toEqual([{ loc: "http://a.test/s1.xml.gz", lastmod: "2004-10-01T18:23:17+00:00" }, { loc: "http://a.test/s2.xml" }]);
  });

  test("reads a text sitemap line by line, CRLF and blank lines too; an over-long line is an empty entry", () => {
    const { entries, reader } = read(`http://a.test/1\r\n\r\n  http://a.test/2  \nhttp://a.test/${"x".repeat(9000)}\nhttp://a.test/3`, 3);
    expect(reader.format).toBe("text");
    expect(entries.map((e) => e.loc)).toEqual(["http://a.test/1", "http://a.test/2", "", "http://a.test/3"]);
  });

  test("an HTML page is not a sitemap, and is not read on; a feed's channel link is not an entry", () => {
    const html = read("<!doctype html><html><body><a href='http://a.test/'>x</a><url><loc>http://a.test/x</loc></url></body></html>");
    expect(html.reader.format).toBe("not-a-sitemap");
    expect(html.entries).toEqual([]);
    const feed = read(`<?xml version="1.0"?><rss><channel><link>http://a.test/</link></channel></rss>`);
    expect([feed.reader.format, feed.entries]).toEqual(["rss", []]);
    expect(read("").reader.format).toBe("not-a-sitemap");
  });

  test("stops after the entry limit, and says so", () => {
    const body = `<urlset>${Array.from({ length: 12 }, (_, i) => `<url><loc>http://a.test/${i}</loc></url>`).join("")}</urlset>`;
    const { entries, reader } = read(body, 64, { maxEntries: 10 });
    expect(entries.length).toBe(10);
    expect(entries.at(-1)?.loc).toBe("http://a.test/9");
    expect(reader.limit).toBe("entries");
    expect(
      read(`<urlset>${"<url><loc>http://a.test/x</loc></url>".repeat(10)}</urlset>`, 64, { maxEntries: 10 }).reader.limit,
    ).toBeUndefined();
  });

  test("stops at the byte limit: an entry cut by it is not taken", () => {
    const head = "<urlset><url><loc>http://a.test/1</loc></url>";
    const body = `${head}<url><loc>http://a.test/2</loc></url></urlset>`;
    const { entries, reader } = read(body, 4, { maxBytes: head.length + 10 });
    expect(entries.map((e) => e.loc)).toEqual(["http://a.test/1"]);
    expect(reader.limit).toBe("bytes");
    expect(reader.bytes).toBe(head.length + 10);
  });

  test("a multi-byte character split across chunks survives", () => {
    const { entries } = read("<urlset><url><loc>http://a.test/caf\u00e9/\u65e5\u672c</loc></url></urlset>", 1);
    expect(entries).toEqual([{ loc: "http://a.test/caf\u00e9/\u65e5\u672c" }]);
  });
});

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>News</title><link>http://news.example/</link>
    <atom:link href="http://news.example/feed.xml" rel="self" type="application/rss+xml"/>
    <item><title>One</title><link>http://news.example/2026/one?a=1&amp;b=2</link><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item>
    <item><title>Two</title><link><![CDATA[http://news.example/2026/two]]></link><pubDate>not a date</pubDate></item>
    <item><title>No link</title><description>&lt;a href="http://news.example/x"&gt;x&lt;/a&gt;</description></item>
  </channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Blog</title><link href="http://blog.example/" rel="alternate"/><updated>2026-01-02T03:04:05Z</updated>
  <entry>
    <title>First</title>
    <link rel="edit" href="http://blog.example/edit/1"/>
    <link href="http://blog.example/posts/1?x=1&amp;y=2"/>
    <published>2025-12-31T23:00:00-01:00</published>
  </entry>
  <entry>
    <link rel="alternate" type="text/html" href="http://blog.example/posts/2"/>
    <published>2025-01-01T00:00:00Z</published>
    <updated>2026-01-02T03:04:05+02:00</updated>
  </entry>
</feed>`;

describe("feed reader", () => {
  test("reads an RSS 2.0 feed: each item's link, its pubDate (RFC 822) as lastmod in UTC; the channel's own links are not items", () => {
    const { entries, reader } = read(RSS, 6);
    expect(reader.format).toBe("rss");
    expect(entries).toEqual([
      { loc: "http://news.example/2026/one?a=1&b=2", lastmod: "2003-06-10T04:00:00.000Z" },
      { loc: "http://news.example/2026/two" },
      { loc: "" },
    ]);
  });

  test("reads an Atom 1.0 feed: each entry's alternate link, updated else published as lastmod", () => {
    const { entries, reader } = read(ATOM, 9);
    expect(reader.format).toBe("atom");
    expect(entries).toEqual([
      { loc: "http://blog.example/posts/1?x=1&y=2", lastmod: "2026-01-01T00:00:00.000Z" },
      { loc: "http://blog.example/posts/2", lastmod: "2026-01-02T01:04:05.000Z" },
    ]);
  });

  test("a feed's items count against the entry limit like a sitemap's", () => {
    const items = Array.from({ length: 5 }, (_, i) => `<item><link>http://news.example/${i}</link></item>`).join("");
    const { entries, reader } = read(`<rss><channel>${items}</channel></rss>`, 50, { maxEntries: 3 });
    expect(entries.map((e) => e.loc)).toEqual(["http://news.example/0", "http://news.example/1", "http://news.example/2"]);
    expect(reader.limit).toBe("entries");
  });

  test("RSS 1.0 (RDF) and an HTML page are not read as feeds", () => {
    expect(read(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><item/></rdf:RDF>`).reader.format).toBe("not-a-sitemap");
    expect(read("<!doctype html><html><body>hi</body></html>").reader.format).toBe("not-a-sitemap");
  });
});

describe("sitemap extensions", () => {
  test("news and video publication dates stand in for a missing lastmod; video content and thumbnails are media; other namespaces are ignored", () => {
    const body = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:fake="http://fake.example/ns">
      <url><loc>http://n.example/story</loc>
        <news:news><news:publication><news:name>N</news:name></news:publication><news:publication_date>2026-12-04T10:00:00+01:00</news:publication_date></news:news>
      </url>
      <url><loc>http://n.example/dated</loc><lastmod>2026-01-01</lastmod>
        <news:news><news:publication_date>2026-12-04</news:publication_date></news:news>
      </url>
      <url><loc>http://n.example/clip</loc>
        <video:video><video:thumbnail_loc>http://n.example/t.jpg</video:thumbnail_loc><video:content_loc>http://n.example/v.mp4</video:content_loc>
          <video:publication_date>2026-11-30T08:00:00Z</video:publication_date><video:player_loc>http://n.example/player</video:player_loc></video:video>
      </url>
      <url><loc>http://n.example/fake</loc><fake:x><fake:publication_date>2026-01-01</fake:publication_date><fake:loc>http://n.example/f.jpg</fake:loc></fake:x></url>
    </urlset>`;
    const { entries } = read(body, 11);
    expect(entries).toEqual([
      { loc: "http://n.example/story", lastmod: "2026-12-04T09:00:00.000Z" },
      { loc: "http://n.example/dated", lastmod: "2026-01-01" },
      { loc: "http://n.example/clip", lastmod: "2026-11-30T08:00:00.000Z", media: ["http://n.example/t.jpg", "http://n.example/v.mp4"] },
      { loc: "http://n.example/fake" },
    ]);
  });
});

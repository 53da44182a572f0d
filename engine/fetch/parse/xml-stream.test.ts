import { describe, expect, test } from "bun:test";
import { decodeXmlText, XmlStream } from "./xml-stream.ts";

/** Tokenizes `doc` fed in chunks of `size` characters; returns the events as strings. */
function events(doc: string, size: number): string[] {
  const out: string[] = [];
  let text = "";
  const flush = () => {
    if (text.trim() !== "") out.push(`text ${decodeXmlText(text)}`);
    text = "";
  };
  const xml = new XmlStream({
    open: (name, attrs, self) => {
      flush();
      out.push(`open ${name}${Object.keys(attrs).length ? ` ${JSON.stringify(attrs)}` : ""}${self ? " /" : ""}`);
    },
    close: (name) => {
      flush();
      out.push(`close ${name}`);
    },
    text: (raw) => (text += raw),
  });
  for (let i = 0; i < doc.length; i += size) xml.write(doc.slice(i, i + size));
  flush();
  return out;
}

const DOC = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE urlset [ <!ENTITY x "y"> ]>
<!-- a comment with <url><loc>http://fake/</loc></url> inside -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image='http://www.google.com/schemas/sitemap-image/1.1'>
  <url><loc>http://a.test/?a=1&amp;b=&#x32;&#51;</loc><image:image/></url>
  <url><loc><![CDATA[http://a.test/cdata?x=1&y=<2>]]></loc><lastmod >2025-01-01</lastmod ></url>
</urlset>`;

const EXPECTED = [
  'open urlset {"xmlns":"http://www.sitemaps.org/schemas/sitemap/0.9","xmlns:image":"http://www.google.com/schemas/sitemap-image/1.1"}',
  "open url",
  "open loc",
  "text http://a.test/?a=1&b=23",
  "close loc",
  "open image:image /",
  "close image:image",
  "close url",
  "open url",
  "open loc",
  "text http://a.test/cdata?x=1&y=<2>",
  "close loc",
  "open lastmod",
  "text 2025-01-01",
  "close lastmod",
  "close url",
  "close urlset",
];

describe("xml stream", () => {
  test("reports tags, attributes and text, skipping comments, processing instructions and the doctype, whatever the chunking", () => {
    for (const size of [1, 2, 3, 5, 7, 13, 64, 100_000]) expect(events(DOC, size)).toEqual(EXPECTED);
  });

  test("holds nothing of a huge comment, CDATA or text: memory does not grow with the input", () => {
    const xml = new XmlStream({ open() {}, close() {}, text() {} });
    xml.write("<urlset><!--");
    let most = 0;
    const piece = "x".repeat(65_536);
    for (let i = 0; i < 200; i++) {
      xml.write(piece);
      most = Math.max(most, xml.heldChars);
    }
    xml.write("--><![CDATA[");
    for (let i = 0; i < 200; i++) {
      xml.write(piece);
      most = Math.max(most, xml.heldChars);
    }
    expect(most).toBeLessThan(8);
    expect(xml.malformed).toBe(false);
  });

  test("a tag longer than the bound ends the document as malformed", () => {
    const seen: string[] = [];
    const xml = new XmlStream({ open: (n) => seen.push(n), close() {}, text() {} }, 100);
    xml.write(`<urlset a="${"x".repeat(200)}">`);
    xml.write("<url>");
    expect(xml.malformed).toBe(true);
    expect(seen).toEqual([]);
    expect(xml.heldChars).toBe(0);
  });

  test("decodes the five entities and numeric references, and leaves others as written", () => {
    expect(decodeXmlText("a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;&nbsp;&#0;&#xD800;&")).toBe(`a&b<>"'AB&nbsp;&#0;&#xD800;&`);
  });
});

import { describe, expect, test } from "bun:test";
import { createPageExtractor, extractPage, type ExtractedPage } from "./extract.ts";
import { collapseWhitespace } from "./text.ts";

const PAGE = "https://example.com/dir/page.html";

function resolved(page: ExtractedPage): (string | undefined)[] {
  return page.links.map((l) => l.resolved);
}

describe("extractPage links", () => {
  test("extract - resolves relative, root-relative, protocol-relative and absolute hrefs", () => {
    const page = extractPage(
      `<a href="a.html">1</a><a href="/b">2</a><a href="//cdn.example.org/c">3</a><a href="http://x.test/d">4</a>`,
      PAGE,
    );
    expect(resolved(page)).toEqual([
      "https://example.com/dir/a.html",
      "https://example.com/b",
      "https://cdn.example.org/c",
      "http://x.test/d",
    ]);
  });

  test("extract - keeps the raw href and drops the fragment only from the resolved URL", () => {
    const [link] = extractPage(`<a href="x.html#section">x</a>`, PAGE).links;
    expect(link?.href).toBe("x.html#section");
    expect(link?.resolved).toBe("https://example.com/dir/x.html");
  });

  test("extract - decodes entities in attributes", () => {
    const [link] = extractPage(`<a href="/s?a=1&amp;b=2&#38;c=&quot;3&quot;">x</a>`, PAGE).links;
    expect(link?.href).toBe(`/s?a=1&b=2&c="3"`);
    expect(link?.resolved).toBe("https://example.com/s?a=1&b=2&c=%223%22");
  });

  test("extract - reads upper-case and mixed-case tags and attributes", () => {
    const page = extractPage(`<A HREF="/up">x</A><IFrame SRC="/frame"></IFRAME><Area Href="/area">`, PAGE);
    expect(page.links.map((l) => [l.tag, l.resolved])).toEqual([
      ["a", "https://example.com/up"],
      ["iframe", "https://example.com/frame"],
      ["area", "https://example.com/area"],
    ]);
  });

  test("extract - accepts unquoted and single-quoted attribute values", () => {
    expect(resolved(extractPage(`<a href=/u1>x</a><a href='/u2'>y</a>`, PAGE))).toEqual([
      "https://example.com/u1",
      "https://example.com/u2",
    ]);
  });

  test("extract - takes links from a, area, iframe and frame but not from img or script src", () => {
    const page = extractPage(
      `<img src="/i.png"><script src="/s.js"></script><frameset><frame src="/f1"></frameset>` +
        `<map><area href="/ar"></map><iframe src="/if"></iframe><a>no href</a>`,
      PAGE,
    );
    expect(page.links.map((l) => l.tag)).toEqual(["frame", "area", "iframe"]);
  });

  test("extract - takes link elements only for alternate and canonical, not stylesheets or icons", () => {
    const page = extractPage(
      `<link rel="stylesheet" href="/s.css"><link rel="icon" href="/f.ico">` +
        `<link rel="alternate" hreflang="de" href="/de/"><link rel="Alternate Stylesheet" href="/alt.css">` +
        `<link rel="alternate" type="application/rss+xml" href="/feed"><link rel="canonical" href="/canon">`,
      PAGE,
    );
    expect(resolved(page)).toEqual(["https://example.com/de/", "https://example.com/feed", "https://example.com/canon"]);
    expect(page.canonical).toBe("https://example.com/canon");
  });

  test("extract - records only the first canonical", () => {
    const page = extractPage(`<link rel=canonical href="/one"><link rel=canonical href="/two">`, PAGE);
    expect(page.canonical).toBe("https://example.com/one");
  });

  test("extract - marks rel=nofollow links, whatever the case and other keywords", () => {
    const page = extractPage(
      `<a href="/1" rel="nofollow">a</a><a href="/2" rel="noopener NoFollow ugc">b</a><a href="/3" rel="sponsored">c</a><a href="/4">d</a>`,
      PAGE,
    );
    expect(page.links.map((l) => l.nofollow)).toEqual([true, true, false, false]);
    expect(page.links.map((l) => l.rel)).toEqual(["nofollow", "noopener NoFollow ugc", "sponsored", undefined]);
  });

  test("extract - leaves non-http schemes unresolved but keeps them in the list", () => {
    const page = extractPage(
      `<a href="javascript:void(0)">j</a><a href="mailto:a@b.c">m</a><a href="data:text/html,hi">d</a>` +
        `<a href="tel:+1">t</a><a href="ftp://f.test/x">f</a><a href="  JavaScript:alert(1)">J</a>`,
      PAGE,
    );
    expect(page.links).toHaveLength(6);
    expect(page.links.every((l) => l.resolved === undefined)).toBe(true);
  });

  test("extract - leaves unparsable hrefs unresolved without throwing", () => {
    const page = extractPage(`<a href="http://[bad">x</a><a href="https://exa mple.com/">y</a>`, PAGE);
    expect(resolved(page)).toEqual([undefined, undefined]);
  });

  test("extract - trims surrounding whitespace and strips tabs and newlines as URL parsing does", () => {
    const [link] = extractPage(`<a href="  /pa\nth\t ">x</a>`, PAGE).links;
    expect(link?.resolved).toBe("https://example.com/path");
  });

  test("extract - resolves an empty href and a bare fragment to the page itself", () => {
    expect(resolved(extractPage(`<a href="">x</a><a href="#top">y</a>`, PAGE))).toEqual([PAGE, PAGE]);
  });
});

describe("extractPage base href", () => {
  test("extract - resolves links against base href, including links before the base element", () => {
    const page = extractPage(`<a href="early">e</a><base href="https://other.test/root/"><a href="late">l</a>`, PAGE);
    expect(page.baseUrl).toBe("https://other.test/root/");
    expect(resolved(page)).toEqual(["https://other.test/root/early", "https://other.test/root/late"]);
  });

  test("extract - resolves a relative base against the page URL", () => {
    const page = extractPage(`<head><base href="../sub/"></head><a href="x">x</a>`, PAGE);
    expect(page.baseUrl).toBe("https://example.com/sub/");
    expect(resolved(page)).toEqual(["https://example.com/sub/x"]);
  });

  test("extract - honours only the first base element that has an href", () => {
    const page = extractPage(`<base target="_blank"><base href="/first/"><base href="/second/"><a href="x">x</a>`, PAGE);
    expect(page.baseUrl).toBe("https://example.com/first/");
  });

  test("extract - ignores a base href that is not a usable http URL", () => {
    const page = extractPage(`<base href="javascript:alert(1)"><a href="x">x</a>`, PAGE);
    expect(page.baseUrl).toBe(PAGE);
    expect(resolved(page)).toEqual(["https://example.com/dir/x"]);
  });

  test("extract - returns the page URL as base when there is no base element", () => {
    expect(extractPage(`<p>hi</p>`, PAGE).baseUrl).toBe(PAGE);
  });

  test("extract - resolves the canonical against the base", () => {
    const page = extractPage(`<base href="https://b.test/x/"><link rel="canonical" href="c">`, PAGE);
    expect(page.canonical).toBe("https://b.test/x/c");
  });

  test("extract - resolves nothing when the page URL itself is invalid, and does not throw", () => {
    const page = extractPage(`<a href="/x">x</a><a href="https://ok.test/">y</a>`, "not a url");
    expect(page.baseUrl).toBe("not a url");
    expect(resolved(page)).toEqual([undefined, undefined]);
  });
});

describe("extractPage meta robots", () => {
  test("extract - reads noindex and nofollow from meta robots", () => {
    const page = extractPage(`<meta name="robots" content="noindex,nofollow">`, PAGE);
    expect(page.metaRobots).toEqual({ noindex: true, nofollow: true });
  });

  test("extract - treats none as noindex plus nofollow, case-insensitively", () => {
    const page = extractPage(`<META NAME="ROBOTS" CONTENT="NONE">`, PAGE);
    expect(page.metaRobots).toEqual({ noindex: true, nofollow: true });
  });

  test("extract - combines several meta robots tags, the most restrictive winning", () => {
    const page = extractPage(`<meta name="robots" content="noindex"><meta name="robots" content="index, follow, nofollow">`, PAGE);
    expect(page.metaRobots).toEqual({ noindex: true, nofollow: true });
  });

  test("extract - honours a meta tag named after our agent token but not other agents", () => {
    const html = `<meta name="MyCrawler" content="nofollow"><meta name="googlebot" content="noindex">`;
    expect(extractPage(html, PAGE, { agentToken: "mycrawler" }).metaRobots).toEqual({
      noindex: false,
      nofollow: true,
    });
    expect(extractPage(html, PAGE).metaRobots).toEqual({ noindex: false, nofollow: false });
  });

  test("extract - ignores meta robots without restrictive directives", () => {
    expect(extractPage(`<meta name="robots" content="index, follow, max-snippet:50">`, PAGE).metaRobots).toEqual({
      noindex: false,
      nofollow: false,
    });
  });

  test("extract - keeps rel=nofollow per link and meta nofollow page-wide, separately", () => {
    const page = extractPage(`<meta name=robots content=nofollow><a href="/a">a</a>`, PAGE);
    expect(page.metaRobots.nofollow).toBe(true);
    expect(page.links[0]?.nofollow).toBe(false);
  });
});

describe("extractPage special content", () => {
  test("extract - finds links inside noscript", () => {
    const page = extractPage(`<noscript><a href="/ns">no js</a><iframe src="/nsframe"></iframe></noscript>`, PAGE);
    expect(resolved(page)).toEqual(["https://example.com/ns", "https://example.com/nsframe"]);
    expect(page.text).toBe("no js");
  });

  test("extract - finds links inside template but leaves its text out", () => {
    const page = extractPage(`<p>shown</p><template><a href="/tpl">hidden text</a></template>`, PAGE);
    expect(resolved(page)).toEqual(["https://example.com/tpl"]);
    expect(page.text).toBe("shown");
  });

  test("extract - ignores markup inside script, style, textarea and title", () => {
    const page = extractPage(
      `<title><a href="/t">T</a></title><script>document.write('<a href="/s">x</a>')</script>` +
        `<style>a[href="/c"]{}</style><textarea><a href="/ta"></a></textarea><a href="/real">r</a>`,
      PAGE,
    );
    expect(resolved(page)).toEqual(["https://example.com/real"]);
  });

  test("extract - ignores a script that contains a closing-tag lookalike in a string until the real end", () => {
    const page = extractPage(`<script>var s = "<\\/script><a href='/x'>";</script><a href="/y">y</a>`, PAGE);
    expect(resolved(page)).toEqual(["https://example.com/y"]);
  });

  test("extract - ignores links inside comments", () => {
    expect(extractPage(`<!-- <a href="/c">c</a> --><a href="/r">r</a>`, PAGE).links).toHaveLength(1);
  });

  test("extract - reads SVG anchors with xlink:href", () => {
    const page = extractPage(`<svg><a xlink:href="/svg1"><text>t</text></a><a href="/svg2"></a></svg>`, PAGE);
    expect(resolved(page)).toEqual(["https://example.com/svg1", "https://example.com/svg2"]);
  });
});

describe("extractPage title and text", () => {
  test("extract - takes the first title, decoded and whitespace-collapsed", () => {
    const page = extractPage(`<title>\n  Fish &amp;  Chips \n</title><title>second</title>`, PAGE);
    expect(page.title).toBe("Fish & Chips");
  });

  test("extract - ignores an SVG title as the page title", () => {
    expect(extractPage(`<svg><title>icon</title></svg><title>Page</title>`, PAGE).title).toBe("Page");
  });

  test("extract - leaves title undefined when there is none", () => {
    expect(extractPage(`<p>x</p>`, PAGE).title).toBeUndefined();
  });

  test("extract - keeps an unclosed title", () => {
    expect(extractPage(`<title>Open end`, PAGE).title).toBe("Open end");
  });

  test("extract - keeps word breaks and excludes script and style text", () => {
    const page = extractPage(
      `<html><head><style>body{color:red}</style><script>var x = 1;</script></head>` +
        `<body>\n  <h1>Hello</h1>\n<p>big   <b>bold</b>\tworld&nbsp;!</p><script>alert(2)</script></body></html>`,
      PAGE,
    );
    expect(collapseWhitespace(page.text)).toBe("Hello big bold world !");
  });

  test("extract - separates block elements with a space but joins inline ones", () => {
    expect(collapseWhitespace(extractPage(`<p>one</p><p>two</p><div>th<b>r</b>ee</div>li<br>ne`, PAGE).text)).toBe("one two three li ne");
  });

  test("extract - caps the text", () => {
    const html = `<p>${"word ".repeat(10_000)}</p>`;
    const page = extractPage(html, PAGE, { maxTextChars: 1000 });
    expect(page.text.length).toBeLessThanOrEqual(1000);
    expect(page.text.startsWith("word word")).toBe(true);
  });

  test("extract - does not let indentation eat the text cap", () => {
    const html = `${" ".repeat(5_000)}<p>${"x".repeat(50)}</p>`;
    expect(extractPage(html, PAGE, { maxTextChars: 1000 }).text).toBe("x".repeat(50));
  });
});

describe("extractPage hostile input", () => {
  test("extract - survives unclosed tags and attributes at end of input", () => {
    for (const html of [`<a href="/x`, `<a href=`, `<div><p><a href="/y">`, `<`, `<!--`, `<script>`, `</a></b>`]) {
      expect(() => extractPage(html, PAGE)).not.toThrow();
    }
    expect(resolved(extractPage(`<div><p><a href="/y">text`, PAGE))).toEqual(["https://example.com/y"]);
  });

  test("extract - survives garbage bytes and control characters", () => {
    let garbage = "";
    let seed = 7;
    for (let i = 0; i < 50_000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      garbage += String.fromCharCode(seed % 0xffff);
    }
    expect(() => extractPage(garbage + `<a href="/after">x</a>`, PAGE)).not.toThrow();
  });

  test("extract - survives random tag soup", () => {
    const bits = [
      "<a href='/r'>",
      "</a>",
      "<",
      ">",
      "<script>",
      "</script>",
      "<base href='x/'>",
      "&amp;",
      "&#",
      '"',
      "'",
      "=",
      "<!--",
      "-->",
      "<svg>",
      "</svg>",
      "<template>",
      "text",
    ];
    let seed = 42;
    for (let round = 0; round < 200; round++) {
      let html = "";
      for (let i = 0; i < 60; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        html += bits[seed % bits.length];
      }
      expect(() => extractPage(html, PAGE)).not.toThrow();
    }
  });

  test("extract - handles a huge attribute value", () => {
    const huge = "/" + "a".repeat(2_000_000);
    const page = extractPage(`<a href="${huge}" title="${"t".repeat(1_000_000)}">x</a><a href="/next">n</a>`, PAGE);
    expect(page.links).toHaveLength(2);
    expect(page.links[1]?.resolved).toBe("https://example.com/next");
  });

  test("extract - caps the number of links kept", () => {
    const html = `<a href="/x">x</a>`.repeat(100);
    expect(extractPage(html, PAGE, { maxLinks: 10 }).links).toHaveLength(10);
  });
});

describe("createPageExtractor", () => {
  test("extract - gives the same result when fed in chunks split mid-tag and mid-entity", () => {
    const html = `<base href="/b/"><title>A &amp; B</title><a href="x?a=1&amp;b=2" rel="nofollow">x</a><p>text</p>`;
    const whole = extractPage(html, PAGE);
    for (const size of [1, 3, 7]) {
      const ex = createPageExtractor(PAGE);
      for (let i = 0; i < html.length; i += size) ex.write(html.slice(i, i + size));
      expect(ex.end()).toEqual(whole);
    }
  });

  test("extract - refuses a second end", () => {
    const ex = createPageExtractor(PAGE);
    ex.end();
    expect(() => ex.end()).toThrow();
  });
});

describe("extractPage media", () => {
  const media = (html: string) => extractPage(html, PAGE).media.map((m) => [m.kind, m.via, m.resolved]);

  test("extract - takes img src and every srcset candidate, resolved against the page", () => {
    expect(media(`<img src="a.png" srcset="b.png 2x, /c.png 3x" alt="x">`)).toEqual([
      ["image", "img/@src", "https://example.com/dir/a.png"],
      ["image", "img/@srcset", "https://example.com/dir/b.png"],
      ["image", "img/@srcset", "https://example.com/c.png"],
    ]);
  });

  test("extract - takes picture sources, video and audio with their sources, and a video's poster as an image", () => {
    const html =
      `<picture><source srcset="/p.webp 1x, /p2.webp 2x" type="image/webp"><img src="/p.jpg"></picture>` +
      `<video src="/v.mp4" poster="/poster.jpg"><source src="/v.webm" type="video/webm"></video>` +
      `<audio><source src="/a.ogg"><source src="/a.mp3"></audio>`;
    expect(media(html)).toEqual([
      ["image", "source/@srcset", "https://example.com/p.webp"],
      ["image", "source/@srcset", "https://example.com/p2.webp"],
      ["image", "img/@src", "https://example.com/p.jpg"],
      ["video", "video/@src", "https://example.com/v.mp4"],
      ["image", "video/@poster", "https://example.com/poster.jpg"],
      ["video", "source/@src", "https://example.com/v.webm"],
      ["audio", "source/@src", "https://example.com/a.ogg"],
      ["audio", "source/@src", "https://example.com/a.mp3"],
    ]);
  });

  test("extract - media are not links, and links are not media", () => {
    const page = extractPage(`<a href="/page"><img src="/i.png"></a><iframe src="/f"></iframe>`, PAGE);
    expect(page.links.map((l) => l.resolved)).toEqual(["https://example.com/page", "https://example.com/f"]);
    expect(page.media.map((m) => m.resolved)).toEqual(["https://example.com/i.png"]);
  });

  test("extract - resolves media against a <base href> that comes after them", () => {
    const page = extractPage(`<img src="i.png"><base href="https://cdn.example.net/static/">`, PAGE);
    expect(page.media[0]?.resolved).toBe("https://cdn.example.net/static/i.png");
  });

  test("extract - keeps data: and javascript: media unresolved, and ignores a source src outside video or audio", () => {
    const page = extractPage(`<img src="data:image/png;base64,AAAA"><source src="/lonely.mp4"><img src="javascript:x">`, PAGE);
    expect(page.media.map((m) => [m.src.slice(0, 10), m.resolved])).toEqual([
      ["data:image", undefined],
      ["javascript", undefined],
    ]);
  });

  test("extract - counts media inside noscript, decodes entities, reads upper-case tags", () => {
    const page = extractPage(`<noscript><IMG SRC="/lazy.jpg?a=1&amp;b=2"></noscript>`, PAGE);
    expect(page.media.map((m) => m.resolved)).toEqual(["https://example.com/lazy.jpg?a=1&b=2"]);
  });

  test("extract - caps the media kept per page", () => {
    const html = Array.from({ length: 50 }, (_, i) => `<img src="/i${i}.png">`).join("");
    expect(extractPage(html, PAGE, { maxMedia: 10 }).media).toHaveLength(10);
  });

  test("extract - a closed video does not make a later source a video", () => {
    expect(media(`<video src="/v.mp4"></video><source src="/stray.mp4">`)).toEqual([["video", "video/@src", "https://example.com/v.mp4"]]);
  });
});

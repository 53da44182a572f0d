/**
 * Measures link extraction on one core: pages per second for a synthetic 25 KB page with ~40 links, a
 * realistic mix of head metadata, inline script and style, navigation, prose and footer. Rows:
 * `extractPage` as shipped (links, media, base, meta robots, title, canonical, visible text), on that page
 * and on the same page with 12 images carrying a two-candidate srcset (36 media URLs); a bare htmlparser2
 * links-only pass as a floor; and, on Bun only, HTMLRewriter doing links only and doing the same work as
 * `extractPage`. HTMLRewriter never enters production code (the fetch node must run on Deno), it is here
 * to know what the runtime-neutral choice costs. Run: `bun bench/parse.bench.ts [seconds-per-row]`.
 */

import { Parser } from "htmlparser2";
import { extractPage } from "../engine/fetch/index.ts";

const PAGE_URL = "https://www.example.com/section/article-1234.html";

function buildPage(targetBytes: number, images = false): string {
  const words = "the quick brown fox jumps over lazy dog while crawler reads every page of web".split(" ");
  let seed = 1;
  const word = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return words[seed % words.length]!;
  };
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ");
  const head =
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Article 1234 &amp; more</title>` +
    `<meta name="viewport" content="width=device-width"><meta name="robots" content="index,follow">` +
    `<link rel="stylesheet" href="/static/site.css"><link rel="canonical" href="/section/article-1234.html">` +
    `<link rel="alternate" hreflang="de" href="https://de.example.com/section/article-1234.html">` +
    `<style>body{font:16px sans-serif}.nav a{color:#333}.footer{margin:2em}</style>` +
    `<script>window.dataLayer=[];function track(e){dataLayer.push(e)};var tpl='<a href="/not-a-link">';</script>` +
    `</head><body>`;
  let nav = `<nav class="nav"><ul>`;
  for (let i = 0; i < 12; i++) nav += `<li><a href="/section/${i}/" class="nav-item">${sentence(2)}</a></li>`;
  nav += `</ul></nav>`;
  let footer = `<footer class="footer">`;
  for (let i = 0; i < 8; i++) footer += `<a href="https://partner${i}.example.org/?ref=ex&amp;id=${i}" rel="nofollow">${sentence(2)}</a> `;
  footer += `<noscript><a href="/no-js">plain</a></noscript></footer></body></html>`;
  let body = `<main><h1>${sentence(6)}</h1>`;
  let links = 0;
  while (head.length + nav.length + body.length + footer.length < targetBytes) {
    body += `<p class="para">${sentence(40)} `;
    if (links < 20) body += `<a href="../other/article-${links}.html?utm=x#frag">${sentence(3)}</a> `;
    if (images && links < 12) {
      body += `<img src="/img/${links}.jpg" srcset="/img/${links}-480.jpg 480w, /img/${links}-960.jpg 960w" alt="${sentence(2)}"> `;
    }
    links++;
    body += `<em>${sentence(8)}</em></p>\n`;
  }
  body += `</main>`;
  return head + nav + body + footer;
}

function measure(name: string, seconds: number, fn: () => number): void {
  for (let i = 0; i < 200; i++) fn(); // warm the JIT
  let pages = 0;
  let links = 0;
  const start = performance.now();
  const stop = start + seconds * 1000;
  while (performance.now() < stop) {
    for (let i = 0; i < 50; i++) links = fn();
    pages += 50;
  }
  const elapsed = (performance.now() - start) / 1000;
  const rate = pages / elapsed;
  console.log(`${name.padEnd(44)} ${rate.toFixed(0).padStart(6)} pages/s  ${(1000 / rate).toFixed(3)} ms/page  links=${links}`);
}

function htmlparser2LinksOnly(html: string): number {
  const out: string[] = [];
  const p = new Parser({
    onopentag(name, attrs) {
      if ((name === "a" || name === "area") && attrs.href !== undefined) out.push(attrs.href);
    },
  });
  p.end(html);
  let n = 0;
  for (const href of out) {
    try {
      new URL(href, PAGE_URL);
      n++;
    } catch {}
  }
  return n;
}

/** Minimal attribute-entity decoder: HTMLRewriter hands attributes over raw. Named entities beyond the basic five are not handled. */
function decodeAttr(v: string): string {
  if (v.indexOf("&") < 0) return v;
  return v.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);?/gi, (_m, e: string) => {
    const l = e.toLowerCase();
    if (l === "amp") return "&";
    if (l === "lt") return "<";
    if (l === "gt") return ">";
    if (l === "quot") return '"';
    if (l === "apos") return "'";
    return String.fromCodePoint(l[1] === "x" ? parseInt(l.slice(2), 16) : parseInt(l.slice(1), 10));
  });
}

function rewriterLinksOnly(html: string): number {
  const out: string[] = [];
  new HTMLRewriter().on("a[href], area[href]", { element: (e) => void out.push(decodeAttr(e.getAttribute("href")!)) }).transform(html);
  let n = 0;
  for (const href of out) {
    try {
      new URL(href, PAGE_URL);
      n++;
    } catch {}
  }
  return n;
}

/** The same outputs as extractPage except noscript links (HTMLRewriter treats noscript as raw text). */
function rewriterFull(html: string): number {
  const out: { href: string; tag: string; nofollow: boolean }[] = [];
  let base: string | undefined;
  let title = "";
  const text: string[] = [];
  let hidden = 0;
  let noindex = false;
  new HTMLRewriter()
    .on("a[href], area[href]", {
      element: (e) =>
        void out.push({
          href: decodeAttr(e.getAttribute("href")!),
          tag: e.tagName,
          nofollow: /nofollow/i.test(e.getAttribute("rel") ?? ""),
        }),
    })
    .on("link[href][rel]", {
      element(e) {
        const rel = e.getAttribute("rel")!.toLowerCase();
        if (rel.includes("canonical") || (rel.includes("alternate") && !rel.includes("stylesheet"))) {
          out.push({ href: decodeAttr(e.getAttribute("href")!), tag: "link", nofollow: false });
        }
      },
    })
    .on("iframe[src], frame[src]", {
      element: (e) => void out.push({ href: decodeAttr(e.getAttribute("src")!), tag: e.tagName, nofollow: false }),
    })
    .on("base[href]", { element: (e) => void (base ??= decodeAttr(e.getAttribute("href")!)) })
    .on("meta[name]", {
      element(e) {
        if (e.getAttribute("name")!.toLowerCase() === "robots" && /noindex|none/i.test(e.getAttribute("content") ?? "")) noindex = true;
      },
    })
    .on("title", { text: (t) => void (title += t.text) })
    .on("script, style, template", {
      element(e) {
        hidden++;
        e.onEndTag(() => void hidden--);
      },
    })
    .onDocument({ text: (t) => void (hidden === 0 && text.push(t.text)) })
    .transform(html);
  const baseUrl = base ? new URL(base, PAGE_URL).href : PAGE_URL;
  let n = 0;
  for (const l of out) {
    try {
      const u = new URL(l.href, baseUrl);
      u.hash = "";
      if (u.href) n++;
    } catch {}
  }
  const collapsed = text.join(" ").replace(/\s+/g, " ").trim();
  return noindex || !collapsed || !title ? -1 : n;
}

const seconds = Number(process.argv[2] ?? 3);
const html = buildPage(25_000);
const sample = extractPage(html, PAGE_URL);
console.log(
  `page: ${html.length} bytes, ${sample.links.length} links (${sample.links.filter((l) => l.resolved).length} resolved), ` +
    `text ${sample.text.length} chars, title "${sample.title}"`,
);
measure("extractPage (htmlparser2, full)", seconds, () => extractPage(html, PAGE_URL).links.length);
const withImages = buildPage(25_000, true);
measure("extractPage, page with 36 media URLs", seconds, () => extractPage(withImages, PAGE_URL).links.length);
measure("htmlparser2 bare, a/area links only", seconds, () => htmlparser2LinksOnly(html));
if (typeof HTMLRewriter !== "undefined") {
  measure("HTMLRewriter, a/area links only (Bun only)", seconds, () => rewriterLinksOnly(html));
  measure("HTMLRewriter, same work as extractPage (Bun)", seconds, () => rewriterFull(html));
} else {
  console.log("HTMLRewriter not available on this runtime; skipped");
}

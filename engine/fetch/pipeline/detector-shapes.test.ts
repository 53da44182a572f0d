import { describe, expect, test } from "bun:test";
import { judgeShape } from "../../../core/render/index.ts";
import { extractPage } from "../parse/index.ts";
import { pageShape } from "./page-shape.ts";

/** Each page as its kind of site sends it; the verdict the detector must reach (core/render/detector.ts). */
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(" ");
const links = (n: number, prefix = "/p/") => Array.from({ length: n }, (_, i) => `<a href="${prefix}${i}">item ${i}</a>`).join("\n");
const scripts = (n: number) => Array.from({ length: n }, (_, i) => `<script src="/static/chunk-${i}.js" defer></script>`).join("\n");

const SHAPES: Array<{ name: string; html: string; verdict: ReturnType<typeof judgeShape> }> = [
  {
    name: "create-react-app shell",
    html: `<!doctype html><html><head><title>React App</title><script defer src="/static/js/main.3f2a.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>`,
    verdict: "empty-app-root",
  },
  {
    name: "Vue CLI shell",
    html: `<!DOCTYPE html><html lang=en><head><link href=/css/app.css rel=stylesheet></head><body>
<noscript><strong>We're sorry but this site doesn't work properly without JavaScript enabled.</strong></noscript>
<div id=app></div><script src=/js/chunk-vendors.js></script><script src=/js/app.js></script></body></html>`,
    verdict: "empty-app-root",
  },
  {
    name: "Angular shell",
    html: `<!doctype html><html><head><base href="/"></head><body><app-root></app-root>
<script src="runtime.js" type="module"></script><script src="polyfills.js" type="module"></script><script src="main.js" type="module"></script></body></html>`,
    verdict: "empty-app-root",
  },
  {
    name: "Next.js page rendered on the server",
    html: `<!DOCTYPE html><html><head>${scripts(9)}</head><body><div id="__next"><nav>${links(25, "/docs/")}</nav>
<main><h1>Getting started</h1><p>${words(600)}</p></main></div>
<script id="__NEXT_DATA__" type="application/json">{"props":{}}</script></body></html>`,
    verdict: "as-received",
  },
  {
    name: "blog article",
    html: `<!doctype html><html><head><title>On crawling</title><script src="/analytics.js" async></script></head><body>
<header>${links(12, "/")}</header><article><h1>On crawling</h1><p>${words(900)}</p></article><footer>${links(30, "/archive/")}</footer>
<script>window.dataLayer=[]</script></body></html>`,
    verdict: "as-received",
  },
  {
    name: "short static contact page, no script",
    html: `<!doctype html><html><head><title>Contact</title></head><body><h1>Contact</h1><p>Write to us at the address below.</p>
<a href="/">Home</a> <a href="/about">About</a> <a href="mailto:info@example.com">Mail</a></body></html>`,
    verdict: "as-received",
  },
  {
    name: "landing page: a few links under tag-manager and widget scripts",
    html: `<!doctype html><html><head>${scripts(8)}</head><body><div class="hero"><h1>Ship faster</h1><p>${words(60)}</p>
<a href="/signup">Sign up</a><a href="/pricing">Pricing</a><a href="/login">Log in</a></div><div id="pricing-widget"></div></body></html>`,
    verdict: "scripts-over-links",
  },
  {
    name: "server-rendered shop listing with many scripts",
    html: `<!doctype html><html><head>${scripts(14)}</head><body><ul class="products">${links(48, "/product/")}</ul>
<p>${words(300)}</p></body></html>`,
    verdict: "as-received",
  },
  {
    name: "page of little text that loads its content by script",
    html: `<!doctype html><html><head><title>Loading</title></head><body><p>Loading…</p><div id="list"></div>
<script>fetch("/api/items.json").then(r => r.json()).then(render)</script></body></html>`,
    verdict: "little-text",
  },
];

describe("render detector", () => {
  for (const { name, html, verdict } of SHAPES) {
    test(`render detector - ${name}: ${verdict}`, () => {
      const page = extractPage(html, "https://shop.example/");
      expect(judgeShape(pageShape(html, page))).toBe(verdict);
    });
  }
});

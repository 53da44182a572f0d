import { expect, test } from "bun:test";
import { Parser } from "htmlparser2";
import { sitePage } from "../../../tests/testweb/site.ts";
import { pick, rng } from "../../../tests/testweb/random.ts";
import { prosePool } from "../../../tests/testweb/text.ts";
import { SkippingTokenizer } from "./skipping-tokenizer.ts";

/** Every event the parser gives, in order, with its data. */
function events(html: string, chunks: number[], tokenizer?: typeof SkippingTokenizer): string[] {
  const out: string[] = [];
  const parser = new Parser(
    {
      onopentagname: (name) => out.push(`opentagname ${name}`),
      onattribute: (name, value, quote) => out.push(`attribute ${name}=${JSON.stringify(value)} ${quote}`),
      onopentag: (name, attrs) => out.push(`opentag ${name} ${JSON.stringify(attrs)}`),
      onclosetag: (name, implied) => out.push(`closetag ${name} ${implied}`),
      ontext: (text) => out.push(`text ${JSON.stringify(text)}`),
      oncomment: (text) => out.push(`comment ${JSON.stringify(text)}`),
      oncdatastart: () => out.push("cdatastart"),
      oncdataend: () => out.push("cdataend"),
      onprocessinginstruction: (name, data) => out.push(`pi ${name} ${JSON.stringify(data)}`),
      onend: () => out.push("end"),
    },
    {
      xmlMode: false,
      decodeEntities: true,
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
      ...(tokenizer ? { Tokenizer: tokenizer } : {}),
    },
  );
  let at = 0;
  for (const size of chunks) {
    parser.write(html.slice(at, at + size));
    at += size;
  }
  parser.write(html.slice(at));
  parser.end();
  return out;
}

/** Pieces a document is made of: text, every kind of entity, tags and attributes in every quoting, the odd parts. */
const PIECES = [
  "plain words here ",
  "a",
  " ",
  "\n\t",
  "&amp;",
  "&lt;b&gt;",
  "&#123;",
  "&#x1F600;",
  "&notanentity;",
  "&amp",
  "&",
  "& ",
  "&copy ",
  "ü€",
  "<p>",
  "</p>",
  "<P CLASS=x>",
  '<a href="/x?a=1&amp;b=2" rel="nofollow">',
  "<a href='/y&z'>",
  "<a href=/unquoted&amp;x>",
  '<a href="">',
  '<img src="i.png" srcset="a.png 1x, b.png 2x">',
  "</a>",
  "<br/>",
  "<!-- a comment with <a href=x> inside -->",
  "<!doctype html>",
  "<![CDATA[ x < y ]]>",
  "<?xml version='1.0'?>",
  "<script>if (a < b && c) { x = '</p>'; }</script>",
  '<style>a[href="&"] { }</style>',
  "<title>T &amp; t</title>",
  "<textarea><a href=t>&lt;</textarea>",
  '<svg><a xlink:href="/s">s</a></svg>',
  "<",
  "< p>",
  "</>",
  '<a href="unclosed',
  "<div x='",
  "'>",
  '">',
];

test("skipping tokenizer - the parser gives exactly the same events as with htmlparser2's own, in any chunking", () => {
  const r = rng(5);
  const next = (n: number) => pick(r, n);
  for (let i = 0; i < 3_000; i++) {
    const html = Array.from({ length: 1 + next(40) }, () => PIECES[next(PIECES.length)]!).join("");
    const chunks = Array.from({ length: next(6) }, () => next(html.length + 1));
    expect(events(html, chunks, SkippingTokenizer)).toEqual(events(html, chunks));
  }
});

test("skipping tokenizer - the same events on the test web's pages, whole and in chunks", () => {
  const shape = { hosts: 100, pagesPerHost: 1000, linksPerPage: 30, pageBytes: 25_000, seed: 3 };
  const pool = prosePool(shape.seed);
  for (let i = 0; i < 20; i++) {
    const html = sitePage(shape, pool, `site${i}.test`, i === 0 ? "/" : `/page/${i * 7}`).body;
    expect(events(html, [], SkippingTokenizer)).toEqual(events(html, []));
    expect(events(html, [1000, 4096, 3, 9000], SkippingTokenizer)).toEqual(events(html, [1000, 4096, 3, 9000]));
  }
});

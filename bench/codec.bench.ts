/**
 * CPU per DiscoveredLinks message, encoded (the fetch node, per batch of links it publishes) and decoded (the
 * frontier node, per message it consumes): the generated code (proto/gen over @bufbuild/protobuf) against
 * the codec as shipped (proto/codec/discovered-links.ts). Batches are built from the crawl benchmark's own
 * test web (tests/testweb/site.ts):
 *
 *   page     30 links of one page, all on its host, one source URL (what most messages carry; the test web's
 *            pages are built with 40 links here, so that 30 of them stay on the page's host)
 *   mixed    30 links of 30 pages on 30 hosts (every string differs from the one before it)
 *   sitemap  1,000 entries of one sitemap, with lastmod and priority (the largest batch a fetch node sends)
 *
 * Each row runs 200 distinct batches (10 for sitemap) per round, the two codecs alternating, and reports the
 * median round's user + system CPU per message. Runs on Bun and on Deno (fetch nodes run on both):
 *
 *   bun bench/codec.bench.ts [rounds=21]
 *   deno run --node-modules-dir=manual --no-lock -A bench/codec.bench.ts [rounds=21]
 */
import type { DiscoveredUrl } from "../core/model/index.ts";
import {
  decodeDiscoveredLinks,
  decodeDiscoveredLinksGenerated,
  encodeDiscoveredLinks,
  encodeDiscoveredLinksGenerated,
} from "../proto/codec/discovered-links.ts";
import { siteHost, siteLinks } from "../tests/testweb/site.ts";

const rounds = Number(process.argv[2] ?? 21);
const shape = { hosts: 2000, pagesPerHost: 1000, linksPerPage: 40, pageBytes: 25_000, seed: 1 };

function pagePath(i: number): string {
  return i % 5 === 0 ? "/" : `/page/${(i * 37) % shape.pagesPerHost}`;
}

/** The links a page names on its own host, as the fetch node's links step makes them (one source string). */
function pageBatch(i: number): DiscoveredUrl[] {
  const host = siteHost(i % shape.hosts);
  const sourceUrl = `http://${host}${pagePath(i)}`;
  const depth = 1 + (i % 4);
  const own = siteLinks(shape, host, pagePath(i)).filter((l) => l.url.startsWith(`http://${host}/`));
  return own.slice(0, 30).map((l) => ({ url: l.url, host: new URL(l.url).host, depth, sourceUrl, redirectHops: 0 }));
}

/** One link from each of 30 pages of 30 hosts. */
function mixedBatch(i: number): DiscoveredUrl[] {
  return Array.from({ length: 30 }, (_, j) => {
    const page = pageBatch(i * 30 + j);
    return page[j % page.length]!;
  });
}

function sitemapBatch(i: number): DiscoveredUrl[] {
  const host = siteHost(i);
  const sourceUrl = `http://${host}/sitemap.xml`;
  return Array.from({ length: 1000 }, (_, j) => ({
    url: `http://${host}/page/${j}`,
    host,
    depth: 1,
    sourceUrl,
    redirectHops: 0,
    lastmod: 1_750_000_000_000 + j * 60_000,
    sitemapPriority: (j % 10) / 10,
  }));
}

const rows: Array<[string, DiscoveredUrl[][]]> = [
  ["page (30 links, 1 host, 1 source)", Array.from({ length: 200 }, (_, i) => pageBatch(i))],
  ["mixed (30 links, 30 hosts, 30 sources)", Array.from({ length: 200 }, (_, i) => mixedBatch(i))],
  ["sitemap (1,000 entries, lastmod, priority)", Array.from({ length: 10 }, (_, i) => sitemapBatch(i))],
];

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

let sink = 0;
type Variant = [string, () => void];

/** Median CPU µs per message of each variant, the variants alternating (first one first, then the other). */
function measure(variants: Variant[], messagesPerRound: number): number[] {
  for (let i = 0; i < 5; i++) for (const [, fn] of variants) fn(); // warm the JIT
  const times = variants.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = (r + k) % variants.length;
      const start = cpuUs();
      variants[v]![1]();
      times[v]!.push((cpuUs() - start) / messagesPerRound);
    }
  }
  return times.map(median);
}

const runtime = typeof (globalThis as { Deno?: unknown }).Deno === "object" ? "deno" : "bun";
console.log(`codec bench on ${runtime}: CPU µs per DiscoveredLinks message, median of ${rounds} alternating rounds`);
console.log(`${"batch".padEnd(44)} ${"op".padEnd(7)} ${"generated".padStart(10)} ${"shipped".padStart(10)}  ratio   bytes/msg`);
for (const [name, batches] of rows) {
  // Enough passes over the batches that a round is some 20 ms of CPU on the generated code.
  const reps = batches.length > 50 ? 10 : 5;
  const messages = batches.length * reps;
  const encoded = batches.map((b, i) => encodeDiscoveredLinksGenerated(i, b));
  const bytes = encoded.reduce((n, b) => n + b.length, 0) / encoded.length;
  const encodeWith = (encode: typeof encodeDiscoveredLinks) => () => {
    for (let rep = 0; rep < reps; rep++) for (let i = 0; i < batches.length; i++) sink += encode(i, batches[i]!).length;
  };
  const decodeWith = (decode: typeof decodeDiscoveredLinks) => () => {
    for (let rep = 0; rep < reps; rep++) for (const b of encoded) sink += decode(b).urls.length;
  };
  const [genEnc, shipEnc] = measure(
    [
      ["generated", encodeWith(encodeDiscoveredLinksGenerated)],
      ["shipped", encodeWith(encodeDiscoveredLinks)],
    ],
    messages,
  );
  const [genDec, shipDec] = measure(
    [
      ["generated", decodeWith(decodeDiscoveredLinksGenerated)],
      ["shipped", decodeWith(decodeDiscoveredLinks)],
    ],
    messages,
  );
  const line = (op: string, g: number, s: number) =>
    console.log(
      `${name.padEnd(44)} ${op.padEnd(7)} ${g.toFixed(2).padStart(10)} ${s.toFixed(2).padStart(10)}  ${(g / s).toFixed(2).padStart(5)}x  ${bytes.toFixed(0).padStart(8)}`,
    );
  line("encode", genEnc!, shipEnc!);
  line("decode", genDec!, shipDec!);
}
if (sink === 42) console.log("");

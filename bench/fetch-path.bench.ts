/**
 * CPU per page of each stateless stage of the fetch path, on the pages the crawl benchmark's test web
 * serves (25 KB, 30 links): decoding the body, `extractPage` (links, media, text), SimHash of the text,
 * and the WARC write (records, digests, gzip, file and index appends, to a scratch directory), alone
 * (`--text off`) and with the page's text kept as a WET record beside it (`--text wet`, the default), the
 * two side by side with their ratio. HTTP is
 * left out (`http.bench.ts` measures it). Each stage runs alone over the same 400 distinct pages, in
 * rounds that alternate the stages, and reports the median round's CPU time per page: the stages' sum is
 * what a fetch thread spends per page besides HTTP and its messages to the frontier.
 *
 *   bun bench/fetch-path.bench.ts [rounds=15]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simhash64 } from "../core/content/index.ts";
import { decodeBody, extractPage } from "../engine/fetch/parse/index.ts";
import { WarcWriter } from "../engine/fetch/warc/index.ts";
import { sitePage } from "../tests/testweb/site.ts";
import { prosePool } from "../tests/testweb/text.ts";
import { minOf } from "../core/stats/index.ts";

const rounds = Number(process.argv[2] ?? 15);
const shape = { hosts: 2000, pagesPerHost: 1000, linksPerPage: 30, pageBytes: 25_000, seed: 1 };
const pool = prosePool(shape.seed);
const encoder = new TextEncoder();
const pages = Array.from({ length: 400 }, (_, i) => {
  const host = `site${i % shape.hosts}.test`;
  const path = i % 5 === 0 ? "/" : `/page/${(i * 37) % shape.pagesPerHost}`;
  const page = sitePage(shape, pool, host, path);
  return { url: `http://${host}${path}`, contentType: page.contentType, body: encoder.encode(page.body) };
});
const extracted = pages.map((p) => extractPage(decodeBody(p.body, p.contentType), p.url));
const texts = extracted.map((e) => e.text);
const pageTexts = extracted.map((e) => (e.title ? { title: e.title, text: e.text } : { text: e.text }));

const dir = mkdtempSync(join(tmpdir(), "fetch-path-bench-"));
const writer = await WarcWriter.open({ dir: join(dir, "off") });
const wetWriter = await WarcWriter.open({ dir: join(dir, "wet"), wet: true });
const requestHeaders = { "user-agent": "crawler-bench/1.0 (+http://example.test/bot)", accept: "text/html,*/*;q=0.8" };

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

let sink = 0;
const WARC_OFF = "WARC write, --text off";
const WARC_WET = "WARC write, --text wet (+ WET record)";
const stages: Array<[string, () => Promise<void> | void]> = [
  [
    "decode body",
    () => {
      for (const p of pages) sink += decodeBody(p.body, p.contentType).length;
    },
  ],
  [
    "extractPage (links, media, text)",
    () => {
      for (const p of pages) sink += extractPage(decodeBody(p.body, p.contentType), p.url).links.length;
    },
  ],
  [
    "SimHash of the text",
    () => {
      for (const t of texts) sink += Number(simhash64(t) & 1n);
    },
  ],
  [WARC_OFF, () => writeAll(writer, false)],
  [WARC_WET, () => writeAll(wetWriter, true)],
];

/** Stores every page: the WARC records alone, or with the page's text for its WET record. */
async function writeAll(w: WarcWriter, withText: boolean): Promise<void> {
  for (const [i, p] of pages.entries()) {
    const placed = await w.write({
      url: p.url,
      fetchedAt: Date.now(),
      remoteAddress: "127.0.0.1",
      httpVersion: "1.1",
      requestHeaders,
      status: 200,
      responseHeaders: { "content-type": p.contentType, "content-length": String(p.body.length), date: new Date().toUTCString() },
      body: p.body,
      ...(withText ? { text: pageTexts[i]! } : {}),
    });
    sink += placed.length + (placed.text?.length ?? 0);
  }
}

const perPage = new Map<string, number[]>(stages.map(([name]) => [name, []]));
for (let r = 0; r < rounds + 2; r++) {
  for (const [name, run] of stages) {
    const before = cpuUs();
    await run();
    // The first two rounds warm the JIT and are not counted.
    if (r >= 2) perPage.get(name)!.push((cpuUs() - before) / pages.length);
  }
}
await writer.close();
await wetWriter.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(
  `fetch path stages, ${pages.length} test-web pages (${Math.round(pages.reduce((n, p) => n + p.body.length, 0) / pages.length)} B avg), median of ${rounds} rounds, CPU µs per page`,
);
let total = 0;
for (const [name] of stages) {
  const m = median(perPage.get(name)!);
  // extractPage decodes too: its own figure is what the pipeline pays for decode + parse. The WARC write
  // counts once, as the default (text kept) pays it.
  if (name !== "decode body" && name !== WARC_OFF) total += m;
  console.log(`${name.padEnd(36)} ${m.toFixed(1).padStart(8)} µs   (min ${minOf(perPage.get(name)!).toFixed(1)})`);
}
console.log(`${"sum (decode+parse, SimHash, WARC+WET)".padEnd(36)} ${total.toFixed(1).padStart(8)} µs   [${sink & 1}]`);
const off = median(perPage.get(WARC_OFF)!);
const wet = median(perPage.get(WARC_WET)!);
console.log(`page storage with text kept / without: ${(wet / off).toFixed(3)} (${wet.toFixed(1)} / ${off.toFixed(1)} µs per page)`);

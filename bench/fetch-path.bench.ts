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
 * Below the sum, what the WARC + WET write is made of (not added in): the gzip of the page's three records
 * (response, request, WET conversion; level 1 as the writer does it, and with Bun's libdeflate at level 1 for
 * comparison, with the bytes each makes) and their SHA-256 digests (payload, response block, text), measured
 * alone on records serialized once up front. What the write costs above those two is its own work.
 *
 *   bun bench/fetch-path.bench.ts [rounds=15]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simhash64 } from "../core/content/index.ts";
import { decodeBody, extractPage } from "../engine/fetch/parse/index.ts";
import { serializeConversion, WarcWriter, wetBlock, type CapturedExchange } from "../engine/fetch/warc/index.ts";
import { serializeExchange, sha256 } from "../engine/fetch/warc/records.ts";
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

/** Each page's three records as the WET writer serializes them, for the gzip and digest stages. */
const records = pages.map((p, i) => {
  const ex = serializeExchange(exchange(p, i, true), "<urn:uuid:bench-warcinfo>");
  const text = serializeConversion(pageTexts[i]!, ex.targetUri, ex.date, ex.recordId, "<urn:uuid:bench-wet-warcinfo>");
  return [ex.response, ex.request, text];
});
const httpHeads = pages.map((p, i) => records[i]![0]!.subarray(0, records[i]![0]!.length - p.body.length - 4));
const wetBlocks = pageTexts.map((t) => wetBlock(t));

let sink = 0;
/** Compressed bytes per page of the last round of each gzip stage. */
const gzipBytes = new Map<string, number>();
function gzipAll(name: string, options: { level: 1; library?: "libdeflate" }): void {
  let bytes = 0;
  for (const rs of records) for (const r of rs) bytes += Bun.gzipSync(r as Uint8Array<ArrayBuffer>, options).length;
  gzipBytes.set(name, bytes / pages.length);
}
const GZIP_ZLIB = "  of which gzip, zlib level 1";
const GZIP_LIBDEFLATE = "  (gzip, libdeflate level 1)";
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
  [GZIP_ZLIB, () => gzipAll(GZIP_ZLIB, { level: 1 })],
  [GZIP_LIBDEFLATE, () => gzipAll(GZIP_LIBDEFLATE, { level: 1, library: "libdeflate" })],
  [
    "  of which SHA-256 digests (3)",
    () => {
      // The payload's, the response block's (HTTP head + payload) and the text record's.
      for (const [i, p] of pages.entries()) {
        sink += sha256(p.body).length;
        sink += new Bun.CryptoHasher("sha256").update(httpHeads[i]!).update(p.body).digest("hex").length;
        sink += sha256(wetBlocks[i]!).length;
      }
    },
  ],
];
/** Stages reported below the sum, as parts of the write, not added to it. */
const PARTS = new Set([GZIP_ZLIB, GZIP_LIBDEFLATE, "  of which SHA-256 digests (3)"]);

/** Page `i` as the fetch path hands it to the WARC writer. */
function exchange(p: (typeof pages)[number], i: number, withText: boolean): CapturedExchange {
  return {
    url: p.url,
    fetchedAt: Date.now(),
    remoteAddress: "127.0.0.1",
    httpVersion: "1.1",
    requestHeaders,
    status: 200,
    responseHeaders: { "content-type": p.contentType, "content-length": String(p.body.length), date: new Date().toUTCString() },
    body: p.body,
    ...(withText ? { text: pageTexts[i]! } : {}),
  };
}

/** Stores every page: the WARC records alone, or with the page's text for its WET record. */
async function writeAll(w: WarcWriter, withText: boolean): Promise<void> {
  for (const [i, p] of pages.entries()) {
    const placed = await w.write(exchange(p, i, withText));
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
const line = (name: string, extra = "") =>
  console.log(
    `${name.padEnd(36)} ${median(perPage.get(name)!).toFixed(1).padStart(8)} µs   (min ${minOf(perPage.get(name)!).toFixed(1)})${extra}`,
  );
for (const [name] of stages) {
  if (PARTS.has(name)) continue;
  // extractPage decodes too: its own figure is what the pipeline pays for decode + parse. The WARC write
  // counts once, as the default (text kept) pays it.
  if (name !== "decode body" && name !== WARC_OFF) total += median(perPage.get(name)!);
  line(name);
}
console.log(`${"sum (decode+parse, SimHash, WARC+WET)".padEnd(36)} ${total.toFixed(1).padStart(8)} µs   [${sink & 1}]`);
for (const name of PARTS) line(name, gzipBytes.has(name) ? `, ${Math.round(gzipBytes.get(name)!)} B a page` : "");
const off = median(perPage.get(WARC_OFF)!);
const wet = median(perPage.get(WARC_WET)!);
console.log(`page storage with text kept / without: ${(wet / off).toFixed(3)} (${wet.toFixed(1)} / ${off.toFixed(1)} µs per page)`);

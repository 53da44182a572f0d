/**
 * Reading sitemaps: `bun bench/sitemap.bench.ts`. Rows, each on one core, the body in 64 KiB chunks as
 * the network hands it over, rates per CPU second (best of five):
 *
 *   urlset, 50,000 entries     SitemapReader on a 3.6 MB urlset (loc and lastmod each): MB/s, entries/s
 *   + normalize                the same plus normalizeUrl on every loc, as the sitemap task does
 *   htmlparser2 (xmlMode)      the same document through htmlparser2's Parser with empty callbacks, the
 *                              tokenizer sitemaps used before (it holds a whole comment until it closes)
 *   52 MB comment, gzip        the protocol's limit of padding in one comment, gunzipped as a stream and
 *                              read: MB/s of uncompressed bytes and the growth of RSS while reading
 */
import { gzipSync } from "node:zlib";
import { Parser } from "htmlparser2";
import { normalizeUrl } from "../core/url/index.ts";
import { gunzipStream } from "../engine/fetch/http/index.ts";
import { SitemapReader } from "../engine/fetch/parse/index.ts";

const CHUNK = 64 * 1024;
const ROUNDS = 5;

const urlset = new TextEncoder().encode(
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${Array.from(
    { length: 50_000 },
    (_, i) =>
      `  <url><loc>https://www.example.com/category/${i % 97}/item-${i}.html?ref=sitemap&amp;lang=en</loc><lastmod>2025-0${1 + (i % 9)}-1${i % 10}</lastmod></url>\n`,
  ).join("")}</urlset>\n`,
);
const mb = urlset.length / 1e6;

/** CPU seconds (user + system) of this process: other load on a shared box moves it far less than wall time. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function best(label: string, run: () => number): void {
  let fastest = Infinity;
  let count = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const started = cpu();
    count = run();
    fastest = Math.min(fastest, cpu() - started);
  }
  const s = fastest;
  console.log(
    `${label.padEnd(28)} ${(mb / s).toFixed(1).padStart(6)} MB/s  ${Math.round(count / s)
      .toLocaleString("en")
      .padStart(10)} entries/s`,
  );
}

best("urlset, 50,000 entries", () => {
  let n = 0;
  const reader = new SitemapReader(() => n++);
  for (let i = 0; i < urlset.length; i += CHUNK) reader.write(urlset.subarray(i, i + CHUNK));
  reader.end();
  return n;
});
best("+ normalize", () => {
  let n = 0;
  const reader = new SitemapReader((e) => (n += normalizeUrl(e.loc).ok ? 1 : 0));
  for (let i = 0; i < urlset.length; i += CHUNK) reader.write(urlset.subarray(i, i + CHUNK));
  reader.end();
  return n;
});
best("htmlparser2 (xmlMode)", () => {
  let n = 0;
  const decoder = new TextDecoder();
  const parser = new Parser({ onopentag: (name) => void (name === "url" && n++) }, { xmlMode: true });
  for (let i = 0; i < urlset.length; i += CHUNK) parser.write(decoder.decode(urlset.subarray(i, i + CHUNK), { stream: true }));
  parser.end();
  return n;
});

const padding = 52 * 1024 * 1024;
const gz = gzipSync(
  `<urlset><url><loc>https://a.example/before</loc></url><!--${" ".repeat(padding)}--><url><loc>https://a.example/after</loc></url></urlset>`,
);
Bun.gc(true);
const base = process.memoryUsage().rss;
let peak = base;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
const started = cpu();
async function* source() {
  for (let i = 0; i < gz.length; i += CHUNK) {
    yield gz.subarray(i, i + CHUNK);
    await null;
  }
}
const reader = new SitemapReader(() => {});
for await (const chunk of gunzipStream(source(), 64 * 1024 * 1024).chunks) {
  reader.write(chunk);
  if (reader.done) break;
}
reader.end();
clearInterval(timer);
const seconds = cpu() - started;
console.log(
  `52 MB comment, gzip          ${(reader.bytes / 1e6 / seconds).toFixed(1).padStart(6)} MB/s  RSS grew ${((peak - base) / 1e6).toFixed(0)} MB (stopped at the limit: ${reader.limit})`,
);

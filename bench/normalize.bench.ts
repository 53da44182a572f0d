/**
 * Throughput of `normalizeUrl` on one core: `bun bench/normalize.bench.ts`. The corpus imitates links as
 * the crawler meets them: a few thousand hosts (some upper-case, some with `www.`, a few IDN), paths of
 * one to four segments, about half with a short query, a fifth of those carrying trackers, some fragments
 * and percent-escapes, and a few relative links resolved against their page. Prints `normalize: N urls/s`.
 */
import { normalizeUrl } from "../core/url/index.ts";

const CORPUS_SIZE = 200_000;
const RUN_MS = 3_000;
const WARMUP_MS = 500;

/** mulberry32: seeded, so every run measures the same corpus. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Case = { input: string; base?: string };

function buildCorpus(size: number): Case[] {
  const random = seeded(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const words = ["news", "blog", "products", "item", "about", "contact", "2024", "category", "search", "docs", "a%20b", "caf%c3%a9"];
  const tlds = ["com", "org", "net", "de", "co.uk", "io", "fr"];
  const hosts: string[] = [];
  for (let i = 0; i < 3000; i++) {
    let host = `site${i}.${pick(tlds)}`;
    if (random() < 0.4) host = "www." + host;
    if (random() < 0.05) host = host.toUpperCase();
    if (random() < 0.01) host = `bücher${i}.de`;
    hosts.push(host);
  }
  const params = ["id=42", "page=2", "q=red+shoes", "sort=asc", "lang=en", "ref=home", "s=%7euser"];
  const trackers = ["utm_source=news", "utm_medium=email", "utm_campaign=spring", "gclid=abc123", "fbclid=xyz"];

  const cases: Case[] = [];
  for (let i = 0; i < size; i++) {
    const scheme = random() < 0.7 ? "https" : "http";
    let path = "";
    const depth = 1 + Math.floor(random() * 4);
    for (let d = 0; d < depth; d++) path += "/" + pick(words);
    if (random() < 0.3) path += `/${i}.html`;
    let query = "";
    if (random() < 0.5) {
      const list = [pick(params)];
      if (random() < 0.5) list.push(pick(params));
      if (random() < 0.2) list.push(pick(trackers), pick(trackers));
      query = "?" + list.join("&");
    }
    const fragment = random() < 0.1 ? "#section" : "";
    const absolute = `${scheme}://${pick(hosts)}${path}${query}${fragment}`;
    if (random() < 0.05) cases.push({ input: `../${pick(words)}/${i}?${pick(params)}`, base: absolute });
    else cases.push({ input: absolute });
  }
  return cases;
}

/** Normalizes the corpus round after round for `ms` milliseconds; returns URLs done and time taken. */
function run(cases: Case[], ms: number): { count: number; elapsed: number; sink: number } {
  let count = 0;
  let sink = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      const result = normalizeUrl(c.input, c.base);
      // Use the result so the work cannot be optimized away.
      sink += result.ok ? result.url.length : 1;
    }
    count += cases.length;
    elapsed = performance.now() - start;
  }
  return { count, elapsed, sink };
}

const corpus = buildCorpus(CORPUS_SIZE);
run(corpus.slice(0, 20_000), WARMUP_MS);
const { count, elapsed, sink } = run(corpus, RUN_MS);
if (sink === 0) console.error("normalize: the corpus produced nothing");
console.log(`normalize: ${Math.round(count / (elapsed / 1000))} urls/s`);

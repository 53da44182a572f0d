/**
 * Benchmark of the seen-set and content fingerprint structures at crawl scale (`bun bench/bloom.bench.ts`):
 * a BloomFilter sized for 10M URLs at 10 bits and 7 hashes (adds/s, checks/s, measured false-positive
 * rate on 1M fresh keys against theory), a ScalableBloomFilter grown from 1M to 10M keys, simhash64 on
 * 25 KB texts, and SimHashIndex with 1M entries. Keys are built in chunks outside the timed sections so
 * the figures are the filters' own cost. Sizes can be scaled down with BENCH_SCALE (e.g. 0.1).
 */
import { BloomFilter, bloomFalsePositiveRate, ScalableBloomFilter } from "../core/seen/index.ts";
import { fromParts, hammingDistance, SimHashIndex, simhash64 } from "../core/content/index.ts";

const scale = Number(process.env.BENCH_SCALE ?? "1");
const N = Math.round(10_000_000 * scale);
const FRESH = Math.round(1_000_000 * scale);
const CHUNK = 100_000;

const url = (i: number) =>
  `https://www.host${i % 200_003}.example.com/news/${i}/article-${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}.html?id=${i}`;
const freshUrl = (i: number) => `https://cdn${i % 50_021}.example.net/assets/${i}/img-${(Math.imul(i, 0x85ebca6b) >>> 0).toString(36)}.png`;

function chunkOf(make: (i: number) => string, start: number, end: number): string[] {
  const out = new Array<string>(end - start);
  for (let i = start; i < end; i++) out[i - start] = make(i);
  return out;
}

/** Runs `op` over keys make(0..n-1), built in chunks; returns [seconds spent in op, trues returned]. */
function timed(n: number, make: (i: number) => string, op: (key: string) => boolean): [number, number] {
  let seconds = 0;
  let trues = 0;
  for (let start = 0; start < n; start += CHUNK) {
    const keys = chunkOf(make, start, Math.min(n, start + CHUNK));
    const t = performance.now();
    for (let i = 0; i < keys.length; i++) if (op(keys[i]!)) trues++;
    seconds += (performance.now() - t) / 1000;
  }
  return [seconds, trues];
}

const rate = (n: number, s: number) => `${(n / s / 1e6).toFixed(2)} M/s`;
const pct = (x: number) => `${(x * 100).toFixed(3)} %`;

function benchBloom(): void {
  const f = new BloomFilter({ expectedCount: N });
  console.log(
    `BloomFilter: ${N.toLocaleString()} keys, ${f.bits.toLocaleString()} bits (${(f.bits / 8 / 2 ** 20).toFixed(1)} MiB), k=${f.hashes}`,
  );
  const [addS, alreadyThere] = timed(N, url, (k) => f.add(k));
  console.log(`  add            ${rate(N, addS)}  (${alreadyThere} adds were false positives)`);
  const [hasS, found] = timed(N, url, (k) => f.has(k));
  console.log(`  has (present)  ${rate(N, hasS)}  false negatives: ${N - found}`);
  const [freshS, fp] = timed(FRESH, freshUrl, (k) => f.has(k));
  const theory = bloomFalsePositiveRate(N, f.bits, f.hashes);
  console.log(`  has (fresh)    ${rate(FRESH, freshS)}`);
  console.log(
    `  false positives on ${FRESH.toLocaleString()} fresh keys: ${pct(fp / FRESH)}  theory ${pct(theory)}  fill estimate ${pct(f.estimatedFalsePositiveRate())}`,
  );
  let t = performance.now();
  const bytes = f.toBytes();
  const saveMs = performance.now() - t;
  t = performance.now();
  BloomFilter.fromBytes(bytes);
  console.log(
    `  toBytes ${saveMs.toFixed(0)} ms, fromBytes ${(performance.now() - t).toFixed(0)} ms for ${(bytes.length / 2 ** 20).toFixed(1)} MiB`,
  );
}

function benchScalable(): void {
  const f = new ScalableBloomFilter({ initialCapacity: Math.round(N / 10) });
  const [addS] = timed(N, url, (k) => f.add(k));
  const [hasS, found] = timed(N, url, (k) => f.has(k));
  const [, fp] = timed(FRESH, freshUrl, (k) => f.has(k));
  console.log(
    `ScalableBloomFilter: ${N.toLocaleString()} keys from ${(N / 10).toLocaleString()} initial, ${f.sliceCount} slices, ${(f.bits / 8 / 2 ** 20).toFixed(1)} MiB`,
  );
  console.log(`  add ${rate(N, addS)}, has (present) ${rate(N, hasS)}, false negatives ${N - found}`);
  console.log(`  false positives ${pct(fp / FRESH)}  estimate ${pct(f.estimatedFalsePositiveRate())}  bound ${pct(f.falsePositiveBound)}`);
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function benchSimHash(): void {
  const next = rng(1);
  const vocab = Array.from({ length: 20_000 }, () => {
    let w = "";
    const n = 2 + Math.floor(next() * 8);
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(next() * 26));
    return w;
  });
  const texts: string[] = [];
  for (let t = 0; t < 200; t++) {
    const words: string[] = [];
    for (let len = 0; len < 25_000; ) {
      const w = vocab[Math.floor(next() ** 3 * vocab.length)]!;
      words.push(next() < 0.05 ? `${w[0]!.toUpperCase()}${w.slice(1)},` : w);
      len += w.length + 1;
    }
    texts.push(words.join(" "));
  }
  let sink = 0n;
  for (const s of texts.slice(0, 20)) sink ^= simhash64(s); // warm-up
  const rounds = Math.max(1, Math.round(10 * scale));
  const t = performance.now();
  for (let r = 0; r < rounds; r++) for (const s of texts) sink ^= simhash64(s);
  const s = (performance.now() - t) / 1000;
  const pages = rounds * texts.length;
  console.log(
    `simhash64: ${(pages / s).toFixed(0)} pages/s on 25 KB texts (${((pages * 25_000) / s / 2 ** 20).toFixed(1)} MiB/s)  [${sink & 1n}]`,
  );
}

function benchIndex(): void {
  const n = Math.round(1_000_000 * scale);
  const next = rng(2);
  const stored: bigint[] = new Array(n);
  for (let i = 0; i < n; i++) stored[i] = fromParts(Math.floor(next() * 2 ** 32), Math.floor(next() * 2 ** 32));
  const index = new SimHashIndex();
  let t = performance.now();
  for (let i = 0; i < n; i++) index.add(stored[i]!, `page-${i}`);
  const addS = (performance.now() - t) / 1000;
  const q = 200_000;
  const near: bigint[] = [];
  const far: bigint[] = [];
  for (let i = 0; i < q; i++) {
    let h = stored[Math.floor(next() * n)]!;
    const flips = Math.floor(next() * 4);
    for (let f = 0; f < flips; f++) h ^= 1n << BigInt(Math.floor(next() * 64));
    near.push(h);
    far.push(fromParts(Math.floor(next() * 2 ** 32), Math.floor(next() * 2 ** 32)));
  }
  t = performance.now();
  let hits = 0;
  for (const h of near) if (index.findNear(h) !== undefined) hits++;
  const nearS = (performance.now() - t) / 1000;
  t = performance.now();
  let falseHits = 0;
  for (const h of far) if (index.findNear(h) !== undefined) falseHits++;
  const farS = (performance.now() - t) / 1000;
  // Cross-check a sample against a full scan, to show what the index saves.
  const sample = 20;
  t = performance.now();
  for (let i = 0; i < sample; i++) {
    let best = 65;
    for (const h of stored) best = Math.min(best, hammingDistance(h, near[i]!));
  }
  const scanS = (performance.now() - t) / 1000 / sample;
  console.log(`SimHashIndex: ${n.toLocaleString()} entries, add ${rate(n, addS)}`);
  console.log(`  findNear (within 3 bits) ${(q / nearS / 1e3).toFixed(0)} k/s, hits ${hits}/${q}`);
  console.log(`  findNear (random)        ${(q / farS / 1e3).toFixed(0)} k/s, hits ${falseHits}/${q}`);
  console.log(`  brute-force scan         ${(1 / scanS).toFixed(1)} lookups/s`);
}

benchBloom();
benchScalable();
benchSimHash();
benchIndex();

import { expect, test } from "bun:test";
import { exactFingerprint, fromParts, hammingDistance, simhash64, simhash64Parts, toParts, wordHashes } from "./index.ts";
import { maxOf } from "../stats/index.ts";

/** mulberry32, so generated texts are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Recorded once from this implementation; a change here invalidates every stored SimHash.
const FROZEN_FOX = 0xa7f51be350ba0d4fn;

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "po", "se", "vi", "do", "an", "el", "or", "us", "th", "qu"];

/** About `bytes` of text over a 3,000-word vocabulary with a skewed (Zipf-like) word frequency. */
function pageWords(seed: number, bytes: number): string[] {
  const vocabRng = rng(12345);
  const vocab = Array.from({ length: 3000 }, () => {
    let w = "";
    const n = 1 + Math.floor(vocabRng() * 3);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(vocabRng() * SYLLABLES.length)];
    return w;
  });
  const next = rng(seed);
  const out: string[] = [];
  for (let len = 0; len < bytes; ) {
    const w = vocab[Math.floor(next() ** 2 * vocab.length)]!;
    out.push(w);
    len += w.length + 1;
  }
  return out;
}

test("simhash64 - identical text gives distance 0", () => {
  const text = pageWords(1, 25_000).join(" ");
  expect(hammingDistance(simhash64(text), simhash64(text.slice()))).toBe(0);
});

test("simhash64 - ignores case, punctuation and spacing", () => {
  expect(simhash64("Hello, World! This is  a TEST.")).toBe(simhash64("hello world this is a test"));
  expect(simhash64("ÉCOLE Über straße")).toBe(simhash64("école über\nstraße"));
});

test("simhash64 - a one-word edit of a 25 KB text moves at most 3 bits", () => {
  const words = pageWords(2, 25_000);
  const base = simhash64(words.join(" "));
  const next = rng(3);
  const distances: number[] = [];
  for (let e = 0; e < 40; e++) {
    const edited = words.slice();
    const at = Math.floor(next() * edited.length);
    if (e % 2 === 0) edited[at] = `edited${e}`;
    else edited.splice(at, 0, `inserted${e}`);
    distances.push(hammingDistance(base, simhash64(edited.join(" "))));
  }
  expect(maxOf(distances)).toBeLessThanOrEqual(3);
  // About three of ~5,000 features change: on average about one bit flips.
  expect(distances.reduce((a, b) => a + b, 0) / distances.length).toBeLessThan(1.5);
});

test("simhash64 - unrelated texts are far apart", () => {
  const a = simhash64(pageWords(10, 25_000).join(" "));
  for (let seed = 11; seed < 21; seed++) {
    expect(hammingDistance(a, simhash64(pageWords(seed, 25_000).join(" ")))).toBeGreaterThan(12);
  }
  const english = "the crawler fetches pages politely and obeys robots txt before it follows any link it finds";
  const other = "quarterly revenue grew while operating costs fell across every region except the north";
  expect(hammingDistance(simhash64(english), simhash64(other))).toBeGreaterThan(12);
});

test("simhash64 - word order matters, a reshuffled page is not a duplicate", () => {
  const words = pageWords(4, 25_000);
  const shuffled = words.slice();
  const next = rng(5);
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  expect(hammingDistance(simhash64(words.join(" ")), simhash64(shuffled.join(" ")))).toBeGreaterThan(3);
});

test("simhash64 - empty and symbol-only text give 0; short texts still get a fingerprint", () => {
  expect(simhash64("")).toBe(0n);
  expect(simhash64("  ... !!! --- 😀 ")).toBe(0n);
  expect(simhash64("hello")).not.toBe(0n);
  expect(simhash64("hello world")).not.toBe(simhash64("world hello"));
});

test("simhash64 - frozen value never changes, since fingerprints are stored", () => {
  expect(simhash64("The quick brown fox jumps over the lazy dog")).toBe(FROZEN_FOX);
});

test("simhash64 - the parts form is the bigint split in halves", () => {
  const text = pageWords(6, 2_000).join(" ");
  const [hi, lo] = simhash64Parts(text);
  expect(fromParts(hi, lo)).toBe(simhash64(text));
  expect(toParts(simhash64(text))).toEqual([hi, lo]);
});

test("wordHashes - Han and kana are one word per character; other scripts split on non-letters", () => {
  expect(wordHashes("网页内容").length).toBe(4);
  expect(wordHashes("ひらがな カタカナ").length).toBe(8);
  expect(wordHashes("привет, мир! don't stop 42x").length).toBe(6);
  expect(wordHashes("naïve café").length).toBe(2);
  // A word in an astral plane (Mathematical Alphanumeric letters) stays one word.
  expect(wordHashes("𝐀𝐁𝐂 abc").length).toBe(2);
});

test("simhash64 - a one-character edit of a long Chinese text is a near duplicate", () => {
  const next = rng(8);
  let text = "";
  for (let i = 0; i < 8000; i++) text += String.fromCharCode(0x4e00 + Math.floor(next() ** 2 * 3000));
  const edited = text.slice(0, 4000) + "龍" + text.slice(4001);
  expect(hammingDistance(simhash64(text), simhash64(edited))).toBeLessThanOrEqual(3);
});

test("hammingDistance - counts differing bits of 64-bit values, signed inputs taken modulo 2^64", () => {
  expect(hammingDistance(0n, 0n)).toBe(0);
  expect(hammingDistance(0n, (1n << 64n) - 1n)).toBe(64);
  expect(hammingDistance(0b1011n, 0b0010n)).toBe(2);
  expect(hammingDistance(1n << 63n, 0n)).toBe(1);
  expect(hammingDistance(-1n, (1n << 64n) - 1n)).toBe(0);
});

test("exactFingerprint - equal bytes give equal fingerprints, one changed byte a different one", () => {
  const bytes = new TextEncoder().encode(pageWords(7, 25_000).join(" "));
  expect(exactFingerprint(bytes)).toBe(exactFingerprint(bytes.slice()));
  const changed = bytes.slice();
  changed[12_345]! ^= 1;
  expect(exactFingerprint(changed)).not.toBe(exactFingerprint(bytes));
  expect(exactFingerprint(bytes)).toMatch(/^[0-9a-f]{32}$/);
});

/** The murmur3 finalizer, written out for the references below. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The words' hashes the slow, obvious way: lower-case the whole text, take each run of letters, digits and
 * marks (each Han or kana character alone), FNV-1a over its UTF-16 units, the murmur3 finalizer of that
 * xor its length. `wordHashes` reads ASCII as found and lower-cases only from the first other character.
 */
function referenceWordHashes(text: string): number[] {
  const words =
    text
      .toLowerCase()
      .match(/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|(?:(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}])[\p{L}\p{N}\p{M}])+/gu) ?? [];
  return words.map((w) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    return fmix(h ^ w.length);
  });
}

test("wordHashes - the same words as lower-casing the whole text first, wherever the first non-ASCII character falls", () => {
  const pieces = [
    "Hello",
    "WORLD",
    "x9",
    " ",
    ", ",
    "\n",
    "naïve",
    "CAFÉ",
    "ΟΔΟΣ",
    "Σ",
    "İstanbul",
    "网页",
    "カタ",
    "𝐀𝐁",
    "ß",
    "K",
    "-",
    "42",
    "\ud800",
    "x\udc00y",
  ];
  const next = rng(21);
  for (let i = 0; i < 3_000; i++) {
    const text = Array.from({ length: 1 + Math.floor(next() * 25) }, () => pieces[Math.floor(next() * pieces.length)]!).join("");
    expect([...wordHashes(text)]).toEqual(referenceWordHashes(text));
  }
  const ascii = pageWords(9, 25_000).join(" ").toUpperCase();
  expect([...wordHashes(ascii)]).toEqual(referenceWordHashes(ascii));
  expect([...wordHashes(`${ascii} É`)]).toEqual(referenceWordHashes(`${ascii} É`));
});

/**
 * SimHash the slow, obvious way, from the words' hashes: each feature (a 3-shingle, or the whole text of
 * one or two words) hashed as murmur3 rounds over its words' hashes under each seed, one counter per bit.
 */
function referenceSimhash(text: string): [number, number] {
  const words = referenceWordHashes(text);
  if (words.length === 0) return [0, 0];
  const width = Math.min(3, words.length);
  const features = words.length - width + 1;
  const featureHash = (i: number, seed: number) => {
    let h = seed;
    for (let j = 0; j < width; j++) {
      let k = Math.imul(words[i + j]!, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      h ^= Math.imul(k, 0x1b873593);
      h = (h << 13) | (h >>> 19);
      h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    }
    return fmix(h ^ (width * 4));
  };
  const counts = new Array<number>(64).fill(0);
  for (let i = 0; i < features; i++) {
    const lo = featureHash(i, 0x3c6ef372);
    const hi = featureHash(i, 0xa54ff53a);
    for (let b = 0; b < 32; b++) {
      counts[b]! += (lo >>> b) & 1;
      counts[32 + b]! += (hi >>> b) & 1;
    }
  }
  let lo = 0;
  let hi = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * counts[b]! > features) lo |= 1 << b;
    if (2 * counts[32 + b]! > features) hi |= 1 << b;
  }
  return [hi >>> 0, lo >>> 0];
}

test("simhash64Parts - the same fingerprint as counting each bit of each feature one by one, at every length", () => {
  expect(simhash64Parts("The quick brown fox jumps over the lazy dog")).toEqual(
    referenceSimhash("The quick brown fox jumps over the lazy dog"),
  );
  // Word counts around the one- and two-word cases and, with 3-shingles (features = words - 2), around a
  // group of 4 features, a padded last group, and the byte lanes' flush (every 255 groups: 1,020 features).
  for (const count of [
    1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 17, 18, 34, 254, 255, 256, 257, 511, 512, 1_000, 1_021, 1_022, 1_023, 2_041, 2_042, 2_043, 3_400, 4_083,
    8_200,
  ]) {
    const text = pageWords(count, 40 * count)
      .slice(0, count)
      .join(" ");
    expect({ count, parts: simhash64Parts(text) }).toEqual({ count, parts: referenceSimhash(text) });
  }
});

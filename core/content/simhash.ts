/**
 * 64-bit SimHash (Charikar) of page text, for near-duplicate detection. Features are overlapping word
 * 3-shingles (see `words.ts` for what a word is), each weighted 1, so a one-word edit changes at most
 * three features out of thousands and the fingerprint moves by a bit or two, while word order still
 * matters (a bag of single words would call any shuffle of the same vocabulary a duplicate). Texts of
 * one or two words use those words as the only feature. A shingle's 64-bit feature hash is two
 * MurmurHash3-style hashes of its three word hashes with different seeds (low and high halves). Bit b of
 * the result is 1 when more than half of the features have bit b set. Empty text gives 0. Frozen:
 * fingerprints are stored and compared across crawls.
 */
import { fmix32 } from "../hash/index.ts";
import { wordHashes } from "./words.ts";

const SHINGLE = 3;
const SEED_LO = 0x3c6ef372;
const SEED_HI = 0xa54ff53a;
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** The word's half of a murmur3 mix step, the same under every seed: computed once per word, not per shingle. */
function scrambled(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** The state's half of a murmur3 mix step, given the word's scrambled half. */
function mixScrambled(h: number, k: number): number {
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Feature hash of words[i .. i+width) under `seed`, from the words' scrambled halves. */
function shingleHash(scr: Int32Array, i: number, width: number, seed: number): number {
  let h = seed;
  for (let j = 0; j < width; j++) h = mixScrambled(h, scr[i + j]!);
  return fmix32(h ^ (width * 4));
}

/**
 * SimHash of `text` as two uint32 halves [hi, lo]: the fast form, used by `SimHashIndex` and by callers
 * that store the halves separately.
 */
export function simhash64Parts(text: string): [number, number] {
  const words = wordHashes(text);
  if (words.length === 0) return [0, 0];
  const width = Math.min(SHINGLE, words.length);
  const features = words.length - width + 1;
  // Room for the features rounded up to a whole group of 4, the padding zeros (a zero adds no bits).
  const padded = Math.ceil(features / GROUP) * GROUP;
  if (loScratch.length < padded) {
    loScratch = new Int32Array(Math.max(padded, 2 * loScratch.length));
    hiScratch = new Int32Array(loScratch.length);
  }
  const los = loScratch;
  const his = hiScratch;
  if (width === SHINGLE) {
    // Each word's scrambled half is made once and slides through a, b, c.
    let a = scrambled(words[0]!);
    let b = scrambled(words[1]!);
    for (let i = 0; i < features; i++) {
      const c = scrambled(words[i + 2]!);
      los[i] = fmix32(mixScrambled(mixScrambled(mixScrambled(SEED_LO, a), b), c) ^ (SHINGLE * 4));
      his[i] = fmix32(mixScrambled(mixScrambled(mixScrambled(SEED_HI, a), b), c) ^ (SHINGLE * 4));
      a = b;
      b = c;
    }
  } else {
    const scr = new Int32Array(words.length);
    for (let i = 0; i < words.length; i++) scr[i] = scrambled(words[i]!);
    los[0] = shingleHash(scr, 0, width, SEED_LO);
    his[0] = shingleHash(scr, 0, width, SEED_HI);
  }
  los.fill(0, features, padded);
  his.fill(0, features, padded);
  const counts = new Float64Array(64);
  countBits(los, padded, counts, 0);
  countBits(his, padded, counts, 32);
  let lo = 0;
  let hi = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * counts[b]! > features) lo |= 1 << b;
    if (2 * counts[b + 32]! > features) hi |= 1 << b;
  }
  return [hi >>> 0, lo >>> 0];
}

/** Features counted per step of `countBits`. */
const GROUP = 4;
/** Feature hashes of the text at hand (grown as needed; each thread has its own). */
let loScratch = new Int32Array(1024);
let hiScratch = new Int32Array(1024);

/**
 * Adds, for each bit position b of the 32-bit words v[0 .. n) (n a multiple of 4), how many of them have
 * bit b set to counts[base + b]. Counting is bit-sliced: `ones` and `twos` hold, per bit position, the low
 * bits of a running count, and each group of 4 words goes through 3 carry-save adders (three words in, a
 * word of sums and a word of carries out: 5 operations for 32 positions at once), which leave one word of
 * carries worth 4 each. Those are summed in byte lanes: accumulator Fj holds, in its four bytes, the fours
 * for bits j, j+8, j+16 and j+24, and is emptied before a byte can overflow. About 6 operations per word,
 * where adding each word's bits in byte lanes took 24.
 */
function countBits(v: Int32Array, n: number, counts: Float64Array, base: number): void {
  let ones = 0;
  let twos = 0;
  let F0 = 0,
    F1 = 0,
    F2 = 0,
    F3 = 0,
    F4 = 0,
    F5 = 0,
    F6 = 0,
    F7 = 0;
  let pending = 0;
  for (let i = 0; i < n; i += GROUP) {
    // Each adder: carry = majority of (x, a, b), sum = x ^ a ^ b.
    let a = v[i]!;
    let b = v[i + 1]!;
    let u = ones ^ a;
    const twosA = (ones & a) | (u & b);
    ones = u ^ b;
    a = v[i + 2]!;
    b = v[i + 3]!;
    u = ones ^ a;
    const twosB = (ones & a) | (u & b);
    ones = u ^ b;
    u = twos ^ twosA;
    const fours = (twos & twosA) | (u & twosB);
    twos = u ^ twosB;
    F0 += fours & LANES;
    F1 += (fours >>> 1) & LANES;
    F2 += (fours >>> 2) & LANES;
    F3 += (fours >>> 3) & LANES;
    F4 += (fours >>> 4) & LANES;
    F5 += (fours >>> 5) & LANES;
    F6 += (fours >>> 6) & LANES;
    F7 += (fours >>> 7) & LANES;
    if (++pending === 255) {
      flush(counts, base, GROUP, F0, F1, F2, F3, F4, F5, F6, F7);
      F0 = F1 = F2 = F3 = F4 = F5 = F6 = F7 = 0;
      pending = 0;
    }
  }
  flush(counts, base, GROUP, F0, F1, F2, F3, F4, F5, F6, F7);
  for (let bit = 0; bit < 32; bit++) counts[base + bit]! += 2 * ((twos >>> bit) & 1) + ((ones >>> bit) & 1);
}

/** One bit of each byte: the lanes of an accumulator. */
const LANES = 0x01010101;

/** Adds `weight` x the byte lanes of accumulators 0..7 (for bits b, b+8, b+16, b+24) to counts[base + bit]. */
function flush(
  counts: Float64Array,
  base: number,
  weight: number,
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  a4: number,
  a5: number,
  a6: number,
  a7: number,
): void {
  const lanes = [a0, a1, a2, a3, a4, a5, a6, a7];
  for (let b = 0; b < 8; b++) {
    const l = lanes[b]!;
    for (let j = 0; j < 4; j++) counts[base + b + 8 * j]! += weight * ((l >>> (8 * j)) & 0xff);
  }
}

/** 64-bit SimHash of `text` (see the module comment for the features). */
export function simhash64(text: string): bigint {
  const [hi, lo] = simhash64Parts(text);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

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
  const scr = new Int32Array(words.length);
  for (let i = 0; i < words.length; i++) scr[i] = scrambled(words[i]!);
  // Bit counts are kept eight bits at a time in byte lanes: lane accumulator Lb holds, in its four bytes,
  // the counts for bits b, b+8, b+16 and b+24 of the low half (Hb: of the high half). Four times fewer
  // additions than one counter per bit, and sixteen locals rather than a typed array: the JIT keeps them
  // in registers or on the stack, without a bounds check or a heap load per add (measured: the counting
  // loop 2x faster). Flushed to full counters before any byte can overflow (at 255 features).
  const counts = new Float64Array(64);
  let L0 = 0,
    L1 = 0,
    L2 = 0,
    L3 = 0,
    L4 = 0,
    L5 = 0,
    L6 = 0,
    L7 = 0;
  let H0 = 0,
    H1 = 0,
    H2 = 0,
    H3 = 0,
    H4 = 0,
    H5 = 0,
    H6 = 0,
    H7 = 0;
  let pending = 0;
  for (let i = 0; i < features; i++) {
    let lo: number;
    let hi: number;
    if (width === SHINGLE) {
      const a = scr[i]!;
      const b = scr[i + 1]!;
      const c = scr[i + 2]!;
      lo = fmix32(mixScrambled(mixScrambled(mixScrambled(SEED_LO, a), b), c) ^ (SHINGLE * 4));
      hi = fmix32(mixScrambled(mixScrambled(mixScrambled(SEED_HI, a), b), c) ^ (SHINGLE * 4));
    } else {
      lo = shingleHash(scr, i, width, SEED_LO);
      hi = shingleHash(scr, i, width, SEED_HI);
    }
    L0 += lo & LANES;
    L1 += (lo >>> 1) & LANES;
    L2 += (lo >>> 2) & LANES;
    L3 += (lo >>> 3) & LANES;
    L4 += (lo >>> 4) & LANES;
    L5 += (lo >>> 5) & LANES;
    L6 += (lo >>> 6) & LANES;
    L7 += (lo >>> 7) & LANES;
    H0 += hi & LANES;
    H1 += (hi >>> 1) & LANES;
    H2 += (hi >>> 2) & LANES;
    H3 += (hi >>> 3) & LANES;
    H4 += (hi >>> 4) & LANES;
    H5 += (hi >>> 5) & LANES;
    H6 += (hi >>> 6) & LANES;
    H7 += (hi >>> 7) & LANES;
    if (++pending === 255 || i === features - 1) {
      flush(counts, 0, L0, L1, L2, L3, L4, L5, L6, L7);
      flush(counts, 32, H0, H1, H2, H3, H4, H5, H6, H7);
      L0 = L1 = L2 = L3 = L4 = L5 = L6 = L7 = 0;
      H0 = H1 = H2 = H3 = H4 = H5 = H6 = H7 = 0;
      pending = 0;
    }
  }
  let lo = 0;
  let hi = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * counts[b]! > features) lo |= 1 << b;
    if (2 * counts[b + 32]! > features) hi |= 1 << b;
  }
  return [hi >>> 0, lo >>> 0];
}

/** One bit of each byte: the lanes of an accumulator. */
const LANES = 0x01010101;

/** Adds the byte lanes of accumulators 0..7 (for bits b, b+8, b+16, b+24) to counts[base + bit]. */
function flush(
  counts: Float64Array,
  base: number,
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
    for (let j = 0; j < 4; j++) counts[base + b + 8 * j]! += (l >>> (8 * j)) & 0xff;
  }
}

/** 64-bit SimHash of `text` (see the module comment for the features). */
export function simhash64(text: string): bigint {
  const [hi, lo] = simhash64Parts(text);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/**
 * MurmurHash3 x86_32 over UTF-8, the project's string hash. Partitions (`hash32(host) mod P`), ring
 * points and Bloom bit positions are all derived from it and persist in Redis, NATS subjects and files
 * on disk, so its definition is frozen: the input is the UTF-8 encoding of the string (lone surrogates
 * encoded as U+FFFD, exactly as `TextEncoder` does) and the algorithm is the reference MurmurHash3_x86_32.
 * UTF-8 rather than UTF-16 code units so that any other language reproduces the values with its stock
 * murmur3 over the string's bytes. The string is encoded on the fly (no `TextEncoder` allocation), with a
 * fast path that packs four ASCII characters into one block; the tests pin it to a byte-level reference.
 */
import { fmix32, rotl32 } from "./mix.ts";

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Seeds of the two lanes of `hash64pair`. Frozen: Bloom filters saved to disk or Redis depend on them. */
export const PAIR_SEED_A = 0x9747b28c;
export const PAIR_SEED_B = 0x5bd1e995;

function mixK(k: number): number {
  return Math.imul(rotl32(Math.imul(k, C1), 15), C2);
}

function mixH(h: number, k: number): number {
  return (Math.imul(rotl32(h ^ k, 13), 5) + 0xe6546b64) | 0;
}

/** Lane B of the latest `murmurUtf8Pair` call; read synchronously right after the call. */
let laneB = 0;

/**
 * Hashes the UTF-8 bytes of `s` with two seeds in one pass and returns lane A (int32); lane B is left
 * in `laneB`. The block mixing does not depend on the seed, so both lanes share it and cost little more
 * than one.
 */
function murmurUtf8Pair(s: string, seedA: number, seedB: number): number {
  let ha = seedA | 0;
  let hb = seedB | 0;
  let acc = 0; // pending bytes, little-endian, not yet a full block
  let fill = 0; // how many bytes are pending in acc (0..3)
  let len = 0; // UTF-8 byte count
  const n = s.length;
  let i = 0;
  while (i < n) {
    let c = s.charCodeAt(i);
    if (i + 4 <= n) {
      const c1 = s.charCodeAt(i + 1);
      const c2 = s.charCodeAt(i + 2);
      const c3 = s.charCodeAt(i + 3);
      if ((c | c1 | c2 | c3) < 0x80) {
        // Four ASCII characters are four bytes: one block, shifted past any pending bytes.
        const w = c | (c1 << 8) | (c2 << 16) | (c3 << 24);
        let k: number;
        if (fill === 0) {
          k = mixK(w);
        } else {
          k = mixK(acc | (w << (fill * 8)));
          acc = w >>> (32 - fill * 8);
        }
        ha = mixH(ha, k);
        hb = mixH(hb, k);
        i += 4;
        len += 4;
        continue;
      }
    }
    i++;
    // Encode one code point as 1-4 bytes packed little-endian into `enc`.
    let enc: number;
    let nb: number;
    if (c < 0x80) {
      enc = c;
      nb = 1;
    } else if (c < 0x800) {
      enc = 0xc0 | (c >>> 6) | ((0x80 | (c & 0x3f)) << 8);
      nb = 2;
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i < n ? s.charCodeAt(i) : 0;
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = ((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
          i++;
          enc =
            0xf0 | (cp >>> 18) | ((0x80 | ((cp >>> 12) & 0x3f)) << 8) | ((0x80 | ((cp >>> 6) & 0x3f)) << 16) | ((0x80 | (cp & 0x3f)) << 24);
          nb = 4;
        } else {
          c = 0xfffd; // lone surrogate: what TextEncoder emits
          enc = 0xe0 | (c >>> 12) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16);
          nb = 3;
        }
      } else {
        enc = 0xe0 | (c >>> 12) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | ((0x80 | (c & 0x3f)) << 16);
        nb = 3;
      }
    }
    for (let j = 0; j < nb; j++) {
      acc |= ((enc >>> (j * 8)) & 0xff) << (fill * 8);
      fill++;
      if (fill === 4) {
        const k = mixK(acc);
        ha = mixH(ha, k);
        hb = mixH(hb, k);
        acc = 0;
        fill = 0;
      }
    }
    len += nb;
  }
  if (fill > 0) {
    const k = mixK(acc);
    ha ^= k;
    hb ^= k;
  }
  laneB = fmix32(hb ^ len);
  return fmix32(ha ^ len);
}

/**
 * MurmurHash3_x86_32 of the UTF-8 encoding of `s`, as a uint32. Stable forever: partitions depend on it.
 * `seed` is taken as a uint32 (default 0).
 */
export function hash32(s: string, seed = 0): number {
  return murmurUtf8Pair(s, seed, 0) >>> 0;
}

/**
 * Two independent uint32 hashes of `s` for double hashing (Bloom filters): MurmurHash3_x86_32 of its
 * UTF-8 bytes with seeds `PAIR_SEED_A` and `PAIR_SEED_B`, computed in one pass.
 */
export function hash64pair(s: string): [number, number] {
  const a = murmurUtf8Pair(s, PAIR_SEED_A, PAIR_SEED_B) >>> 0;
  return [a, laneB >>> 0];
}

/** Same as `hash64pair`, written into `out[0]`, `out[1]` to spare an allocation on hot paths. */
export function hash64pairInto(s: string, out: Uint32Array): void {
  out[0] = murmurUtf8Pair(s, PAIR_SEED_A, PAIR_SEED_B);
  out[1] = laneB;
}

/** MurmurHash3_x86_32 of raw bytes, as a uint32 (used for checksums of serialized filters). */
export function hash32Bytes(bytes: Uint8Array, seed = 0): number {
  let h = seed | 0;
  const n = bytes.length;
  const blocks = n & ~3;
  for (let i = 0; i < blocks; i += 4) {
    const w = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    h = mixH(h, mixK(w));
  }
  const rest = n & 3;
  if (rest > 0) {
    let k = 0;
    if (rest === 3) k ^= bytes[blocks + 2]! << 16;
    if (rest >= 2) k ^= bytes[blocks + 1]! << 8;
    k ^= bytes[blocks]!;
    h ^= mixK(k);
  }
  return fmix32(h ^ n) >>> 0;
}

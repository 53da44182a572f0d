/**
 * Where a key lands in a Bloom filter: the single definition shared by the in-process filter and a
 * Redis-backed one (which sets the same offsets with `BITFIELD key SET u1 <offset> 1 ...`), so a filter
 * can move between the two without rehashing. Positions come from enhanced double hashing (Dillinger and
 * Manolios' variant) over the two 32-bit lanes of `hash64pair`: offset i is
 * (h1 + i h2 + i (i + 1) / 2) mod m, computed incrementally (y += i, then x += y). Plain double hashing
 * degenerates when h2 is 0 mod m (all k probes on one bit), and the usual fix `h2 | 1` yields a negative
 * int32 in JS; the growing step avoids both. Bit offset o lives in byte o >> 3
 * under mask 0x80 >> (o & 7), the order Redis uses for SETBIT/BITFIELD, so the bytes can be copied
 * between the two as they are.
 */
import { hash64pairInto } from "../hash/index.ts";

/** Largest filter in bits: offsets must fit in a uint32, like Redis's 512 MB string limit. */
export const MAX_BLOOM_BITS = 0xfffffff8;

/** Most hash functions a filter may use; past ~20 the false-positive gain is nil and the cost linear. */
export const MAX_BLOOM_HASHES = 32;

/** Throws a RangeError unless `mBits` and `k` describe a usable filter. */
export function checkBloomShape(mBits: number, k: number): void {
  if (!Number.isInteger(mBits) || mBits < 8 || mBits > MAX_BLOOM_BITS) {
    throw new RangeError(`Bloom filter size must be an integer number of bits in [8, ${MAX_BLOOM_BITS}], got ${mBits}`);
  }
  if (!Number.isInteger(k) || k < 1 || k > MAX_BLOOM_HASHES) {
    throw new RangeError(`Bloom filter hash count must be an integer in [1, ${MAX_BLOOM_HASHES}], got ${k}`);
  }
}

/**
 * Writes the `k` bit offsets for the hash lanes (h1, h2) into `out[0..k)`. Lanes are uint32; offsets are
 * in [0, mBits). The caller has validated the shape (this runs once per key on the hot path).
 */
export function fillBloomBitPositions(h1: number, h2: number, mBits: number, k: number, out: Uint32Array | number[]): void {
  let x = (h1 >>> 0) % mBits;
  let y = (h2 >>> 0) % mBits;
  out[0] = x;
  for (let i = 1; i < k; i++) {
    y = (y + i) % mBits;
    x += y;
    if (x >= mBits) x -= mBits;
    out[i] = x;
  }
}

/** The `k` bit offsets of `key` in a filter of `mBits` bits, e.g. for a Redis BITFIELD command. */
export function bloomBitPositions(key: string, mBits: number, k: number): number[] {
  checkBloomShape(mBits, k);
  const lanes = new Uint32Array(2);
  hash64pairInto(key, lanes);
  const out = new Array<number>(k);
  fillBloomBitPositions(lanes[0]!, lanes[1]!, mBits, k, out);
  return out;
}

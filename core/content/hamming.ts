/**
 * Hamming distance between 64-bit fingerprints, and the conversions between the bigint form used at the
 * API edge and the two-uint32 form used inside hot loops (bigint arithmetic allocates). Inputs outside
 * [0, 2^64) are taken modulo 2^64, so signed int64 values from stores or protobuf compare correctly.
 */

/** Number of set bits in a 32-bit value. */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

const MASK32 = 0xffffffffn;

/** Splits a 64-bit value into [hi, lo] uint32 halves. */
export function toParts(hash: bigint): [number, number] {
  const v = BigInt.asUintN(64, hash);
  return [Number(v >> 32n), Number(v & MASK32)];
}

/** Joins [hi, lo] uint32 halves into an unsigned 64-bit bigint. */
export function fromParts(hi: number, lo: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** Number of bit positions where the 64-bit values `a` and `b` differ (0..64). */
export function hammingDistance(a: bigint, b: bigint): number {
  const x = BigInt.asUintN(64, a ^ b);
  return popcount32(Number(x >> 32n)) + popcount32(Number(x & MASK32));
}

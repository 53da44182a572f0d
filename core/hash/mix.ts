/**
 * The 32-bit mixing steps shared by the MurmurHash3 variants in this folder (rotation and the final
 * avalanche). Kept in one place so the 32-bit and 128-bit hashes cannot drift apart; every function
 * works on int32 values via `Math.imul` and shifts, and callers convert to uint32 with `>>> 0` at the
 * edge, because JS bitwise operators yield signed int32 (the `x | 1` trap in STACK-NOTES).
 */

/** Rotates a 32-bit value left by `r` bits (0 < r < 32). Result is an int32. */
export function rotl32(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** MurmurHash3's finalizer: forces every input bit to affect every output bit. Result is an int32. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

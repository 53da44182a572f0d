/**
 * Helpers for the filters' binary forms: little-endian header fields, magic tags, and the error raised
 * when saved bytes cannot be trusted. A corrupt seen-set silently skips pages (false "seen") or refetches
 * them, so loading refuses anything whose tag, version, length or checksum does not match; the caller
 * then rebuilds the filter from the durable store rather than run on a damaged one.
 */

/**
 * Saved filter bytes are unusable (wrong tag, version, length or checksum). Reaction: fatal for this
 * file; rebuild the filter from the exact store.
 */
export class CorruptFilterError extends Error {
  override readonly name = "CorruptFilterError";
}

const TWO_32 = 4294967296;

/** Writes a non-negative safe integer as a little-endian uint64. */
export function setU64(view: DataView, offset: number, value: number): void {
  view.setUint32(offset, value % TWO_32, true);
  view.setUint32(offset + 4, Math.floor(value / TWO_32), true);
}

/** Reads a little-endian uint64 that was written by `setU64`; rejects values past 2^53. */
export function getU64(view: DataView, offset: number): number {
  const hi = view.getUint32(offset + 4, true);
  if (hi >= 0x200000) throw new CorruptFilterError(`64-bit field at ${offset} exceeds 2^53`);
  return hi * TWO_32 + view.getUint32(offset, true);
}

/** Writes four ASCII characters at `offset`. */
export function setTag(bytes: Uint8Array, offset: number, tag: string): void {
  for (let i = 0; i < 4; i++) bytes[offset + i] = tag.charCodeAt(i);
}

/** Throws unless the four bytes at `offset` spell `tag`. */
export function expectTag(bytes: Uint8Array, offset: number, tag: string, what: string): void {
  for (let i = 0; i < 4; i++) {
    if (bytes[offset + i] !== tag.charCodeAt(i)) throw new CorruptFilterError(`not a ${what}: bad magic tag`);
  }
}

const POPCOUNT8 = Uint8Array.from({ length: 256 }, (_, b) => {
  let c = 0;
  for (let v = b; v !== 0; v >>>= 1) c += v & 1;
  return c;
});

/** Number of set bits in `bytes`. */
export function popcountBytes(bytes: Uint8Array): number {
  let total = 0;
  for (let i = 0; i < bytes.length; i++) total += POPCOUNT8[bytes[i]!]!;
  return total;
}

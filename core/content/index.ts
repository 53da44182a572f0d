/**
 * Content fingerprints for duplicate detection: `exactFingerprint` (128-bit hash of the body bytes, for
 * exact duplicates), `simhash64` (64-bit SimHash of the text, for near duplicates), `hammingDistance`,
 * `SimHashIndex`, which finds a stored SimHash within 3 bits without a full scan, and `ContentClaims`,
 * which URL first had a content.
 */
export { fingerprintBytes as exactFingerprint } from "../hash/index.ts";
export { simhash64, simhash64Parts } from "./simhash.ts";
export { hammingDistance, popcount32, toParts, fromParts } from "./hamming.ts";
export { SimHashIndex, MAX_INDEXED_DISTANCE } from "./simhash-index.ts";
export type { NearMatch } from "./simhash-index.ts";
export { wordHashes } from "./words.ts";
export { ContentClaims, NEAR_DUPLICATE_BITS } from "./content-claims.ts";

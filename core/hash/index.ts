/**
 * Pure-JS hashes used across the crawler, identical on Bun, Deno and Node: `hash32` (partitions, ring
 * points), `hash64pair` (Bloom double hashing) and `fingerprintBytes` (exact content fingerprints). All
 * of them persist in stores and subject names, so their outputs are frozen; the tests pin them to the
 * reference MurmurHash3 algorithms and to fixed values.
 */
export { hash32, hash32Bytes, hash64pair, hash64pairInto, PAIR_SEED_A, PAIR_SEED_B } from "./murmur3-32.ts";
export { fingerprintBytes, murmur3x86_128 } from "./murmur3-128.ts";
export { fmix32 } from "./mix.ts";
export { key53 } from "./key53.ts";
export { Key53Set } from "./key53-set.ts";

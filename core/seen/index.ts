/**
 * The seen-set's data structures: a fixed-size `BloomFilter` (10 bits and 7 hashes per planned key by
 * default), a `ScalableBloomFilter` that grows while keeping a bound on its compound false-positive rate,
 * and `bloomBitPositions`, the shared definition of which bits a key sets, so a Redis-backed filter
 * (BITFIELD) and the in-process one agree bit for bit.
 */
export { BloomFilter, DEFAULT_BITS_PER_KEY, DEFAULT_HASHES } from "./bloom-filter.ts";
export type { BloomFilterOptions, BloomFilterShape } from "./bloom-filter.ts";
export { ScalableBloomFilter } from "./scalable-bloom-filter.ts";
export type { ScalableBloomFilterOptions, SliceInfo } from "./scalable-bloom-filter.ts";
export { bloomBitPositions, fillBloomBitPositions, MAX_BLOOM_BITS, MAX_BLOOM_HASHES } from "./bit-positions.ts";
export { bloomFalsePositiveRate, bloomShapeFor, bloomShapeWithin } from "./sizing.ts";
export { CorruptFilterError } from "./codec.ts";

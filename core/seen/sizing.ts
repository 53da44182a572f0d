/**
 * Bloom filter arithmetic: the textbook false-positive rate for a given load, and the size needed to
 * reach a target rate. Kept apart from the filters so benches, tests and operators' tooling quote the
 * same theory the filters are sized by.
 */

/** Theoretical false-positive rate (1 - e^(-k n / m))^k after `count` distinct keys in `mBits` bits. */
export function bloomFalsePositiveRate(count: number, mBits: number, k: number): number {
  return Math.pow(1 - Math.exp((-k * count) / mBits), k);
}

/**
 * Hash count and size in bits (a multiple of 8) so that `capacity` keys give at most `rate` false
 * positives in theory. k is the optimum log2(1/rate), rounded to an integer, and m is then solved
 * exactly from the rate formula rather than taken from the m = n log2(1/p) / ln 2 approximation.
 */
export function bloomShapeFor(capacity: number, rate: number): { bits: number; hashes: number } {
  if (!(capacity >= 1) || !Number.isFinite(capacity)) throw new RangeError(`capacity must be >= 1, got ${capacity}`);
  if (!(rate > 0 && rate < 1)) throw new RangeError(`false-positive rate must be in (0, 1), got ${rate}`);
  const hashes = Math.max(1, Math.round(Math.log2(1 / rate)));
  const bits = Math.ceil((-hashes * capacity) / Math.log(1 - Math.pow(rate, 1 / hashes)));
  return { bits: Math.max(8, Math.ceil(bits / 8) * 8), hashes };
}

/**
 * `bloomShapeFor`, but never larger than `maxBits`: when the planned capacity would need more, the
 * capacity shrinks to what `maxBits` holds at the same rate. Returns the capacity actually planned.
 */
export function bloomShapeWithin(capacity: number, rate: number, maxBits: number): { bits: number; hashes: number; capacity: number } {
  let planned = capacity;
  let shape = bloomShapeFor(planned, rate);
  while (shape.bits > maxBits) {
    // Size is linear in capacity; the margin absorbs rounding to whole bytes.
    planned = Math.floor(planned * (maxBits / shape.bits) * 0.9999);
    if (planned < 1) throw new RangeError(`a false-positive rate of ${rate} does not fit one key in ${maxBits} bits`);
    shape = bloomShapeFor(planned, rate);
  }
  return { ...shape, capacity: planned };
}

import { expect, test } from "bun:test";
import { CorruptFilterError, ScalableBloomFilter } from "./index.ts";

const url = (i: number) => `https://www.site${i % 4099}.example/articles/${i}?ref=${i & 15}`;
const freshUrl = (i: number) => `https://fresh${i % 1009}.example.org/p/${i}`;

/** Adds keys 0..n-1 and returns the filter. */
function grown(n: number, initialCapacity: number): ScalableBloomFilter {
  const f = new ScalableBloomFilter({ initialCapacity });
  for (let i = 0; i < n; i++) f.add(url(i));
  return f;
}

test("ScalableBloomFilter - adds a slice of twice the capacity each time the newest one is full", () => {
  const f = grown(31_000, 1000); // 1000 + 2000 + 4000 + 8000 + 16000
  expect(f.sliceCount).toBe(5);
  expect(f.capacity).toBe(31_000);
  expect(f.sliceTarget(4)).toEqual({ capacity: 16_000, falsePositiveRate: 0.01 * 0.5 * 0.5 ** 4 });
  // Keys that were false positives in older slices never reach the newest, so it fills a little later.
  let extra = 0;
  while (f.sliceCount === 5) f.add(`https://more.example/${extra++}`);
  expect(extra).toBeLessThan(31_000 * 0.01);
  expect(f.describeSlices()[5]!.capacity).toBe(32_000);
});

test("ScalableBloomFilter - never gives a false negative across growth", () => {
  const n = 100_000;
  const f = grown(n, 1000);
  expect(f.sliceCount).toBeGreaterThan(5);
  let missing = 0;
  for (let i = 0; i < n; i++) if (!f.has(url(i))) missing++;
  expect(missing).toBe(0);
  let reAddedAsNew = 0;
  for (let i = 0; i < n; i += 3) if (!f.add(url(i))) reAddedAsNew++;
  expect(reAddedAsNew).toBe(0);
});

test("ScalableBloomFilter - the compound false-positive rate stays under its 1 % bound after several growths", () => {
  for (const [initialCapacity, slices] of [
    [1000, 6],
    [100, 9],
  ] as const) {
    // Fill to the planned capacity of all slices: the worst point before the next slice starts.
    const f = grown(initialCapacity * (2 ** slices - 1), initialCapacity);
    expect(f.sliceCount).toBe(slices);
    const probes = 200_000;
    let fp = 0;
    for (let i = 0; i < probes; i++) if (f.has(freshUrl(i))) fp++;
    const measured = fp / probes;
    const estimate = f.estimatedFalsePositiveRate();
    // Each slice stops before its fill reaches its target, so the estimate is below the bound by design.
    expect(estimate).toBeLessThan(0.01);
    expect(measured).toBeLessThan(0.01);
    // ~1,900 expected false positives: the sampling error is about 2.3 %.
    expect(Math.abs(measured - estimate) / estimate).toBeLessThan(0.1);
  }
});

test("ScalableBloomFilter - a slice whose fill already reaches its target rate hands over early", () => {
  // Slices of 100 keys vary widely; whatever the count, no slice's fill-based rate exceeds its target.
  const f = grown(25_000, 100);
  const slices = f.describeSlices();
  expect(slices.some((s) => s.count < s.capacity && s !== slices[slices.length - 1])).toBe(true);
  for (const s of slices) expect(s.estimatedFalsePositiveRate).toBeLessThanOrEqual(s.targetFalsePositiveRate);
});

test("ScalableBloomFilter - add reports a present key and does not count it twice", () => {
  const f = new ScalableBloomFilter({ initialCapacity: 10 });
  expect(f.add("https://a.example/")).toBe(false);
  expect(f.add("https://a.example/")).toBe(true);
  expect(f.has("https://a.example/")).toBe(true);
  expect(f.has("https://b.example/")).toBe(false);
  expect(f.count).toBe(1);
});

test("ScalableBloomFilter - bytes round-trip keeps every slice, and the copy grows the same way", () => {
  const n = 7_500;
  const f = grown(n, 1000);
  const bytes = f.toBytes();
  const g = ScalableBloomFilter.fromBytes(bytes);
  expect(g.toBytes()).toEqual(bytes);
  expect([g.sliceCount, g.count, g.capacity, g.bits]).toEqual([f.sliceCount, f.count, f.capacity, f.bits]);
  for (let i = 0; i < n; i++) expect(g.has(url(i))).toBe(true);
  for (let i = n; i < 3 * n; i++) expect(g.add(url(i))).toBe(f.add(url(i)));
  expect(g.toBytes()).toEqual(f.toBytes());
  const empty = new ScalableBloomFilter({ initialCapacity: 5, falsePositiveBound: 0.02, growth: 4, tightening: 0.8 });
  const copy = ScalableBloomFilter.fromBytes(empty.toBytes());
  expect([copy.initialCapacity, copy.falsePositiveBound, copy.growth, copy.tightening, copy.sliceCount]).toEqual([5, 0.02, 4, 0.8, 0]);
});

test("ScalableBloomFilter - refuses truncated or tampered bytes", () => {
  const bytes = grown(3000, 1000).toBytes();
  const flipped = bytes.slice();
  flipped[bytes.length - 10]! ^= 1;
  for (const bad of [bytes.subarray(0, 40), bytes.subarray(0, bytes.length - 3), flipped, Uint8Array.of(...bytes, 0)]) {
    expect(() => ScalableBloomFilter.fromBytes(bad)).toThrow(CorruptFilterError);
  }
});

test("ScalableBloomFilter - rejects parameters that could not keep the bound", () => {
  expect(() => new ScalableBloomFilter({ initialCapacity: 0 })).toThrow(RangeError);
  expect(() => new ScalableBloomFilter({ initialCapacity: 10, tightening: 1 })).toThrow(RangeError);
  expect(() => new ScalableBloomFilter({ initialCapacity: 10, falsePositiveBound: 0 })).toThrow(RangeError);
  expect(() => new ScalableBloomFilter({ initialCapacity: 10, growth: 0.5 })).toThrow(RangeError);
});

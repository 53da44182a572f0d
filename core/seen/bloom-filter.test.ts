import { expect, test } from "bun:test";
import { BloomFilter, bloomBitPositions, bloomFalsePositiveRate, CorruptFilterError, fillBloomBitPositions } from "./index.ts";

const url = (i: number) => `https://www.site${i % 4099}.example/articles/${i}?ref=${i & 15}`;
const freshUrl = (i: number) => `https://fresh${i % 1009}.example.org/p/${i}`;

function filled(n: number): BloomFilter {
  const f = new BloomFilter({ expectedCount: n });
  for (let i = 0; i < n; i++) f.add(url(i));
  return f;
}

test("BloomFilter - a new key is reported absent, then present once added", () => {
  const f = new BloomFilter({ expectedCount: 100 });
  expect(f.has("https://a.example/")).toBe(false);
  expect(f.add("https://a.example/")).toBe(false);
  expect(f.has("https://a.example/")).toBe(true);
  expect(f.add("https://a.example/")).toBe(true);
  expect(f.count).toBe(1);
  expect(f.setBits).toBeLessThanOrEqual(7);
});

test("BloomFilter - defaults to 10 bits and 7 hashes per planned key", () => {
  const f = new BloomFilter({ expectedCount: 1000 });
  expect(f.bits).toBe(10_000);
  expect(f.hashes).toBe(7);
  expect(f.capacity).toBe(1000);
});

test("BloomFilter - never gives a false negative for 200k added keys", () => {
  const n = 200_000;
  const f = filled(n);
  let missing = 0;
  for (let i = 0; i < n; i++) if (!f.has(url(i))) missing++;
  expect(missing).toBe(0);
  let reAddedAsNew = 0;
  for (let i = 0; i < n; i += 7) if (!f.add(url(i))) reAddedAsNew++;
  expect(reAddedAsNew).toBe(0);
});

test("BloomFilter - measured false positives at planned load are within 10 % of theory (0.819 %)", () => {
  const n = 200_000;
  const f = filled(n);
  const theory = bloomFalsePositiveRate(n, f.bits, f.hashes);
  expect(theory).toBeCloseTo(0.00819, 4);
  // 400k probes expect ~3,280 false positives: one standard deviation is under 2 % of the rate.
  const probes = 400_000;
  let fp = 0;
  for (let i = 0; i < probes; i++) if (f.has(freshUrl(i))) fp++;
  const measured = fp / probes;
  expect(Math.abs(measured - theory) / theory).toBeLessThan(0.1);
  expect(Math.abs(f.estimatedFalsePositiveRate() - theory) / theory).toBeLessThan(0.05);
  // A handful of adds were themselves false positives, so count trails n slightly.
  expect(f.count).toBeGreaterThan(n * 0.995);
});

test("BloomFilter - bytes round-trip keeps every bit, the count and all answers", () => {
  const n = 20_000;
  const f = filled(n);
  const bytes = f.toBytes();
  const g = BloomFilter.fromBytes(bytes);
  expect(g.toBytes()).toEqual(bytes);
  expect([g.bits, g.hashes, g.capacity, g.count, g.setBits]).toEqual([f.bits, f.hashes, f.capacity, f.count, f.setBits]);
  for (let i = 0; i < n; i++) expect(g.has(url(i))).toBe(true);
  for (let i = 0; i < 5000; i++) expect(g.has(freshUrl(i))).toBe(f.has(freshUrl(i)));
});

test("BloomFilter - refuses saved bytes that are truncated, tampered with or of another version", () => {
  const bytes = filled(1000).toBytes();
  const flipped = bytes.slice();
  flipped[100]! ^= 0x10;
  const otherVersion = bytes.slice();
  otherVersion[4] = 99;
  const otherTag = bytes.slice();
  otherTag[0] = 0x58;
  for (const bad of [bytes.subarray(0, 20), bytes.subarray(0, bytes.length - 1), flipped, otherVersion, otherTag]) {
    expect(() => BloomFilter.fromBytes(bad)).toThrow(CorruptFilterError);
  }
});

test("BloomFilter - the body is in Redis bit order: offset o is byte o >> 3, mask 0x80 >> (o & 7)", () => {
  const f = new BloomFilter({ bits: 4096, hashes: 7 });
  f.add("https://example.com/");
  const expected = new Uint8Array(512);
  for (const o of bloomBitPositions("https://example.com/", 4096, 7)) expected[o >>> 3]! |= 0x80 >>> (o & 7);
  expect(f.toBytes().subarray(32)).toEqual(expected);
});

test("bloomBitPositions - gives k offsets inside the filter, stable across calls", () => {
  for (const m of [8, 1000, 100_000_003, 0xfffffff8]) {
    const p = bloomBitPositions("https://example.com/a", m, 7);
    expect(p).toHaveLength(7);
    for (const o of p) expect(o >= 0 && o < m && Number.isInteger(o)).toBe(true);
    expect(bloomBitPositions("https://example.com/a", m, 7)).toEqual(p);
  }
});

test("fillBloomBitPositions - a second lane of 0 mod m still spreads the probes (no x | 1 trap)", () => {
  const out = new Array<number>(7);
  fillBloomBitPositions(0xfffffff0, 0, 1 << 20, 7, out);
  expect(new Set(out).size).toBe(7);
  fillBloomBitPositions(0xffffffff, 0xffffffff, 0xfffffff8, 7, out);
  for (const o of out) expect(o >= 0 && o < 0xfffffff8).toBe(true);
});

test("BloomFilter - rejects impossible shapes", () => {
  expect(() => new BloomFilter({ expectedCount: 0 })).toThrow(RangeError);
  expect(() => new BloomFilter({ expectedCount: 10, hashes: 0 })).toThrow(RangeError);
  expect(() => new BloomFilter({ bits: 2 ** 33, hashes: 7 })).toThrow(RangeError);
  expect(() => new BloomFilter({ expectedCount: 2 ** 30, bitsPerKey: 10 })).toThrow(RangeError);
});

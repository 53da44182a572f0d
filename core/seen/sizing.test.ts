import { expect, test } from "bun:test";
import { bloomFalsePositiveRate, bloomShapeFor, bloomShapeWithin } from "./index.ts";

test("bloomFalsePositiveRate - 10 bits and 7 hashes per key give the policy's 0.819 %", () => {
  expect(bloomFalsePositiveRate(1_000_000, 10_000_000, 7)).toBeCloseTo(0.008194, 6);
});

test("bloomShapeFor - the shape it picks meets the target rate at capacity, with no more than a byte to spare", () => {
  for (const rate of [0.01, 0.005, 0.001, 0.0001]) {
    const { bits, hashes } = bloomShapeFor(100_000, rate);
    expect(hashes).toBe(Math.round(Math.log2(1 / rate)));
    expect(bits % 8).toBe(0);
    expect(bloomFalsePositiveRate(100_000, bits, hashes)).toBeLessThanOrEqual(rate);
    expect(bloomFalsePositiveRate(100_000, bits - 8, hashes)).toBeGreaterThan(rate);
  }
});

test("bloomShapeWithin - shrinks the planned capacity rather than exceed the size limit", () => {
  const free = bloomShapeWithin(1000, 0.005, 1 << 20);
  expect(free).toEqual({ ...bloomShapeFor(1000, 0.005), capacity: 1000 });
  const capped = bloomShapeWithin(1_000_000, 0.005, 80_000);
  expect(capped.bits).toBeLessThanOrEqual(80_000);
  expect(capped.capacity).toBeGreaterThan(7000);
  expect(capped.capacity).toBeLessThan(1_000_000);
  expect(bloomFalsePositiveRate(capped.capacity, capped.bits, capped.hashes)).toBeLessThanOrEqual(0.005);
  expect(() => bloomShapeWithin(10, 1e-9, 8)).toThrow(RangeError);
});

import { expect, test } from "bun:test";
import { hash32 } from "../hash/index.ts";
import { partitionOf } from "./index.ts";

test("partitionOf - is hash32(host) mod P, always inside [0, P)", () => {
  for (let i = 0; i < 2000; i++) {
    const host = `host${i}.example.com`;
    const p = partitionOf(host, 4096);
    expect(p).toBe(hash32(host) % 4096);
    expect(Number.isInteger(p) && p >= 0 && p < 4096).toBe(true);
  }
  expect(partitionOf("example.com", 1)).toBe(0);
});

test("partitionOf - frozen values never change, since queues and seen-sets are keyed by partition", () => {
  expect([partitionOf("example.com", 4096), partitionOf("example.com", 256), partitionOf("bücher.example", 4096)]).toEqual([
    0x6971e733 % 4096,
    0x6971e733 % 256,
    0x42903b73 % 4096,
  ]);
});

test("partitionOf - spreads hosts evenly over partitions", () => {
  const counts = new Array<number>(64).fill(0);
  for (let i = 0; i < 64_000; i++) counts[partitionOf(`www.site-${i}.example`, 64)]!++;
  // 1,000 per partition expected; 5 standard deviations is about 160.
  for (const c of counts) expect(Math.abs(c - 1000)).toBeLessThan(160);
});

test("partitionOf - rejects a partition count that is not a positive integer", () => {
  for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 32]) expect(() => partitionOf("example.com", bad)).toThrow(RangeError);
});

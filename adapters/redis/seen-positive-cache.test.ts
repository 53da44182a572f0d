import { expect, test } from "bun:test";
import { SeenPositiveCache } from "./seen-positive-cache.ts";

test("seen positive cache - holds at most two generations per partition, keeping the newest keys", () => {
  const cache = new SeenPositiveCache(100);
  for (let k = 0; k < 1_000; k++) cache.add(7, k);
  expect(cache.size(7)).toBeLessThanOrEqual(200);
  expect(cache.size(7)).toBeGreaterThan(100);
  for (let k = 900; k < 1_000; k++) expect(cache.has(7, k)).toBe(true);
  expect(cache.has(7, 0)).toBe(false);
  expect(cache.has(8, 999)).toBe(false);
});

test("seen positive cache - dropping a partition forgets it alone; size 0 remembers nothing", () => {
  const cache = new SeenPositiveCache(10);
  cache.add(1, 42);
  cache.add(2, 42);
  cache.drop(1);
  expect(cache.has(1, 42)).toBe(false);
  expect(cache.has(2, 42)).toBe(true);
  const none = new SeenPositiveCache(0);
  none.add(1, 42);
  expect(none.has(1, 42)).toBe(false);
  expect(() => new SeenPositiveCache(-1)).toThrow(RangeError);
});

test("seen positive cache - keys keep 53 bits of the hash pair: all of hi, the top 21 of lo", () => {
  const a = SeenPositiveCache.keyOf(0xffffffff, 0xfffff800);
  expect(Number.isSafeInteger(a)).toBe(true);
  expect(a).toBe(2 ** 53 - 1);
  expect(SeenPositiveCache.keyOf(1, 0)).not.toBe(SeenPositiveCache.keyOf(0, 0));
  expect(SeenPositiveCache.keyOf(0, 0x800)).not.toBe(SeenPositiveCache.keyOf(0, 0));
  expect(SeenPositiveCache.keyOf(0, 0x7ff)).toBe(SeenPositiveCache.keyOf(0, 0));
});

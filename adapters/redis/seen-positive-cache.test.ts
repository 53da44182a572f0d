import { expect, test } from "bun:test";
import { SeenPositiveCache } from "./seen-positive-cache.ts";

test("seen positive cache - a key added is held until another key takes its slot, in its own partition only", () => {
  const cache = new SeenPositiveCache(1_000);
  expect(cache.slots).toBe(1_024);
  cache.add(7, 0xdeadbeef, 5);
  expect(cache.has(7, 0xdeadbeef, 5)).toBe(true);
  expect(cache.has(7, 0xdeadbeef, 6)).toBe(false);
  expect(cache.has(7, 0xdeadbee0, 5)).toBe(false);
  expect(cache.has(8, 0xdeadbeef, 5)).toBe(false);
  // Same slot (lo & 1023), another key: the newer one wins.
  cache.add(7, 0x12345678, 5 + 1_024);
  expect(cache.has(7, 0x12345678, 5 + 1_024)).toBe(true);
  expect(cache.has(7, 0xdeadbeef, 5)).toBe(false);
});

test("seen positive cache - memory is fixed: however many keys, one slot each at most", () => {
  const cache = new SeenPositiveCache(256);
  for (let k = 1; k <= 10_000; k++) cache.add(1, k, Math.imul(k, 0x9e3779b1));
  expect(cache.size(1)).toBeLessThanOrEqual(256);
  expect(cache.size(1)).toBeGreaterThan(200);
  expect(cache.has(1, 10_000, Math.imul(10_000, 0x9e3779b1))).toBe(true);
});

test("seen positive cache - dropping a partition forgets it alone; 0 slots hold nothing; a hi of 0 is never held", () => {
  const cache = new SeenPositiveCache(16);
  cache.add(1, 42, 3);
  cache.add(2, 42, 3);
  cache.drop(1);
  expect(cache.has(1, 42, 3)).toBe(false);
  expect(cache.has(2, 42, 3)).toBe(true);
  cache.add(2, 0, 9);
  expect(cache.has(2, 0, 9)).toBe(false);
  const none = new SeenPositiveCache(0);
  none.add(1, 42, 3);
  expect(none.has(1, 42, 3)).toBe(false);
  expect(() => new SeenPositiveCache(-1)).toThrow(RangeError);
  expect(() => new SeenPositiveCache(2 ** 25)).toThrow(RangeError);
});

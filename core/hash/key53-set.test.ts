import { expect, test } from "bun:test";
import { key53 } from "./key53.ts";
import { Key53Set } from "./key53-set.ts";

test("key53 set - holds what was added and nothing else, through every doubling of its table", () => {
  const set = new Key53Set();
  for (let i = 0; i < 200_000; i++) expect(set.add(key53(`site${i}.test`))).toBe(true);
  expect(set.size).toBe(200_000);
  for (let i = 0; i < 200_000; i++) expect(set.has(key53(`site${i}.test`))).toBe(true);
  for (let i = 200_000; i < 400_000; i++) expect(set.has(key53(`site${i}.test`))).toBe(false);
});

test("key53 set - adding a key twice keeps one and says it was there", () => {
  const set = new Key53Set();
  expect(set.add(42)).toBe(true);
  expect(set.add(42)).toBe(false);
  expect(set.size).toBe(1);
});

test("key53 set - the smallest and largest keys, and keys whose low 32 bits collide, are told apart", () => {
  const set = new Key53Set();
  const keys = [0, 2 ** 53 - 1, 2 ** 32, 2 * 2 ** 32, 3 * 2 ** 32, 7];
  for (const k of keys) set.add(k);
  for (const k of keys) expect(set.has(k)).toBe(true);
  expect(set.has(4 * 2 ** 32)).toBe(false);
  expect(set.has(1)).toBe(false);
  expect(set.size).toBe(keys.length);
});

test("key53 set - a key that is not a whole number from 0 to 2^53 - 1 is refused with a RangeError", () => {
  const set = new Key53Set();
  for (const bad of [-1, 0.5, Number.NaN, 2 ** 53, Number.POSITIVE_INFINITY]) expect(() => set.add(bad)).toThrow(RangeError);
  expect(set.size).toBe(0);
});

test("key53 set - clear empties it and it fills again", () => {
  const set = new Key53Set();
  for (let i = 0; i < 1000; i++) set.add(i * 2 ** 21);
  set.clear();
  expect(set.size).toBe(0);
  expect(set.has(0)).toBe(false);
  expect(set.has(999 * 2 ** 21)).toBe(false);
  set.add(5);
  expect(set.has(5)).toBe(true);
});

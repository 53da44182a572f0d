import { expect, test } from "bun:test";
import { maxOf, minOf } from "./extremes.ts";

test("maxOf and minOf give what Math.max and Math.min give, empty input and NaN included", () => {
  const cases: Array<[number[], number, number]> = [
    [[], -Infinity, Infinity],
    [[3], 3, 3],
    [[1, 5, 2], 5, 1],
    [[-1, -7], -1, -7],
    [[2, Number.NaN, 9], Number.NaN, Number.NaN],
  ];
  for (const [values, max, min] of cases) {
    expect(maxOf(values)).toBe(max);
    expect(minOf(values)).toBe(min);
  }
});

test("a million values do not overflow the stack, and any iterable will do", () => {
  const many = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_003);
  expect(maxOf(many)).toBe(many.reduce((a, b) => (a > b ? a : b)));
  expect(minOf(new Set(many))).toBe(0);
});

import { describe, expect, test } from "bun:test";
import { Histogram, Histograms, mergeHistograms, quantile } from "./histogram.ts";
import { HISTOGRAM_BUCKETS } from "./histogram-buckets.ts";

describe("histogram", () => {
  test("histogram - a value lands in the first bucket whose bound is at least it, beyond the last in +Inf", () => {
    const h = new Histogram([1, 2, 5]);
    for (const v of [0, 1, 1.5, 2, 4.9, 5, 7, 100]) h.observe(v);
    expect(h.snapshot()).toEqual({ bounds: [1, 2, 5], counts: [2, 2, 2, 2], count: 8, sum: 121.4 });
  });

  test("histogram - non-finite values are ignored", () => {
    const h = new Histogram([1]);
    h.observe(Number.NaN);
    h.observe(Infinity);
    expect(h.snapshot().count).toBe(0);
  });

  test("histograms - every name takes its buckets from the table", () => {
    const hs = new Histograms();
    hs.observe("fetch.duration-seconds", 0.3);
    expect(hs.toJSON()["fetch.duration-seconds"]!.bounds).toEqual([...HISTOGRAM_BUCKETS["fetch.duration-seconds"]!]);
  });

  test("histograms - the table's bounds ascend", () => {
    for (const [name, bounds] of Object.entries(HISTOGRAM_BUCKETS)) {
      expect({ name, sorted: [...bounds].sort((a, b) => a - b) }).toEqual({ name, sorted: [...bounds] });
    }
  });

  test("merge - sums counts of equal layouts and leaves out a layout that differs", () => {
    const a = { x: { bounds: [1, 2], counts: [1, 0, 2], count: 3, sum: 10 } };
    const b = { x: { bounds: [1, 2], counts: [0, 4, 0], count: 4, sum: 6 } };
    const odd = { x: { bounds: [1, 3], counts: [9, 9, 9], count: 27, sum: 50 } };
    expect(mergeHistograms([a, undefined, b, odd])).toEqual({ x: { bounds: [1, 2], counts: [1, 4, 2], count: 7, sum: 16 } });
  });

  test("quantile - interpolates inside the bucket holding the rank", () => {
    const h = { bounds: [1, 2, 4], counts: [0, 10, 10, 0], count: 20, sum: 0 };
    expect(quantile(h, 0.5)).toBe(2);
    expect(quantile(h, 0.75)).toBe(3);
    expect(quantile({ ...h, counts: [0, 0, 0, 5], count: 5 }, 0.5)).toBe(4);
    expect(quantile({ ...h, counts: [0, 0, 0, 0], count: 0 }, 0.5)).toBeNaN();
  });
});

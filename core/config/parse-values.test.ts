import { expect, test } from "bun:test";
import { formatDuration, formatSize, parseDecimal, parseDuration, parseDurationList, parseInteger, parseSize } from "./parse-values.ts";

test("parseDuration - reads each unit", () => {
  expect(parseDuration("500ms")).toBe(500);
  expect(parseDuration("1s")).toBe(1_000);
  expect(parseDuration("90s")).toBe(90_000);
  expect(parseDuration("5m")).toBe(300_000);
  expect(parseDuration("2h")).toBe(7_200_000);
  expect(parseDuration("7d")).toBe(604_800_000);
  expect(parseDuration("1w")).toBe(604_800_000);
});

test("parseDuration - reads sums, decimals, upper case and surrounding spaces", () => {
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("1d12h")).toBe(129_600_000);
  expect(parseDuration("1.5s")).toBe(1_500);
  expect(parseDuration(" 2H ")).toBe(7_200_000);
});

test("parseDuration - accepts a bare 0 but refuses other bare numbers with a hint about units", () => {
  expect(parseDuration("0")).toBe(0);
  expect(parseDuration("0s")).toBe(0);
  expect(() => parseDuration("1000")).toThrow(/unit is required/);
});

test("parseDuration - refuses garbage, negatives, unknown units and empty values", () => {
  for (const bad of ["", "  ", "abc", "-1s", "1x", "1 s", "s", "1s2", "1.s", "1e3ms"]) {
    expect(() => parseDuration(bad)).toThrow(/duration/);
  }
});

test("formatDuration - writes the shortest exact form that parses back", () => {
  expect(formatDuration(0)).toBe("0");
  expect(formatDuration(1_000)).toBe("1s");
  expect(formatDuration(90_000)).toBe("1m30s");
  expect(formatDuration(86_400_000)).toBe("1d");
  expect(formatDuration(2_592_000_000)).toBe("4w2d");
  for (const ms of [0, 1, 999, 1_500, 5_400_000, 2_592_000_000]) {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  }
});

test("parseSize - reads binary units in both spellings and plain bytes", () => {
  expect(parseSize("5MB")).toBe(5 * 1024 * 1024);
  expect(parseSize("5MiB")).toBe(5 * 1024 * 1024);
  expect(parseSize("512kb")).toBe(512 * 1024);
  expect(parseSize("1 GiB")).toBe(1024 ** 3);
  expect(parseSize("1.5k")).toBe(1536);
  expect(parseSize("100")).toBe(100);
  expect(parseSize("100B")).toBe(100);
});

test("parseSize - refuses garbage, negatives and unknown units", () => {
  for (const bad of ["", "MB", "-5MB", "5TB", "5 M B", "five"]) {
    expect(() => parseSize(bad)).toThrow(/size/);
  }
});

test("formatSize - writes the largest exact binary unit", () => {
  expect(formatSize(5 * 1024 * 1024)).toBe("5MiB");
  expect(formatSize(1536)).toBe("1536B");
  expect(formatSize(1024 * 1536)).toBe("1536KiB");
  expect(formatSize(100)).toBe("100B");
});

test("parseInteger - reads whole numbers with optional digit grouping", () => {
  expect(parseInteger("20")).toBe(20);
  expect(parseInteger(" 100_000 ")).toBe(100_000);
  for (const bad of ["", "1.5", "-1", "1e3", "12abc", "_1"]) {
    expect(() => parseInteger(bad)).toThrow(/whole number/);
  }
});

test("parseDecimal - reads non-negative decimals", () => {
  expect(parseDecimal("10")).toBe(10);
  expect(parseDecimal("2.5")).toBe(2.5);
  for (const bad of ["", "-1", ".5", "NaN", "Infinity"]) expect(() => parseDecimal(bad)).toThrow(/number/);
});

test("parseDurationList - reads a comma-separated list and names the bad item", () => {
  expect(parseDurationList("1h, 6h,24h")).toEqual([3_600_000, 21_600_000, 86_400_000]);
  expect(() => parseDurationList("")).toThrow(/list of durations/);
  expect(() => parseDurationList("1h,soon")).toThrow(/item 2/);
});

import { expect, test } from "bun:test";
import { bumpDaily, countToday, nextUtcDayStart, utcDay } from "./daily-counter.ts";

const NOON = Date.UTC(2026, 10, 29, 12, 0, 0);
const LAST_MS = Date.UTC(2026, 10, 29, 23, 59, 59, 999);
const MIDNIGHT = Date.UTC(2026, 10, 30);

test("daily counter - names the UTC day", () => {
  expect(utcDay(NOON)).toBe("2026-11-29");
  expect(utcDay(LAST_MS)).toBe("2026-11-29");
  expect(utcDay(MIDNIGHT)).toBe("2026-11-30");
});

test("daily counter - counts within one UTC day", () => {
  let counter = bumpDaily(undefined, NOON);
  counter = bumpDaily(counter, NOON + 1000);
  counter = bumpDaily(counter, LAST_MS, 3);
  expect(counter).toEqual({ day: "2026-11-29", count: 5 });
  expect(countToday(counter, LAST_MS)).toBe(5);
});

test("daily counter - starts again at zero on the next UTC day", () => {
  const yesterday = { day: "2026-11-29", count: 10_000 };
  expect(countToday(yesterday, MIDNIGHT)).toBe(0);
  expect(bumpDaily(yesterday, MIDNIGHT)).toEqual({ day: "2026-11-30", count: 1 });
});

test("daily counter - a missing counter reads as zero", () => {
  expect(countToday(undefined, NOON)).toBe(0);
  expect(countToday(null, NOON)).toBe(0);
});

test("daily counter - the next day starts at the following UTC midnight", () => {
  expect(nextUtcDayStart(NOON)).toBe(MIDNIGHT);
  expect(nextUtcDayStart(LAST_MS)).toBe(MIDNIGHT);
  expect(nextUtcDayStart(MIDNIGHT)).toBe(MIDNIGHT + 86_400_000);
});

import { expect, test } from "bun:test";
import { parseHttpDate, parseRetryAfter, retryAfterAsDelay } from "./retry-after.ts";

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0); // Sun, 29 Nov 2026 12:00:00 GMT

test("parseRetryAfter - reads delta-seconds as milliseconds", () => {
  expect(parseRetryAfter("120", NOW)).toBe(120_000);
  expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
});

test("parseRetryAfter - caps absurd delta-seconds instead of overflowing", () => {
  expect(parseRetryAfter("9".repeat(400), NOW)).toBe(2 ** 31 * 1000);
});

test("parseRetryAfter - reads an IMF-fixdate against now", () => {
  expect(parseRetryAfter("Sun, 29 Nov 2026 12:05:00 GMT", NOW)).toBe(300_000);
});

test("parseRetryAfter - a date in the past means no extra wait", () => {
  expect(parseRetryAfter("Sun, 29 Nov 2026 11:00:00 GMT", NOW)).toBe(0);
});

test("parseRetryAfter - returns undefined for garbage, negatives, fractions and absence", () => {
  for (const bad of ["", "soon", "-5", "1.5", "12s", "0x10", "Sun, 29 Nov 2026", "29 Nov 2026 12:05:00 GMT"]) {
    expect(parseRetryAfter(bad, NOW)).toBeUndefined();
  }
  expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  expect(parseRetryAfter(null, NOW)).toBeUndefined();
});

test("parseHttpDate - reads the three forms of RFC 9110 to the same instant", () => {
  const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
  expect(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).toBe(expected);
  expect(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).toBe(expected);
  expect(parseHttpDate("Sun Nov  6 08:49:37 1994", NOW)).toBe(expected);
});

test("parseHttpDate - forgives case, extra spaces, a one-digit day and a UTC zone", () => {
  const expected = Date.UTC(2026, 10, 6, 8, 49, 37);
  expect(parseHttpDate("fri, 6 nov 2026 08:49:37 utc", NOW)).toBe(expected);
  expect(parseHttpDate("  Fri,  06  Nov  2026  08:49:37  GMT ", NOW)).toBe(expected);
});

test("parseHttpDate - an RFC 850 two-digit year more than 50 years ahead means the century before", () => {
  expect(parseHttpDate("Friday, 01-Jan-76 00:00:00 GMT", NOW)).toBe(Date.UTC(2076, 0, 1));
  expect(parseHttpDate("Friday, 01-Jan-77 00:00:00 GMT", NOW)).toBe(Date.UTC(1977, 0, 1));
});

test("parseHttpDate - refuses impossible dates and times", () => {
  for (const bad of [
    "Sun, 31 Feb 2026 00:00:00 GMT",
    "Sun, 29 Nov 2026 24:00:00 GMT",
    "Sun, 29 Nov 2026 12:60:00 GMT",
    "Sun, 29 Nov 2026 12:00:61 GMT",
    "Sun, 29 Foo 2026 12:00:00 GMT",
    "Sun, 29 Nov 2026 12:00:00 CET",
  ]) {
    expect(parseHttpDate(bad, NOW)).toBeUndefined();
  }
});

test("parseHttpDate - reads a leap second as the second before", () => {
  expect(parseHttpDate("Wed, 31 Dec 2025 23:59:60 GMT", NOW)).toBe(Date.UTC(2025, 11, 31, 23, 59, 59));
});

test("retryAfterAsDelay - turns an HTTP-date into delta-seconds against the wall clock at arrival, rounded up", () => {
  expect(retryAfterAsDelay("Sun, 29 Nov 2026 12:05:00 GMT", NOW)).toBe("300");
  expect(retryAfterAsDelay("Sun, 29 Nov 2026 12:05:00 GMT", NOW + 400)).toBe("300");
  expect(retryAfterAsDelay("Sun, 29 Nov 2026 12:05:00 GMT", NOW + 1_000)).toBe("299");
  expect(retryAfterAsDelay("Sun, 29 Nov 2026 11:00:00 GMT", NOW)).toBe("0");
});

test("retryAfterAsDelay - passes delta-seconds, garbage and absence through unchanged", () => {
  expect(retryAfterAsDelay("120", NOW)).toBe("120");
  expect(retryAfterAsDelay("soon", NOW)).toBe("soon");
  expect(retryAfterAsDelay(undefined, NOW)).toBeUndefined();
});

test("retryAfterAsDelay - the wait it gives is the same whatever the politeness clock reads later", () => {
  // The frontier reads the delay against any clock: a wall clock stepped 10 s after arrival changes nothing.
  const delay = retryAfterAsDelay("Sun, 29 Nov 2026 12:05:00 GMT", NOW);
  expect(parseRetryAfter(delay, NOW + 10_000)).toBe(300_000);
});

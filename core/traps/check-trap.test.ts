import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { checkTrap, mostRepeatedSegment, type TrapContext } from "./check-trap.ts";

const CFG = DEFAULT_POLICY;
const CTX: TrapContext = { hostQueued: 0, hostPagesToday: 0 };

function reason(url: string, ctx: Partial<TrapContext> = {}): string {
  const verdict = checkTrap(url, { ...CTX, ...ctx }, CFG);
  return verdict.ok ? "ok" : verdict.reason;
}

test("traps - an ordinary URL passes", () => {
  expect(checkTrap("https://example.com/docs/intro?lang=en", CTX, CFG)).toEqual({ ok: true });
});

test("traps - rejects a URL longer than 2048 characters", () => {
  const base = "https://example.com/";
  expect(reason(base + "a".repeat(2048 - base.length))).toBe("ok");
  expect(reason(base + "a".repeat(2049 - base.length))).toBe("url-too-long");
});

test("traps - rejects a path where one segment occurs three times, in a row or not", () => {
  expect(reason("https://example.com/a/b/a/b/a/")).toBe("repeated-segment");
  expect(reason("https://example.com/x/x/x")).toBe("repeated-segment");
  expect(reason("https://example.com/a/b/c/a/b/c/a/b/c")).toBe("repeated-segment");
});

test("traps - allows a segment twice, and ignores the query and empty segments", () => {
  expect(reason("https://example.com/en/docs/en/intro")).toBe("ok");
  expect(reason("https://example.com/a//b///c")).toBe("ok");
  expect(reason("https://example.com/p?x=a/a/a/a")).toBe("ok");
});

test("traps - the detail names the repeated segment", () => {
  const verdict = checkTrap("https://example.com/a/b/a/b/a/", CTX, CFG);
  expect(verdict.ok ? "" : verdict.detail).toBe('path segment "a" occurs 3 times (3 or more is a trap)');
  expect(mostRepeatedSegment("https://example.com/")).toBeUndefined();
});

test("traps - rejects a new URL once the host's queue is full", () => {
  expect(reason("https://example.com/p", { hostQueued: 99_999 })).toBe("ok");
  expect(reason("https://example.com/p", { hostQueued: 100_000 })).toBe("host-queue-full");
});

test("traps - rejects a new URL once the host used up today's pages", () => {
  expect(reason("https://example.com/p", { hostPagesToday: 9_999 })).toBe("ok");
  expect(reason("https://example.com/p", { hostPagesToday: 10_000 })).toBe("host-daily-cap");
});

test("traps - reports the cheapest broken rule first", () => {
  expect(reason("https://example.com/" + "a/".repeat(2000), { hostQueued: 1e9 })).toBe("url-too-long");
  expect(reason("https://example.com/a/a/a", { hostQueued: 1e9 })).toBe("repeated-segment");
});

test("traps - limits come from the config", () => {
  const strict = { ...CFG, maxUrlLength: 32, maxRepeatedSegment: 2 };
  expect(checkTrap("https://example.com/a/b/a", CTX, strict)).toMatchObject({ ok: false, reason: "repeated-segment" });
  expect(checkTrap("https://example.com/a-rather-long-path", CTX, strict)).toMatchObject({ ok: false, reason: "url-too-long" });
});

test("traps - the repeated-segment limit refuses exactly the paths whose most repeated segment reaches it", () => {
  const segments = ["a", "b", "", "a%2F", "b?x=/a/a/a", "c#/a/a"];
  let seed = 5;
  const pick = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return segments[seed % segments.length]!;
  };
  for (const limit of [1, 2, 3, 4]) {
    for (let i = 0; i < 2_000; i++) {
      const url = `https://example.com/${Array.from({ length: i % 7 }, pick).join("/")}`;
      const verdict = checkTrap(url, CTX, { ...CFG, maxRepeatedSegment: limit });
      const repeated = mostRepeatedSegment(url);
      expect(verdict.ok ? "ok" : verdict.reason).toBe(repeated && repeated.count >= limit ? "repeated-segment" : "ok");
    }
  }
});

import { expect, test } from "bun:test";
import { urlFamily, UrlPatternTracker } from "./url-pattern.ts";

const CFG = { maxQueuedPerPattern: 3 };

test("url pattern - URLs that differ only by numbers share a family", () => {
  expect(urlFamily("https://example.com/calendar/2026/11/29").family).toBe("/calendar/#/#/#");
  expect(urlFamily("https://example.com/calendar/1999/1/2").family).toBe("/calendar/#/#/#");
  expect(urlFamily("https://example.com/cal?month=11&year=2026#x").family).toBe("/cal?month=#&year=#");
});

test("url pattern - a family is trap-prone with two numbers or a compact date, not with one plain number", () => {
  expect(urlFamily("https://example.com/calendar/2026/11/29").trapProne).toBe(true);
  expect(urlFamily("https://example.com/events?day=20261129").trapProne).toBe(true);
  expect(urlFamily("https://example.com/product/12345").trapProne).toBe(false);
  expect(urlFamily("https://example.com/list?page=7").trapProne).toBe(false);
  expect(urlFamily("https://example.com/about").trapProne).toBe(false);
});

test("url pattern - flags a host once it has more than N URLs of one family queued", () => {
  const tracker = new UrlPatternTracker(CFG);
  for (let day = 1; day <= 3; day++) {
    expect(tracker.admit("example.com", `https://example.com/calendar/2026/11/${day}`)).toEqual({ ok: true });
  }
  const verdict = tracker.admit("example.com", "https://example.com/calendar/2026/11/4");
  expect(verdict).toMatchObject({ ok: false, reason: "url-pattern-flood" });
  expect(verdict.ok ? "" : verdict.detail).toContain('"/calendar/#/#/#"');
  expect(tracker.count("example.com", "https://example.com/calendar/1/2/3")).toBe(3);
});

test("url pattern - families are counted per host and per family", () => {
  const tracker = new UrlPatternTracker(CFG);
  for (let i = 1; i <= 3; i++) tracker.add("a.test", `https://a.test/cal/2026/${i}`);
  expect(tracker.check("b.test", "https://b.test/cal/2026/4").ok).toBe(true);
  expect(tracker.check("a.test", "https://a.test/archive/2026/4").ok).toBe(true);
  expect(tracker.check("a.test", "https://a.test/cal/2026/4").ok).toBe(false);
});

test("url pattern - URLs leaving the queue make room again", () => {
  const tracker = new UrlPatternTracker(CFG);
  for (let i = 1; i <= 3; i++) tracker.add("a.test", `https://a.test/cal/2026/${i}`);
  tracker.remove("a.test", "https://a.test/cal/2026/1");
  expect(tracker.admit("a.test", "https://a.test/cal/2026/4").ok).toBe(true);
  for (let i = 1; i <= 5; i++) tracker.remove("a.test", `https://a.test/cal/2026/${i}`);
  expect(tracker.snapshot()).toEqual({});
});

test("url pattern - plain ID families are never tracked, so large sites are not flagged", () => {
  const tracker = new UrlPatternTracker(CFG);
  for (let id = 1; id <= 10; id++) expect(tracker.admit("shop.test", `https://shop.test/product/${id}`).ok).toBe(true);
  expect(tracker.snapshot()).toEqual({});
});

test("url pattern - a snapshot is plain data and restores to the same counts", () => {
  const tracker = new UrlPatternTracker(CFG);
  tracker.add("a.test", "https://a.test/cal/2026/1");
  tracker.add("a.test", "https://a.test/cal/2026/2");
  tracker.add("b.test", "https://b.test/d/20261129");
  const snapshot = JSON.parse(JSON.stringify(tracker.snapshot()));
  expect(snapshot).toEqual({ "a.test": { "/cal/#/#": 2 }, "b.test": { "/d/#": 1 } });
  const restored = UrlPatternTracker.restore(snapshot, CFG);
  expect(restored.count("a.test", "https://a.test/cal/1/1")).toBe(2);
  expect(restored.snapshot(["b.test"])).toEqual({ "b.test": { "/d/#": 1 } });
  restored.forgetHost("a.test");
  expect(restored.count("a.test", "https://a.test/cal/1/1")).toBe(0);
});

test("url pattern - the tracker counts exactly the trap-prone families urlFamily names, over many generated URLs", () => {
  const parts = ["a", "7", "20261129", "2026", "11", "x1y", "123456789", "?p=", "&q=", "/", "#f", "-"];
  let seed = 11;
  const pick = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return parts[seed % parts.length]!;
  };
  const tracker = new UrlPatternTracker({ maxQueuedPerPattern: 1_000_000 });
  const expected = new Map<string, number>();
  for (let i = 0; i < 5_000; i++) {
    const url = `https://example.com/${Array.from({ length: 1 + (i % 6) }, pick).join("")}`;
    const { family, trapProne } = urlFamily(url);
    tracker.add("example.com", url);
    if (trapProne) expected.set(family, (expected.get(family) ?? 0) + 1);
    expect(tracker.count("example.com", url)).toBe(trapProne ? expected.get(family)! : 0);
  }
});

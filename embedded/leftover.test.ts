import { expect, test } from "bun:test";
import type { PendingWork } from "../engine/frontier/index.ts";
import { failureWords, leftoverLines, waitingLine, when } from "./leftover.ts";

const NOW = Date.UTC(2026, 0, 5, 9, 0, 0);
const MIN = 60_000;

function work(extra: Partial<PendingWork> = {}): PendingWork {
  return {
    refetches: { count: 0 },
    retries: { count: 0 },
    resting: { count: 0 },
    queued: { urls: 0, hosts: 0 },
    sitemaps: { count: 0, hosts: 0 },
    feeds: { count: 0 },
    unreachable: [],
    unreachableTotal: 0,
    ...extra,
  };
}

test("leftover - times are written in UTC with how far away they are", () => {
  expect(when(NOW + 59 * MIN, NOW)).toBe("2026-01-05 09:59:00 UTC (in 59 min)");
  expect(when(NOW + 60 * MIN - 1_000, NOW)).toBe("2026-01-05 09:59:59 UTC (in 1 h)");
  expect(when(NOW + 25 * 60 * MIN + 30 * MIN, NOW)).toBe("2026-01-06 10:30:00 UTC (in 25 h 30 min)");
  expect(when(NOW + 7 * 24 * 60 * MIN, NOW)).toBe("2026-01-12 09:00:00 UTC (in 7 days)");
  expect(when(NOW + 45_000, NOW)).toBe("2026-01-05 09:00:45 UTC (in 45 s)");
  expect(when(NOW - 5_000, NOW)).toBe("2026-01-05 08:59:55 UTC (now)");
});

test("leftover - fetch failures are named the way a person would say them", () => {
  expect(failureWords("dns")).toBe("its name does not resolve (DNS)");
  expect(failureWords("refused")).toBe("the connection was refused");
  expect(failureWords("status 503")).toBe("it answered 503");
  expect(failureWords("throttled 429 4 times")).toBe("throttled 429 4 times");
});

test("leftover - nothing left, nothing said", () => {
  expect(leftoverLines(work(), NOW, { pagesFetched: 10, continueCommand: "bun run crawl x" })).toEqual([]);
  expect(waitingLine(work(), NOW)).toBeUndefined();
});

test("leftover - refetches and retries with their first due time, and the command that continues the crawl", () => {
  const lines = leftoverLines(
    work({ refetches: { count: 12, firstDueAt: NOW + 24 * 60 * MIN }, retries: { count: 1, firstDueAt: NOW + 59 * MIN } }),
    NOW,
    {
      pagesFetched: 13,
      continueCommand: "bun run crawl https://a.test/ --out o",
    },
  );
  expect(lines).toEqual([
    "left for the next run:",
    "    12 refetches, the first due 2026-01-06 09:00:00 UTC (in 24 h)",
    "    1 retry, the first due 2026-01-05 09:59:00 UTC (in 59 min)",
    "continue with   bun run crawl https://a.test/ --out o",
    "    it picks up what is due by then (the first 2026-01-05 09:59:00 UTC (in 59 min)); add --continuous to keep running until then",
  ]);
});

test("leftover - sitemaps still to read are left for the next run and waited for, with when their first host may be asked", () => {
  const p = work({ sitemaps: { count: 2, hosts: 1, firstReadyAt: NOW + 30 * MIN } });
  expect(leftoverLines(p, NOW, { pagesFetched: 3, continueCommand: "bun run crawl https://a.test/ --out o" })).toEqual([
    "left for the next run:",
    "    2 sitemaps to read on 1 host that cannot be asked sooner, the first host may be asked 2026-01-05 09:30:00 UTC (in 30 min)",
    "continue with   bun run crawl https://a.test/ --out o",
    "    it picks up what is due by then (the first 2026-01-05 09:30:00 UTC (in 30 min)); add --continuous to keep running until then",
  ]);
  expect(waitingLine(p, NOW)).toBe("waiting: nothing to fetch until 2026-01-05 09:30:00 UTC (in 30 min); 2 sitemaps to read");
});

test("leftover - feeds waiting for their reread are left for the next run and waited for, with when the first is due", () => {
  const p = work({ feeds: { count: 3, firstDueAt: NOW + 20 * MIN }, refetches: { count: 5, firstDueAt: NOW + 24 * 60 * MIN } });
  expect(leftoverLines(p, NOW, { pagesFetched: 9, continueCommand: "bun run crawl --feeds f.txt --out o" })).toEqual([
    "left for the next run:",
    "    5 refetches, the first due 2026-01-06 09:00:00 UTC (in 24 h)",
    "    3 feeds waiting for their next read, the first due 2026-01-05 09:20:00 UTC (in 20 min)",
    "continue with   bun run crawl --feeds f.txt --out o",
    "    it picks up what is due by then (the first 2026-01-05 09:20:00 UTC (in 20 min)); add --continuous to keep running until then",
  ]);
  expect(waitingLine(p, NOW)).toBe(
    "waiting: nothing to fetch until 2026-01-05 09:20:00 UTC (in 20 min); 5 refetches scheduled; 3 feeds to read again",
  );
  expect(leftoverLines(work({ feeds: { count: 1, firstDueAt: NOW + MIN } }), NOW, { pagesFetched: 1 })).toEqual([
    "left for the next run:",
    "    1 feed waiting for its next read, the first due 2026-01-05 09:01:00 UTC (in 1 min)",
  ]);
});

test("leftover - when no page could be fetched it says every host was unreachable, host by host", () => {
  const unreachable = [{ host: "example.com", robotsTxt: true, reason: "dns", waiting: 1, nextTryAt: NOW + 60 * MIN }];
  const p = work({ queued: { urls: 1, hosts: 1, firstReadyAt: NOW + 60 * MIN }, unreachable, unreachableTotal: 1 });
  const lines = leftoverLines(p, NOW, { pagesFetched: 0 });
  expect(lines).toContain("every host of this crawl was unreachable, nothing was fetched (1 host):");
  expect(lines).toContain(
    "    example.com: robots.txt could not be read (its name does not resolve (DNS)), so nothing else is fetched from it; 1 URL waits; tried again 2026-01-05 10:00:00 UTC (in 1 h)",
  );
  expect(lines.some((l) => l.startsWith("continue with"))).toBe(false);
  expect(waitingLine(p, NOW)).toBe(
    "waiting: nothing to fetch until 2026-01-05 10:00:00 UTC (in 1 h); unreachable: example.com (robots.txt: its name does not resolve (DNS), tried again 2026-01-05 10:00:00 UTC (in 1 h))",
  );
});

/**
 * A feed's own reread schedule: where it starts, how each kind of answer moves it, and which validators it
 * keeps for the next conditional GET.
 */
import { describe, expect, test } from "bun:test";
import type { FetchResult } from "../../core/model/index.ts";
import { feedNotModified, nextFeedSchedule } from "./feed-schedule.ts";

const MIN = 60_000;
const POLICY = { refetchInitialMs: 30 * MIN, refetchMinMs: 10 * MIN, refetchMaxMs: 120 * MIN };

function answer(status: number, headers: { etag?: string; lastModified?: string } = {}): FetchResult {
  const base = { taskId: "t", taskKind: "sitemap" as const, url: "http://a.test/feed.xml", host: "a.test", partition: 0 };
  return { ...base, kind: "response", status, startedAt: 0, endedAt: 1, linksFound: 0, bytes: 0, ...headers };
}

describe("feed schedule", () => {
  test("feed schedule - a first read starts at --refetch-initial and keeps the answer's validators", () => {
    const next = nextFeedSchedule(
      { rereadMs: 0 },
      answer(200, { etag: '"v1"', lastModified: "Fri, 04 Dec 2026 10:00:00 GMT" }),
      true,
      POLICY,
    );
    expect(next).toEqual({ rereadMs: 30 * MIN, etag: '"v1"', lastModified: "Fri, 04 Dec 2026 10:00:00 GMT" });
  });

  test("feed schedule - a read that listed something new halves the interval; one with only known items doubles it", () => {
    const prev = { rereadMs: 40 * MIN, etag: '"v1"' };
    expect(nextFeedSchedule(prev, answer(200, { etag: '"v2"' }), true, POLICY)).toEqual({ rereadMs: 20 * MIN, etag: '"v2"' });
    expect(nextFeedSchedule(prev, answer(200, { etag: '"v2"' }), false, POLICY)).toEqual({ rereadMs: 80 * MIN, etag: '"v2"' });
    // Within the bounds.
    expect(nextFeedSchedule({ rereadMs: 15 * MIN }, answer(200), true, POLICY).rereadMs).toBe(10 * MIN);
    expect(nextFeedSchedule({ rereadMs: 100 * MIN }, answer(200), false, POLICY).rereadMs).toBe(120 * MIN);
  });

  test("feed schedule - a 304 doubles the interval and keeps the validators it was asked with, unless it sends new ones", () => {
    const prev = { rereadMs: 20 * MIN, etag: '"v1"', lastModified: "Fri, 04 Dec 2026 10:00:00 GMT" };
    expect(feedNotModified(answer(304))).toBe(true);
    expect(nextFeedSchedule(prev, answer(304), false, POLICY)).toEqual({ ...prev, rereadMs: 40 * MIN });
    expect(nextFeedSchedule(prev, answer(304, { etag: '"v1b"' }), false, POLICY)).toEqual({ ...prev, rereadMs: 40 * MIN, etag: '"v1b"' });
  });

  test("feed schedule - a 2xx without validators drops the old ones: they no longer describe the feed", () => {
    expect(nextFeedSchedule({ rereadMs: 20 * MIN, etag: '"v1"' }, answer(200), true, POLICY)).toEqual({ rereadMs: 10 * MIN });
  });

  test("feed schedule - a failed read waits longer and keeps the validators of the last good answer", () => {
    const prev = { rereadMs: 20 * MIN, etag: '"v1"' };
    expect(nextFeedSchedule(prev, answer(503), false, POLICY)).toEqual({ rereadMs: 40 * MIN, etag: '"v1"' });
    const noAnswer: FetchResult = { ...answer(0), kind: "network-error", status: 0, error: "timeout" } as FetchResult;
    expect(nextFeedSchedule(prev, noAnswer, false, POLICY)).toEqual({ rereadMs: 40 * MIN, etag: '"v1"' });
  });

  test("feed schedule - a validator too long to echo is not kept (cut short it would be wrong)", () => {
    const long = `"${"x".repeat(5_000)}"`;
    expect(nextFeedSchedule(undefined, answer(200, { etag: long }), true, POLICY)).toEqual({ rereadMs: 30 * MIN });
  });
});

import { expect, setSystemTime, test } from "bun:test";
import type { FetchResult } from "../model/index.ts";
import { preciseNow, receivedResult } from "./clock.ts";

function result(times: Pick<FetchResult, "startedAt" | "endedAt" | "sentAt">): FetchResult {
  return {
    taskId: "t",
    kind: "response",
    taskKind: "page",
    url: "http://a.test/",
    host: "a.test",
    partition: 0,
    status: 200,
    linksFound: 0,
    bytes: 0,
    ...times,
  };
}

test("clock - preciseNow keeps fractions of a millisecond and never goes back", () => {
  const seen = Array.from({ length: 1000 }, () => preciseNow());
  for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
  expect(seen.some((t) => !Number.isInteger(t))).toBe(true);
});

// Float error of epoch milliseconds (~1.8e12) taken apart again: a few ten-thousandths of a millisecond.
const EPSILON_MS = 0.001;

test("clock - preciseNow is the monotonic clock anchored to the epoch once, at the start of the thread", () => {
  const before = performance.now();
  const t = preciseNow();
  const after = performance.now();
  // Epoch milliseconds, not a bare counter: later than 2020 (a counter from the thread's start is not).
  expect(t).toBeGreaterThan(Date.UTC(2020, 0, 1));
  // ... and exactly the monotonic clock from one anchor, the thread's start time on the epoch.
  expect(t - performance.timeOrigin).toBeGreaterThanOrEqual(before - EPSILON_MS);
  expect(t - performance.timeOrigin).toBeLessThanOrEqual(after + EPSILON_MS);
});

test("clock - preciseNow does not follow the wall clock when it is set back or forward", () => {
  for (const stepMs of [-10_000, 10_000]) {
    const before = performance.now();
    const t0 = preciseNow();
    const wall = Date.now();
    setSystemTime(new Date(wall + stepMs));
    try {
      expect(Math.sign(Date.now() - wall)).toBe(Math.sign(stepMs)); // the wall clock did step
      const t1 = preciseNow();
      const after = performance.now();
      // Between the two readings it moved forward by no more than the monotonic clock did.
      expect(t1).toBeGreaterThanOrEqual(t0);
      expect(t1 - t0).toBeLessThanOrEqual(after - before + EPSILON_MS);
    } finally {
      setSystemTime();
    }
  }
});

test("clock - a result moves onto the receiver's clock by receipt time minus send time", () => {
  // The fetching side's clock runs 500 ms ahead of the receiver's. On the receiver's clock the fetch ran
  // from 1,000 to 1,100.25, the result was sent at 1,103 and received at 1,104.
  const sent = result({ startedAt: 1500, endedAt: 1600.25, sentAt: 1603 });
  const got = receivedResult(sent, 1104);
  expect(got.startedAt).toBe(1001);
  expect(got.endedAt).toBe(1101.25);
  expect(got.sentAt).toBeUndefined();
  // Never before the true end (1,100.25): only the time in transit (1 ms) is added.
  expect(got.endedAt).toBeGreaterThanOrEqual(1100.25);
  // The duration is the fetching side's own, untouched.
  expect(got.endedAt - got.startedAt).toBe(100.25);
});

test("clock - a result made on the receiver's own clock is left as it is", () => {
  const local = result({ startedAt: 10, endedAt: 20 });
  expect(receivedResult(local, 99)).toBe(local);
});

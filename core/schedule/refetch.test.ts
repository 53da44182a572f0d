import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { nextRefetchInterval, recordFetch } from "./refetch.ts";
import { recordFailure } from "./retry.ts";
import { newUrlState } from "./url-state.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;
const CFG = DEFAULT_POLICY;

test("refetch - an unchanged page waits twice as long, up to 30 days", () => {
  expect(nextRefetchInterval(DAY, false, CFG)).toBe(2 * DAY);
  expect(nextRefetchInterval(20 * DAY, false, CFG)).toBe(30 * DAY);
  expect(nextRefetchInterval(30 * DAY, false, CFG)).toBe(30 * DAY);
});

test("refetch - a 304 counts as unchanged", () => {
  expect(nextRefetchInterval(DAY, "not-modified", CFG)).toBe(2 * DAY);
});

test("refetch - a changed page waits half as long, down to 1 hour", () => {
  expect(nextRefetchInterval(DAY, true, CFG)).toBe(12 * HOUR);
  expect(nextRefetchInterval(90 * 60_000, true, CFG)).toBe(HOUR);
  expect(nextRefetchInterval(HOUR, true, CFG)).toBe(HOUR);
});

test("refetch - an interval out of bounds is brought back within them", () => {
  expect(nextRefetchInterval(365 * DAY, true, CFG)).toBe(30 * DAY);
  expect(nextRefetchInterval(60_000, false, CFG)).toBe(HOUR);
});

test("refetch - a first fetch keeps the initial interval and is not counted as a change", () => {
  const state = recordFetch(newUrlState({ depth: 4, isHomePage: false }, T0, CFG), { fingerprint: "f1", etag: '"a"' }, T0, CFG);
  expect(state.status).toBe("fetched");
  expect(state.refetchIntervalMs).toBe(CFG.refetchInitialMs);
  expect(state.nextFetchAt).toBe(T0 + CFG.refetchInitialMs);
  expect(state.lastFetchedAt).toBe(T0);
  expect(state.changedLastVisit).toBe(false);
  expect(state.priority).toBe(3);
  expect(state.etag).toBe('"a"');
});

test("refetch - a changed fingerprint halves the interval and lifts the page to priority 1", () => {
  const first = recordFetch(newUrlState({ depth: 4, isHomePage: false }, T0, CFG), { fingerprint: "f1" }, T0, CFG);
  const now = first.nextFetchAt;
  const second = recordFetch(first, { fingerprint: "f2" }, now, CFG);
  expect(second.refetchIntervalMs).toBe(12 * HOUR);
  expect(second.nextFetchAt).toBe(now + 12 * HOUR);
  expect(second.changedLastVisit).toBe(true);
  expect(second.priority).toBe(1);
  const third = recordFetch(second, { fingerprint: "f2" }, second.nextFetchAt, CFG);
  expect(third.refetchIntervalMs).toBe(DAY);
  expect(third.changedLastVisit).toBe(false);
  expect(third.priority).toBe(3);
});

test("refetch - a 304 doubles the interval and keeps the stored fingerprint and validators", () => {
  const first = recordFetch(
    newUrlState({ depth: 1, isHomePage: false }, T0, CFG),
    { fingerprint: "f1", etag: '"v1"', lastModified: "Sun, 29 Nov 2026 12:00:00 GMT" },
    T0,
    CFG,
  );
  const second = recordFetch(first, { notModified: true }, first.nextFetchAt, CFG);
  expect(second.refetchIntervalMs).toBe(2 * DAY);
  expect(second.fingerprint).toBe("f1");
  expect(second.etag).toBe('"v1"');
  expect(second.lastModified).toBe("Sun, 29 Nov 2026 12:00:00 GMT");
  expect(second.changedLastVisit).toBe(false);
});

test("refetch - the caller's own judgement of change overrides the fingerprint", () => {
  const first = recordFetch(newUrlState({ depth: 1, isHomePage: false }, T0, CFG), { fingerprint: "f1" }, T0, CFG);
  const second = recordFetch(first, { fingerprint: "f2", changed: false }, first.nextFetchAt, CFG);
  expect(second.refetchIntervalMs).toBe(2 * DAY);
  expect(second.fingerprint).toBe("f2");
});

test("refetch - a success clears the failures of a URL that was retrying", () => {
  const failing = recordFailure(recordFailure(newUrlState({ depth: 1, isHomePage: false }, T0, CFG), T0, CFG), T0, CFG);
  expect(failing.failures).toBe(2);
  const fetched = recordFetch(failing, { fingerprint: "f1" }, T0 + 7 * HOUR, CFG);
  expect(fetched.failures).toBe(0);
  expect(fetched.status).toBe("fetched");
});

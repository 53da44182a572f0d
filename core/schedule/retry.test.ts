import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { nextRetry, recordFailure, retryDelay } from "./retry.ts";
import { newUrlState } from "./url-state.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;
const CFG = DEFAULT_POLICY;

test("retry - waits 1 h, 6 h and 24 h after the first, second and third failure", () => {
  expect([1, 2, 3].map((n) => retryDelay(n, CFG))).toEqual([HOUR, 6 * HOUR, 24 * HOUR]);
});

test("retry - repeats the last delay when more failures are allowed than delays are listed", () => {
  expect(retryDelay(7, { retryDelaysMs: [HOUR, 2 * HOUR] })).toBe(2 * HOUR);
});

test("retry - refuses a failure count below one", () => {
  expect(() => retryDelay(0, CFG)).toThrow(RangeError);
  expect(() => retryDelay(1.5, CFG)).toThrow(RangeError);
});

test("retry - a URL is retried up to three failures and dead for 7 days at the fourth", () => {
  expect(nextRetry({ failures: 1 }, T0, CFG)).toEqual({ kind: "retry", at: T0 + HOUR });
  expect(nextRetry({ failures: 3 }, T0, CFG)).toEqual({ kind: "retry", at: T0 + 24 * HOUR });
  expect(nextRetry({ failures: 4 }, T0, CFG)).toEqual({ kind: "dead", until: T0 + 7 * DAY });
});

test("retry - with max failures 0 the first failure makes a URL dead", () => {
  expect(nextRetry({ failures: 1 }, T0, { ...CFG, maxFailures: 0 }).kind).toBe("dead");
});

test("retry - recording failures walks a URL through retry to dead, and once more after its rest", () => {
  let state = newUrlState({ depth: 2, isHomePage: false }, T0, CFG);
  const plan: string[] = [];
  let now = T0;
  for (let i = 0; i < 5; i++) {
    state = recordFailure(state, now, CFG);
    plan.push(`${state.status}+${(state.nextFetchAt - now) / HOUR}h`);
    now = state.nextFetchAt;
  }
  expect(plan).toEqual(["retry+1h", "retry+6h", "retry+24h", "dead+168h", "dead+168h"]);
  expect(state.failures).toBe(5);
});

test("retry - recording a failure keeps what the URL learned before and returns plain data", () => {
  const state = { ...newUrlState({ depth: 1, isHomePage: true }, T0, CFG), etag: '"v1"', fingerprint: "abc" };
  const failed = recordFailure(state, T0, CFG);
  expect(failed.etag).toBe('"v1"');
  expect(failed.fingerprint).toBe("abc");
  expect(failed.priority).toBe(1);
  expect(state.failures).toBe(0);
  expect(JSON.parse(JSON.stringify(failed))).toEqual(failed);
});

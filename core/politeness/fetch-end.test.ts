import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { classifyOutcome, type FetchEnd, onFetchEnd } from "./fetch-end.ts";
import { type HostState, newHostState, onFetchStart, type PolitenessConfig } from "./host-state.ts";

const T0 = 1_700_000_000_000;
const CFG: PolitenessConfig = DEFAULT_POLICY;

/** Starts a fetch at the host's next allowed time and ends it `durationMs` later. */
function fetchOnce(state: HostState, outcome: Omit<FetchEnd, "startedAt" | "endedAt">, durationMs = 50, cfg = CFG): HostState {
  const startedAt = Math.max(T0, state.nextAllowedAt);
  return onFetchEnd(onFetchStart(state, startedAt), { ...outcome, startedAt, endedAt: startedAt + durationMs }, cfg);
}

/** The wait the policy asked for after a fetch: from the end of the response, less the margin on top. */
function waitAfter(before: HostState, after: HostState, durationMs = 50): number {
  return after.nextAllowedAt - (Math.max(T0, before.nextAllowedAt) + durationMs) - CFG.gapMarginMs;
}

test("politeness - a fast fetch waits the min gap from the end of the response", () => {
  const after = fetchOnce(newHostState(), { status: 200 }, 50);
  expect(after.nextAllowedAt).toBe(T0 + 50 + 1_000 + CFG.gapMarginMs);
  expect(after.inFlight).toBe(false);
  expect(after.gapMs).toBe(1_000);
  expect(after.fetches).toBe(1);
});

test("politeness - the margin comes on top of every wait, and a fractional wait is rounded up", () => {
  const cfg = { ...CFG, minGapMs: 0, gapMarginMs: 7 };
  const state = onFetchEnd(newHostState(), { startedAt: T0, endedAt: T0 + 100.04, status: 200 }, cfg);
  // 10 x 100.04 ms = 1,000.4 ms, rounded up to 1,001, then the margin.
  expect(state.gapMs).toBe(1001);
  expect(state.nextAllowedAt).toBe(T0 + 100.04 + 1001 + 7);
  const throttled = onFetchEnd(newHostState(), { startedAt: T0, endedAt: T0 + 1, status: 429, retryAfter: "3" }, cfg);
  expect(throttled.nextAllowedAt).toBe(T0 + 1 + 3000 + 7);
});

test("politeness - a slow fetch waits ten times its duration", () => {
  const after = fetchOnce(newHostState(), { status: 200 }, 800);
  expect(waitAfter(newHostState(), after, 800)).toBe(8_000);
});

test("politeness - time the fetching process was not running is not the host's: left out of the fetch time the multiplier takes", () => {
  // 800 ms of a 30.8 s fetch was the host's; the rest the fetch node was stopped (SIGSTOP, a long pause).
  const paused = onFetchEnd(newHostState(), { startedAt: T0, endedAt: T0 + 30_800, pausedMs: 30_000, status: 200 }, CFG);
  expect(paused.gapMs).toBe(8_000);
  expect(paused.nextAllowedAt).toBe(T0 + 30_800 + 8_000 + CFG.gapMarginMs);
  // Without it, the same fetch would keep the host away ten times the pause (capped).
  const unpaused = onFetchEnd(newHostState(), { startedAt: T0, endedAt: T0 + 30_800, status: 200 }, CFG);
  expect(unpaused.gapMs).toBe(Math.min(308_000, CFG.maxGapMs));
});

test("politeness - a min gap of 0 leaves just the multiplier term", () => {
  const after = fetchOnce(newHostState(), { status: 200 }, 30, { ...CFG, minGapMs: 0 });
  expect(waitAfter(newHostState(), after, 30)).toBe(300);
});

test("politeness - a robots Crawl-delay is honoured, capped, and remembered", () => {
  const first = fetchOnce(newHostState(), { status: 200, crawlDelayMs: 5_000 });
  expect(waitAfter(newHostState(), first)).toBe(5_000);
  const second = fetchOnce(first, { status: 200 });
  expect(waitAfter(first, second)).toBe(5_000);
  const huge = fetchOnce(newHostState(), { status: 200, crawlDelayMs: 86_400_000 });
  expect(waitAfter(newHostState(), huge)).toBe(CFG.crawlDelayCapMs);
});

test("politeness - doubles the gap after a 429", () => {
  const first = fetchOnce(newHostState(), { status: 429 });
  expect(waitAfter(newHostState(), first)).toBe(2_000);
  const second = fetchOnce(first, { status: 429 });
  expect(waitAfter(first, second)).toBe(4_000);
  const third = fetchOnce(second, { status: 503 });
  expect(waitAfter(second, third)).toBe(8_000);
  expect(third.throttles).toBe(3);
  expect(third.consecutiveFailures).toBe(0);
});

test("politeness - the throttle never exceeds the max gap", () => {
  let state = newHostState();
  for (let i = 0; i < 40; i++) state = fetchOnce(state, { status: 429 });
  expect(state.throttleMs).toBe(CFG.maxGapMs);
  expect(state.gapMs).toBe(CFG.maxGapMs);
});

test("politeness - a longer Retry-After wins over the doubled gap, a shorter one does not", () => {
  const long = fetchOnce(newHostState(), { status: 503, retryAfter: "120" });
  expect(waitAfter(newHostState(), long)).toBe(120_000);
  const short = fetchOnce(newHostState(), { status: 429, retryAfter: "1" });
  expect(waitAfter(newHostState(), short)).toBe(2_000);
});

test("politeness - a Retry-After date that reaches the frontier is read against the wall clock, not the politeness clock", () => {
  // The fetching side turns dates into delta-seconds; a date that still arrives is wall-clock time. The
  // response's end is on the politeness clock, which parts from the wall clock when that is stepped: here
  // it reads 10 minutes behind, and the wait is still the 10 minutes the date asks from now.
  const endedAt = Date.now() - 600_000;
  const until = new Date(Math.ceil(Date.now() / 1000) * 1000 + 600_000);
  const state = onFetchEnd(newHostState(), { startedAt: endedAt - 50, endedAt, status: 429, retryAfter: until.toUTCString() }, CFG);
  expect(state.gapMs).toBeGreaterThan(599_000);
  expect(state.gapMs).toBeLessThanOrEqual(601_000);
  expect(state.nextAllowedAt).toBe(endedAt + state.gapMs + CFG.gapMarginMs);
});

test("politeness - a hostile Retry-After is capped at the max gap, and garbage is ignored", () => {
  const hostile = fetchOnce(newHostState(), { status: 429, retryAfter: "99999999" });
  expect(waitAfter(newHostState(), hostile)).toBe(CFG.maxGapMs);
  const garbage = fetchOnce(newHostState(), { status: 429, retryAfter: "later please" });
  expect(waitAfter(newHostState(), garbage)).toBe(2_000);
});

test("politeness - Retry-After on a 200 is not honoured", () => {
  const after = fetchOnce(newHostState(), { status: 200, retryAfter: "3600" });
  expect(waitAfter(newHostState(), after)).toBe(1_000);
});

test("politeness - the throttle halves after each success and clears near the base gap", () => {
  let state = newHostState();
  for (let i = 0; i < 4; i++) state = fetchOnce(state, { status: 429 });
  expect(state.throttleMs).toBe(16_000);
  const throttles: number[] = [];
  for (let i = 0; i < 5; i++) {
    state = fetchOnce(state, { status: 200 });
    throttles.push(state.throttleMs);
  }
  expect(throttles).toEqual([8_000, 4_000, 2_000, 0, 0]);
  expect(state.gapMs).toBe(1_000);
});

test("politeness - a host that keeps failing gets a longer gap each time", () => {
  let state = newHostState();
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    const next = fetchOnce(state, { error: "refused" });
    waits.push(waitAfter(state, next));
    state = next;
  }
  // penalty = 1 + consecutive + 4 x rate, rate = 1 - 0.9^n
  expect(waits).toEqual([2_400, 3_760, 5_084, 6_376]);
  expect(state.consecutiveFailures).toBe(4);
  expect(state.failures).toBe(4);
  expect(state.lastError).toBe("refused");
});

test("politeness - a 5xx other than 503 counts as a failure, a 404 as a success", () => {
  expect(classifyOutcome({ status: 500 })).toBe("failure");
  expect(classifyOutcome({ status: 502 })).toBe("failure");
  expect(classifyOutcome({ status: 503 })).toBe("throttled");
  expect(classifyOutcome({ status: 429 })).toBe("throttled");
  expect(classifyOutcome({ status: 404 })).toBe("success");
  expect(classifyOutcome({ status: 301 })).toBe("success");
  expect(classifyOutcome({ error: "timeout" })).toBe("failure");
  expect(classifyOutcome({})).toBe("failure");
});

test("politeness - a success clears the consecutive failures but the failure rate fades slowly", () => {
  let state = newHostState();
  for (let i = 0; i < 3; i++) state = fetchOnce(state, { status: 500 });
  const recovered = fetchOnce(state, { status: 200 });
  expect(recovered.consecutiveFailures).toBe(0);
  expect(recovered.failureRate).toBeCloseTo(0.271 * 0.9, 3);
  // A still-shaky host waits a little more than the min gap: 1 s x (1 + 4 x 0.2439).
  expect(waitAfter(state, recovered)).toBe(1_976);
});

test("politeness - a host failing half the time waits about three to four times its base gap", () => {
  let state = newHostState();
  const waits: number[] = [];
  for (let i = 0; i < 200; i++) {
    const next = fetchOnce(state, i % 2 === 0 ? { error: "timeout" } : { status: 200 });
    waits.push(waitAfter(state, next));
    state = next;
  }
  // The rate settles between 0.47 and 0.53: 1 + 4 x 0.47 after a success, 1 + 1 + 4 x 0.53 after a failure
  // (rounded up to the next millisecond).
  expect(waits.at(-1)).toBe(2_895);
  expect(waits.at(-2)).toBe(4_106);
});

test("politeness - every gap is capped at the max gap", () => {
  let state = newHostState();
  for (let i = 0; i < 500; i++) state = fetchOnce(state, { error: "timeout" }, 20_000);
  expect(state.gapMs).toBe(CFG.maxGapMs);
});

test("politeness - a late duplicate result never brings the next allowed time forward", () => {
  const slow = fetchOnce(newHostState(), { status: 429, retryAfter: "600" });
  const duplicate = onFetchEnd(slow, { startedAt: T0, endedAt: T0 + 50, status: 200 }, CFG);
  expect(duplicate.nextAllowedAt).toBe(slow.nextAllowedAt);
});

test("politeness - ending a fetch returns plain data and leaves its input untouched", () => {
  const started = onFetchStart(newHostState(), T0);
  const copy = structuredClone(started);
  const after = onFetchEnd(started, { startedAt: T0, endedAt: T0 + 10, status: 503, retryAfter: "5" }, CFG);
  expect(started).toEqual(copy);
  expect(JSON.parse(JSON.stringify(after))).toEqual(after);
});

import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { canFetch, HostNotReadyError, isFetchLost, newHostState, onFetchStart, releaseLostFetch, setPaused } from "./host-state.ts";

const T0 = 1_700_000_000_000;

test("politeness - a new host may be fetched at once", () => {
  expect(canFetch(newHostState(), T0)).toBe(true);
  expect(canFetch(newHostState(T0 + 1), T0)).toBe(false);
});

test("politeness - a host with a fetch in flight may not be fetched again", () => {
  const started = onFetchStart(newHostState(), T0);
  expect(started.inFlight).toBe(true);
  expect(started.inFlightSince).toBe(T0);
  expect(canFetch(started, T0 + 3_600_000)).toBe(false);
  expect(() => onFetchStart(started, T0 + 1)).toThrow(HostNotReadyError);
});

test("politeness - starting a fetch before the gap ends throws, naming the wait", () => {
  expect(() => onFetchStart(newHostState(T0 + 500), T0)).toThrow(/500 ms from now/);
});

test("politeness - a paused host may not be fetched until resumed", () => {
  const paused = setPaused(newHostState(), true);
  expect(canFetch(paused, T0)).toBe(false);
  expect(() => onFetchStart(paused, T0)).toThrow(/paused/);
  expect(canFetch(setPaused(paused, false), T0)).toBe(true);
});

test("politeness - state is plain data that survives a JSON round trip", () => {
  const state = onFetchStart(newHostState(), T0);
  expect(JSON.parse(JSON.stringify(state))).toEqual(state);
});

test("politeness - starting a fetch does not change the state it was given", () => {
  const before = newHostState();
  const copy = structuredClone(before);
  onFetchStart(before, T0);
  expect(before).toEqual(copy);
});

test("politeness - a fetch without a result is lost once the lease runs out", () => {
  const started = onFetchStart(newHostState(), T0);
  expect(isFetchLost(started, T0 + DEFAULT_POLICY.fetchLeaseMs - 1, DEFAULT_POLICY)).toBe(false);
  expect(isFetchLost(started, T0 + DEFAULT_POLICY.fetchLeaseMs, DEFAULT_POLICY)).toBe(true);
  expect(isFetchLost(newHostState(), T0 + 10 * DEFAULT_POLICY.fetchLeaseMs, DEFAULT_POLICY)).toBe(false);
});

test("politeness - releasing a lost fetch frees the host after the min gap without counting a failure", () => {
  const started = onFetchStart(newHostState(), T0);
  const now = T0 + DEFAULT_POLICY.fetchLeaseMs;
  const released = releaseLostFetch(started, now, DEFAULT_POLICY);
  expect(released.inFlight).toBe(false);
  expect(released.inFlightSince).toBeNull();
  expect(released.consecutiveFailures).toBe(0);
  expect(released.nextAllowedAt).toBe(now + DEFAULT_POLICY.minGapMs + DEFAULT_POLICY.gapMarginMs);
  expect(releaseLostFetch(released, now, DEFAULT_POLICY)).toBe(released);
});

/**
 * What follows a failed fetch of a URL (seed 000: retry after 1 h, 6 h, 24 h; after 3 failures dead
 * for 7 days). Reading of "3 failures": `maxFailures` is how many consecutive failures a URL may have
 * and still be retried, so with the defaults the 1st, 2nd and 3rd failures wait 1 h, 6 h and 24 h, and
 * the 4th (the third retry failing) makes the URL dead for 7 days; every delay in the table is used.
 * After its dead time a URL is tried once more, and since its failure count is kept, one more failure
 * makes it dead again at once; a success resets the count. What counts as a failure (network errors,
 * 5xx, throttling that never let up) is the caller's call; a 404 is an answer, not a failure.
 */
import type { UrlState, ScheduleConfig } from "./url-state.ts";

/** Either retry at a time, or rest as dead until a time. Epoch milliseconds. */
export type RetryDecision = { readonly kind: "retry"; readonly at: number } | { readonly kind: "dead"; readonly until: number };

/**
 * The wait before retrying after the `failures`-th consecutive failure (1-based): the matching entry
 * of `retryDelaysMs`, or its last one when `maxFailures` allows more failures than the list has.
 */
export function retryDelay(failures: number, cfg: Pick<ScheduleConfig, "retryDelaysMs">): number {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a whole number >= 1, got ${failures}`);
  const delays = cfg.retryDelaysMs;
  return delays[Math.min(failures, delays.length) - 1] as number;
}

/**
 * Decides what follows a failure, for a URL whose `failures` already counts the failure just seen
 * (at `now`): dead once it exceeds `maxFailures`, otherwise a retry after `retryDelay`.
 */
export function nextRetry(
  state: Pick<UrlState, "failures">,
  now: number,
  cfg: Pick<ScheduleConfig, "retryDelaysMs" | "maxFailures" | "deadForMs">,
): RetryDecision {
  if (state.failures > cfg.maxFailures) return { kind: "dead", until: now + cfg.deadForMs };
  return { kind: "retry", at: now + retryDelay(state.failures, cfg) };
}

/** Returns the URL's state after a failed attempt at `now`: one more failure, then retry or dead. */
export function recordFailure(state: UrlState, now: number, cfg: ScheduleConfig): UrlState {
  const failed = { ...state, failures: state.failures + 1 };
  const decision = nextRetry(failed, now, cfg);
  return decision.kind === "retry"
    ? { ...failed, status: "retry", nextFetchAt: decision.at }
    : { ...failed, status: "dead", nextFetchAt: decision.until };
}

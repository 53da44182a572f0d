/**
 * How a finished fetch moves a host's politeness state on, and so when the host may be fetched next.
 *
 * The wait after a fetch that ended at `endedAt` is
 *
 *     base     = max(minGap, gapFetchMultiplier x fetch duration, min(Crawl-delay, crawlDelayCap))
 *     penalty  = 1 + consecutiveFailures + hostFailurePenalty x failureRate
 *     gap      = min(maxGap, max(base x penalty, throttle))
 *     wait     = max(gap, min(Retry-After, maxGap))         (Retry-After only on 429/503)
 *     nextAllowedAt = endedAt + wait + gapMargin
 *
 * The margin (a few ms) is the distance between what the crawler can measure and what the server sees:
 * the crawler learns that a response ended a little after the server finished it, and the next request
 * arrives a little after it was sent, but an aborted response ends for the server a little after the
 * crawler hung up. The wait is rounded up, never down, so no rounding shortens it.
 *
 * So a slow host is visited less often (the multiplier). A host that keeps failing, or fails often,
 * is visited less often (the penalty: with the default penalty of 4 a host waits about 5x its base gap
 * after three failures in a row and more after each further one, while a host failing every other
 * time waits about 3x after a success and 4x after a failure). A host that answers 429 or 503 is backed off exponentially: `throttle` doubles from the
 * current gap on each, is halved by each successful answer, and is cleared once halving brings it
 * under the base gap. Every term is capped by maxGap, so no answer, however hostile, parks a host for
 * longer than that. A minGap of 0 is allowed: the gap is then the multiplier term (or Crawl-delay).
 */
import type { FetchErrorKind } from "../model/index.ts";
import type { HostState, PolitenessConfig } from "./host-state.ts";
import { parseRetryAfter } from "./retry-after.ts";

/** How one fetch ended, as politeness reads it (from the fetch result). Times are epoch milliseconds. */
export interface FetchEnd {
  readonly startedAt: number;
  /** When the response (or the error) was complete; the next gap runs from here. */
  readonly endedAt: number;
  /** Time within the fetch the fetching process was not running: not the host's, so not part of its duration. */
  readonly pausedMs?: number;
  /** HTTP status, when a response arrived. */
  readonly status?: number;
  /** How the fetch failed, when no response arrived. Every kind counts as the host failing (classifyOutcome). */
  readonly error?: FetchErrorKind;
  /** The raw Retry-After header, honoured with 429 and 503. */
  readonly retryAfter?: string;
  /**
   * The host's robots.txt Crawl-delay in ms (0 when robots.txt sets none), when the fetch node knew
   * it; when omitted the last reported value stays in force.
   */
  readonly crawlDelayMs?: number;
}

/** How an outcome counts for the host: fine, asking us to slow down, or failing. */
export type OutcomeClass = "success" | "throttled" | "failure";

/**
 * Classifies an outcome for politeness. 429 and 503 are "slow down" signals (throttled); network
 * errors and other 5xx are the host failing. Every other answer, 4xx included, means the host served
 * us properly, even if the page is missing. An outcome with neither status nor error is treated as a
 * failure, the cautious reading.
 */
export function classifyOutcome(outcome: Pick<FetchEnd, "status" | "error">): OutcomeClass {
  if (outcome.error !== undefined) return "failure";
  if (outcome.status === undefined) return "failure";
  if (outcome.status === 429 || outcome.status === 503) return "throttled";
  if (outcome.status >= 500) return "failure";
  return "success";
}

// Weight of the newest outcome in failureRate: about the last 10 fetches matter.
const FAILURE_RATE_WEIGHT = 0.1;

/** The gap before penalties and throttling: min gap, multiplier x fetch time, capped Crawl-delay. */
export function baseGap(durationMs: number, crawlDelayMs: number, cfg: PolitenessConfig): number {
  return Math.max(cfg.minGapMs, cfg.gapFetchMultiplier * Math.max(0, durationMs), Math.min(Math.max(0, crawlDelayMs), cfg.crawlDelayCapMs));
}

/**
 * Returns the host's state after a fetch ended: in flight no more, with the next allowed time, the
 * throttle and the failure record updated as the module comment describes. A late or duplicate result
 * (the host not in flight) is still applied, but never brings the next allowed time forward.
 */
export function onFetchEnd(state: HostState, outcome: FetchEnd, cfg: PolitenessConfig): HostState {
  const kind = classifyOutcome(outcome);
  const crawlDelayMs = outcome.crawlDelayMs ?? state.crawlDelayMs;
  const base = baseGap(outcome.endedAt - outcome.startedAt - (outcome.pausedMs ?? 0), crawlDelayMs, cfg);

  const failed = kind === "failure";
  // A throttle answer says nothing about whether the host works, so it leaves the failure record alone.
  const consecutiveFailures = failed ? state.consecutiveFailures + 1 : kind === "success" ? 0 : state.consecutiveFailures;
  const failureRate =
    kind === "throttled" ? state.failureRate : state.failureRate * (1 - FAILURE_RATE_WEIGHT) + (failed ? FAILURE_RATE_WEIGHT : 0);

  let throttleMs = state.throttleMs;
  if (kind === "throttled") {
    throttleMs = Math.min(cfg.maxGapMs, 2 * Math.max(state.throttleMs, state.gapMs, base));
  } else if (kind === "success" && throttleMs > 0) {
    throttleMs = throttleMs / 2 <= base ? 0 : Math.round(throttleMs / 2);
  }

  const penalty = 1 + consecutiveFailures + cfg.hostFailurePenalty * failureRate;
  const gap = Math.min(cfg.maxGapMs, Math.max(base * penalty, throttleMs));
  // The fetching side turns a date into delta-seconds (retryAfterAsDelay); a date that still comes here is
  // wall-clock time and is read against the wall clock, never against the politeness clock of endedAt.
  const retryAfterMs = kind === "throttled" ? parseRetryAfter(outcome.retryAfter, Date.now()) : undefined;
  const wait = Math.ceil(Math.max(gap, Math.min(retryAfterMs ?? 0, cfg.maxGapMs)));

  return {
    ...state,
    nextAllowedAt: Math.max(state.nextAllowedAt, outcome.endedAt + wait + cfg.gapMarginMs),
    gapMs: wait,
    inFlight: false,
    inFlightSince: null,
    crawlDelayMs,
    throttleMs,
    consecutiveFailures,
    failureRate,
    fetches: state.fetches + 1,
    failures: state.failures + (failed ? 1 : 0),
    throttles: state.throttles + (kind === "throttled" ? 1 : 0),
    lastStatus: outcome.status ?? null,
    lastError: outcome.error ?? null,
  };
}

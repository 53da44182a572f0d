/**
 * A host's politeness state and the transitions around one fetch: whether the host may be fetched now
 * (`canFetch`), marking a fetch as started (`onFetchStart`), and releasing a fetch whose result never
 * came (`releaseLostFetch`). The state is plain JSON data, persisted by the frontier and streamed to a
 * new owner on partition handoff; every function returns a new state and never reads a clock. How a
 * finished fetch moves the state on lives in `fetch-end.ts`.
 */
import type { PolicyConfig } from "../config/index.ts";
import type { FetchErrorKind } from "../model/index.ts";

/** Politeness state of one host. Times are epoch milliseconds; `null` means "none". */
export interface HostState {
  /** The earliest time the next fetch to this host may start. */
  readonly nextAllowedAt: number;
  /** The wait applied after the last fetch (0 before the first); a 429 doubles from here. */
  readonly gapMs: number;
  /** A fetch is running: seed 000 allows one connection per host. */
  readonly inFlight: boolean;
  /** When the running fetch started, to release it if its result is lost. */
  readonly inFlightSince: number | null;
  /** Paused by an operator: no fetch starts until resumed. */
  readonly paused: boolean;
  /** The host's robots.txt Crawl-delay as last reported (uncapped; capped where it is used). */
  readonly crawlDelayMs: number;
  /** Throttle gap from 429/503 answers: doubled by each, halved by each success; 0 = not throttled. */
  readonly throttleMs: number;
  /** Failures (network errors, 5xx other than 503) since the last success. */
  readonly consecutiveFailures: number;
  /** Recent failure rate in [0, 1], an exponentially weighted average over roughly the last 10 fetches. */
  readonly failureRate: number;
  /** Lifetime counters, for stats and `inspect host`. */
  readonly fetches: number;
  readonly failures: number;
  readonly throttles: number;
  readonly lastStatus: number | null;
  /** How the last fetch failed without a response (the fetch path's kind); null after a response. */
  readonly lastError: FetchErrorKind | null;
}

/** The slice of the policy that politeness reads. */
export type PolitenessConfig = Pick<
  PolicyConfig,
  "minGapMs" | "gapFetchMultiplier" | "gapMarginMs" | "maxGapMs" | "crawlDelayCapMs" | "hostFailurePenalty" | "fetchLeaseMs"
>;

/** The state of a host never fetched: ready at once (or at `readyAt`), not throttled, no failures. */
export function newHostState(readyAt = 0): HostState {
  return {
    nextAllowedAt: readyAt,
    gapMs: 0,
    inFlight: false,
    inFlightSince: null,
    paused: false,
    crawlDelayMs: 0,
    throttleMs: 0,
    consecutiveFailures: 0,
    failureRate: 0,
    fetches: 0,
    failures: 0,
    throttles: 0,
    lastStatus: null,
    lastError: null,
  };
}

/** True when a fetch to the host may start at `now`: not paused, nothing in flight, gap elapsed. */
export function canFetch(state: HostState, now: number): boolean {
  return !state.paused && !state.inFlight && now >= state.nextAllowedAt;
}

/**
 * Thrown when a fetch is started on a host that may not be fetched: a bug in the caller, which must
 * check `canFetch` first. Never retry; starting anyway would break the one-connection-per-host rule.
 */
export class HostNotReadyError extends Error {
  override name = "HostNotReadyError";
}

/** Marks a fetch as started at `now`. Throws HostNotReadyError unless `canFetch(state, now)`. */
export function onFetchStart(state: HostState, now: number): HostState {
  if (!canFetch(state, now)) {
    const why = state.paused
      ? "it is paused"
      : state.inFlight
        ? `a fetch is already in flight since ${state.inFlightSince}`
        : `its gap ends at ${state.nextAllowedAt}, ${state.nextAllowedAt - now} ms from now`;
    throw new HostNotReadyError(`cannot start a fetch: ${why}`);
  }
  return { ...state, inFlight: true, inFlightSince: now };
}

/** True when a fetch has been in flight for the whole lease without a result. */
export function isFetchLost(state: HostState, now: number, cfg: Pick<PolitenessConfig, "fetchLeaseMs">): boolean {
  return state.inFlight && state.inFlightSince !== null && now - state.inFlightSince >= cfg.fetchLeaseMs;
}

/**
 * Releases a host whose fetch result never came (a crashed fetch node, a frontier restart). Whether
 * the host was even contacted is unknown, so it is not counted as the host's failure; the next fetch
 * still waits the last gap (at least the min gap and Crawl-delay) and the margin from `now`, in case it
 * was. `now` must be no earlier than the end of any request the lost fetch made.
 */
export function releaseLostFetch(state: HostState, now: number, cfg: PolitenessConfig): HostState {
  if (!state.inFlight) return state;
  const wait = Math.min(cfg.maxGapMs, Math.max(state.gapMs, cfg.minGapMs, Math.min(state.crawlDelayMs, cfg.crawlDelayCapMs)));
  return {
    ...state,
    inFlight: false,
    inFlightSince: null,
    nextAllowedAt: Math.max(state.nextAllowedAt, now + wait + cfg.gapMarginMs),
  };
}

/** Pauses or resumes a host (operator action). A fetch in flight is not affected. */
export function setPaused(state: HostState, paused: boolean): HostState {
  return state.paused === paused ? state : { ...state, paused };
}

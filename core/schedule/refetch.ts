/**
 * Adaptive refetching (seed 000): a page found unchanged, or answered with 304 Not Modified, waits
 * twice as long before its next visit (at most `refetchMaxMs`, 30 d); a page found changed waits half
 * as long (at least `refetchMinMs`, 1 h). Pages that change often are so refetched soon and static
 * pages rarely. A page's first fetch keeps the initial interval, since there is nothing to compare.
 */
import type { ScheduleConfig, UrlState } from "./url-state.ts";
import { priorityFor } from "./priority.ts";

/** How a visit compared with the one before. */
export type Change = boolean | "not-modified";

/** The interval after a visit: halved when `changed` is true, doubled otherwise, within the bounds. */
export function nextRefetchInterval(
  prevIntervalMs: number,
  changed: Change,
  cfg: Pick<ScheduleConfig, "refetchMinMs" | "refetchMaxMs">,
): number {
  const next = changed === true ? Math.round(prevIntervalMs / 2) : prevIntervalMs * 2;
  return Math.min(cfg.refetchMaxMs, Math.max(cfg.refetchMinMs, next));
}

/** What a successful fetch learned. */
export interface FetchResult {
  /** The server answered 304 to a conditional GET: the stored copy is current. */
  readonly notModified?: boolean;
  /** Exact fingerprint of the new body (ignored with `notModified`). */
  readonly fingerprint?: string | null;
  /** Validators from the response; omitted ones keep their stored value. */
  readonly etag?: string | null;
  readonly lastModified?: string | null;
  /**
   * Whether the page changed, when the caller judges it itself (for instance by SimHash distance, so a
   * new timestamp alone does not count); by default it is a change of exact fingerprint.
   */
  readonly changed?: boolean;
}

/** Returns the URL's state after a successful fetch at `now`: failures cleared, next refetch planned. */
export function recordFetch(state: UrlState, result: FetchResult, now: number, cfg: ScheduleConfig): UrlState {
  const firstVisit = state.lastFetchedAt === null;
  const fingerprint = result.notModified ? state.fingerprint : (result.fingerprint ?? null);
  const changed: Change = result.notModified ? "not-modified" : (result.changed ?? (!firstVisit && fingerprint !== state.fingerprint));
  const refetchIntervalMs = firstVisit
    ? Math.min(cfg.refetchMaxMs, Math.max(cfg.refetchMinMs, state.refetchIntervalMs))
    : nextRefetchInterval(state.refetchIntervalMs, changed, cfg);
  const changedLastVisit = !firstVisit && changed === true;
  return {
    ...state,
    status: "fetched",
    nextFetchAt: now + refetchIntervalMs,
    failures: 0,
    refetchIntervalMs,
    lastFetchedAt: now,
    etag: result.etag === undefined ? state.etag : result.etag,
    lastModified: result.lastModified === undefined ? state.lastModified : result.lastModified,
    fingerprint,
    changedLastVisit,
    priority: priorityFor({ isHomePage: state.isHomePage, changedLastVisit, depth: state.depth }, cfg),
  };
}

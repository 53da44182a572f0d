/**
 * What a fetch result means for the URL that was fetched: its new stored state, whether it leaves its
 * host's queue, when (if ever) it comes back, and whether a redirect target must be admitted. Pure: the
 * frontier applies the decision in one transaction. The timing rules themselves (retry backoff, dead time,
 * refetch interval, priority) are core/schedule's; this module only maps HTTP outcomes onto them:
 *
 *   2xx                 fetched; refetch after the adaptive interval (changed pages come back at priority 1)
 *   304                 fetched, unchanged; the interval doubles
 *   3xx with Location   redirected; the target is admitted as a new URL (hop count + 1, at most maxRedirects)
 *   429, 503            throttled: the URL stays at the head of its host queue (the host's gap grows and
 *                       Retry-After is honoured by politeness) until it has been throttled maxFailures
 *                       times, then it follows the retry schedule like a failure
 *   other 5xx, network  failure: retry after 1 h, 6 h, 24 h, then dead for 7 days
 *   other 4xx           gone: never retried (an answer, not a failure)
 *   skipped             the fetch node refused (blocked address...): gone, with the reason noted
 *
 * A response's note (noindex, an unusable redirect Location) becomes the URL's note, which `url explain`
 * shows; a failure's note is its error kind or status.
 */
import type { FetchResult, Priority } from "../../core/model/index.ts";
import type { PolicyConfig } from "../../core/config/index.ts";
import { recordFailure, recordFetch, type UrlState } from "../../core/schedule/index.ts";
import type { UrlKey, UrlRow, UrlStatus } from "./store/frontier-store.ts";

export type UrlOutcome = {
  /** The URL's new stored state. */
  row: UrlRow;
  /** Leaves its host's queue (false only while throttled). */
  dequeue: boolean;
  /** Comes back into the queue at this time and priority. */
  reschedule?: { dueAt: number; priority: Priority };
  /** A redirect target to admit, already normalized by the fetch node. */
  redirectTo?: string;
  /** Counter names to bump (`frontier.redirect-limit`...). */
  counters: string[];
};

type ScheduleSlice = Pick<
  PolicyConfig,
  "retryDelaysMs" | "maxFailures" | "deadForMs" | "refetchInitialMs" | "refetchMinMs" | "refetchMaxMs" | "shallowDepth" | "maxRedirects"
>;

export function decideUrlOutcome(
  prev: UrlRow,
  result: FetchResult,
  ctx: { now: number; isHomePage: boolean; redirectHops: number },
  cfg: ScheduleSlice,
): UrlOutcome {
  const state = toUrlState(prev, ctx.isHomePage, cfg);
  const counters: string[] = [];
  const base = { lastStatus: result.status, note: null as string | null };

  if (result.kind === "skipped") {
    const note = result.refusal ? `${result.error}.${result.refusal}` : result.error;
    return finish("gone", { ...fromState(prev, state), ...base, note }, true);
  }
  if (result.kind === "network-error") return failure(result.error);
  if (result.status >= 500 && result.status !== 503) return failure(`status ${result.status}`);
  if (result.status === 429 || result.status === 503) {
    const throttled = prev.failures + 1;
    if (throttled < cfg.maxFailures) {
      counters.push("frontier.throttled-kept");
      return {
        row: { ...fromState(prev, state), ...base, failures: throttled, note: `throttled ${result.status}` },
        dequeue: false,
        counters,
      };
    }
    return failure(`throttled ${result.status} ${throttled} times`);
  }
  if (result.status === 304) {
    return success(recordFetch(state, { notModified: true, etag: result.etag, lastModified: result.lastModified }, ctx.now, cfg));
  }
  if (result.status >= 300 && result.status < 400) {
    const out = success(recordFetch(state, { fingerprint: null }, ctx.now, cfg), "redirected", result.note ?? null);
    if (result.redirectTo) {
      if (ctx.redirectHops + 1 > cfg.maxRedirects) counters.push("frontier.redirect-limit");
      else out.redirectTo = result.redirectTo;
    } else {
      counters.push("frontier.redirect-without-location");
    }
    return out;
  }
  if (result.status >= 200 && result.status < 300) {
    const next = recordFetch(
      state,
      {
        fingerprint: result.fingerprint ?? null,
        etag: result.etag ?? null,
        lastModified: result.lastModified ?? null,
        changed: result.changed,
      },
      ctx.now,
      cfg,
    );
    return success(
      next,
      result.duplicateOf ? "duplicate" : "fetched",
      result.duplicateOf ? `duplicate of ${result.duplicateOf}` : (result.note ?? null),
    );
  }
  // Any other answer (4xx, 1xx, odd codes) is final for this URL.
  return finish("gone", { ...fromState(prev, state), ...base, lastFetchedAt: ctx.now, note: `status ${result.status}` }, true);

  function failure(note: string): UrlOutcome {
    const next = recordFailure(state, ctx.now, cfg);
    counters.push(next.status === "dead" ? "frontier.dead" : "frontier.retry-scheduled");
    return {
      row: { ...fromState(prev, next), lastStatus: result.status, state: next.status === "dead" ? "dead" : "retry-wait", note },
      dequeue: true,
      reschedule: { dueAt: next.nextFetchAt, priority: next.priority },
      counters,
    };
  }

  function success(next: UrlState, status: UrlStatus = "fetched", note: string | null = null): UrlOutcome {
    return {
      row: { ...fromState(prev, next), lastStatus: result.status, state: status, simhash: result.simhash ?? prev.simhash, note },
      dequeue: true,
      reschedule: { dueAt: next.nextFetchAt, priority: next.priority },
      counters,
    };
  }

  function finish(status: UrlStatus, row: UrlRow, dequeue: boolean): UrlOutcome {
    return { row: { ...row, state: status }, dequeue, counters };
  }
}

/** The state of a queued URL with no result yet (a queued URL has no state row until its first result). */
export function unfetchedRow(url: UrlKey & { depth: number }): UrlRow {
  return {
    partition: url.partition,
    url: url.url,
    host: url.host,
    state: "queued",
    depth: url.depth,
    failures: 0,
    lastStatus: 0,
    lastFetchedAt: 0,
    refetchMs: 0,
    etag: null,
    lastModified: null,
    fingerprint: null,
    simhash: null,
    changedLastVisit: false,
    note: null,
  };
}

function toUrlState(row: UrlRow, isHomePage: boolean, cfg: ScheduleSlice): UrlState {
  const changedLastVisit = row.changedLastVisit;
  return {
    status: row.state === "dead" ? "dead" : row.state === "retry-wait" ? "retry" : row.lastFetchedAt > 0 ? "fetched" : "queued",
    nextFetchAt: 0,
    failures: row.failures,
    refetchIntervalMs: row.refetchMs > 0 ? row.refetchMs : cfg.refetchInitialMs,
    lastFetchedAt: row.lastFetchedAt > 0 ? row.lastFetchedAt : null,
    etag: row.etag,
    lastModified: row.lastModified,
    fingerprint: row.fingerprint,
    changedLastVisit,
    depth: row.depth,
    isHomePage,
    priority: changedLastVisit || isHomePage ? 1 : row.depth <= cfg.shallowDepth ? 2 : 3,
  };
}

function fromState(prev: UrlRow, s: UrlState): UrlRow {
  return {
    partition: prev.partition,
    url: prev.url,
    host: prev.host,
    depth: prev.depth,
    state: prev.state,
    failures: s.failures,
    lastStatus: prev.lastStatus,
    lastFetchedAt: s.lastFetchedAt ?? 0,
    refetchMs: s.refetchIntervalMs,
    etag: s.etag,
    lastModified: s.lastModified,
    fingerprint: s.fingerprint,
    simhash: prev.simhash,
    changedLastVisit: s.changedLastVisit,
    note: prev.note,
    ...(prev.captures ? { captures: prev.captures } : {}),
  };
}

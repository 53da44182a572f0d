/**
 * The scheduling state of one URL: where it is in its life (waiting for its first fetch, fetched and
 * waiting to be refetched, waiting to retry, dead for a while), when it is next due, and what the last
 * visit learned (validators for a conditional GET, content fingerprint, whether it changed). Plain JSON
 * data, stored per URL by the frontier; the transitions live in `retry.ts` and `refetch.ts`.
 */
import type { PolicyConfig } from "../config/index.ts";
import { type Priority, priorityFor } from "./priority.ts";

/**
 * `queued`: never fetched yet. `fetched`: fetched, waiting to be refetched. `retry`: the last attempt
 * failed, waiting to retry. `dead`: failed too often, resting until `nextFetchAt`.
 */
export type UrlStatus = "queued" | "fetched" | "retry" | "dead";

/** Times are epoch milliseconds; `null` means "none yet". */
export interface UrlState {
  readonly status: UrlStatus;
  /** When the URL is next due: first fetch, refetch, retry, or the end of its dead time. */
  readonly nextFetchAt: number;
  /** Failed attempts since the last success. */
  readonly failures: number;
  /** Current refetch interval; adapts to how often the page changes. */
  readonly refetchIntervalMs: number;
  readonly lastFetchedAt: number | null;
  /** Validators sent back as If-None-Match / If-Modified-Since on the next fetch. */
  readonly etag: string | null;
  readonly lastModified: string | null;
  /** Exact content fingerprint of the last body fetched. */
  readonly fingerprint: string | null;
  /** The content differed from the visit before: such pages go to the front queue. */
  readonly changedLastVisit: boolean;
  /** Links followed from a seed; a seed has depth 0. */
  readonly depth: number;
  /** The root page of its host; home pages go to the front queue. */
  readonly isHomePage: boolean;
  readonly priority: Priority;
}

/** The slice of the policy that URL scheduling reads. */
export type ScheduleConfig = Pick<
  PolicyConfig,
  "retryDelaysMs" | "maxFailures" | "deadForMs" | "refetchInitialMs" | "refetchMinMs" | "refetchMaxMs" | "shallowDepth"
>;

/** The state of a newly discovered URL, due at once. */
export function newUrlState(page: { readonly depth: number; readonly isHomePage: boolean }, now: number, cfg: ScheduleConfig): UrlState {
  return {
    status: "queued",
    nextFetchAt: now,
    failures: 0,
    refetchIntervalMs: cfg.refetchInitialMs,
    lastFetchedAt: null,
    etag: null,
    lastModified: null,
    fingerprint: null,
    changedLastVisit: false,
    depth: page.depth,
    isHomePage: page.isHomePage,
    priority: priorityFor({ ...page, changedLastVisit: false }, cfg),
  };
}

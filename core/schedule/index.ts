/**
 * When each URL is fetched next and how urgently: retries with backoff and a dead state, adaptive
 * refetch intervals, the three front-queue priority classes, and the per-URL state they act on.
 */
export { newUrlState, type ScheduleConfig, type UrlState, type UrlStatus } from "./url-state.ts";
export { nextRetry, recordFailure, type RetryDecision, retryDelay } from "./retry.ts";
export { type Change, nextRefetchInterval, type PageVisit, recordFetch } from "./refetch.ts";
export { admissionPriority, type Priority, priorityFor } from "./priority.ts";

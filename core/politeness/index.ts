/**
 * Per-host politeness: the plain-data state of each host, the transitions around a fetch (start, end,
 * lost), Retry-After parsing, and the ready heap the frontier uses to find the next host it may fetch.
 */
export {
  canFetch,
  type FetchErrorKind,
  HostNotReadyError,
  type HostState,
  isFetchLost,
  newHostState,
  onFetchStart,
  type PolitenessConfig,
  releaseLostFetch,
  setPaused,
} from "./host-state.ts";
export { baseGap, classifyOutcome, type FetchOutcome, onFetchEnd, type OutcomeClass } from "./fetch-end.ts";
export { parseHttpDate, parseRetryAfter } from "./retry-after.ts";
export { preciseNow, receivedResult } from "./clock.ts";
export { HostReadyHeap, type ReadyEntry } from "./ready-heap.ts";

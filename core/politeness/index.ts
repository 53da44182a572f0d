/**
 * Per-host politeness: the plain-data state of each host, the transitions around a fetch (start, end,
 * lost), Retry-After parsing, and the heap of waiting hosts the frontier takes the next ready host from.
 */
export {
  canFetch,
  HostNotReadyError,
  type HostState,
  isFetchLost,
  newHostState,
  onFetchStart,
  type PolitenessConfig,
  releaseAfterLoss,
  releaseLostFetch,
  setPaused,
} from "./host-state.ts";
export { baseGap, classifyOutcome, type FetchEnd, onFetchEnd, type OutcomeClass } from "./fetch-end.ts";
export { parseHttpDate, parseRetryAfter, retryAfterAsDelay } from "./retry-after.ts";
export { preciseNow, receivedResult } from "./clock.ts";
export { FrontierKeys, frontierKeyOf, type PolitenessKeyMode } from "./politeness-key.ts";
export { WaitingHostHeap, type WaitingHost } from "./waiting-host-heap.ts";
export { ADDRESS_BOARD_ROWS, AddressBoard, type AddressBoardOptions, type AddressRow } from "./address-board.ts";

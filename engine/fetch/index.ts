/**
 * The fetch path: one task end to end. `openFetchPath` builds it (the HTTP fetcher with its timeouts, body
 * cap and address policy; the WARC writer; the `FetchWorker` that runs a task as an ordered list of steps:
 * request, redirect, fingerprint, parse, near-duplicate check, store; pages, robots.txt and media files). The same code runs in `crawl` (on
 * fetch threads) and in every fetch node, on Bun and on Deno; it imports no Bun-only module.
 */
export { openFetchPath, type FetchPath, type FetchPathOptions } from "./fetch-path.ts";
export { FetchWorker, type WorkerDeps } from "./pipeline/index.ts";
export { HttpFetcher, type HttpFetcherOptions, type LookupFn, proxyListens } from "./http/index.ts";
export { extractPage } from "./parse/index.ts";
export { LocalTrouble, type LocalTroubleOptions } from "./local-trouble.ts";
export { addressGateLimits } from "./address-limits.ts";
export { CountingAddressGate } from "./counting-address-gate.ts";
export { type BoardFigures, ServerExplainer, type ServerExplanation } from "./server-explainer.ts";
export {
  WarcWriter,
  INDEX_FILE,
  MEDIA_LIST_FILE,
  REVISIT_PROFILES,
  readRecordAt,
  readWarc,
  type WarcRecordView,
  type WarcWriterOptions,
  type WriteResult,
} from "./warc/index.ts";
export {
  WarcSpool,
  WarcUploader,
  WARC_ROLL_SETTINGS,
  FINISHED_DIR,
  startWarcUpload,
  type WarcUploaderOptions,
  type WarcRollSettings,
  type WarcUploadStarted,
} from "./warc-upload/index.ts";

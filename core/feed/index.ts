/**
 * The feed of fetched pages, pure: the record and how a fetch result becomes one (page-record.ts), and the
 * cursor of `GET /v1/jobs/{id}/pages` (cursor.ts). The stream itself is a port (core/ports PageFeed).
 */
export {
  FEED_STREAM,
  FEED_SUBJECTS,
  feedSubject,
  pageOutcome,
  pageRecordOf,
  recordLocations,
  type PageOutcome,
  type PageRecord,
  type RecordLocation,
} from "./page-record.ts";
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, parseCursor, parseLimit } from "./cursor.ts";
export { FEED_RETENTION_SPECS, type FeedRetentionSettings } from "./retention.ts";
export { openedOnFirstUse, type OpenedOnFirstUse } from "./opened-on-first-use.ts";

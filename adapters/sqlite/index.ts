/**
 * SQLite-backed implementations of the ports (Bun only), `crawl`'s durable state beside its frontier store:
 * the content index, the crawl jobs' registry and the feed of fetched pages, each its own file under --out.
 */
export { SqliteContentIndex } from "./sqlite-content-index.ts";
export { SqliteJobRegistry } from "./sqlite-job-registry.ts";
export { SqlitePageFeed, type SqlitePageFeedOptions, type StoredPageRecord } from "./sqlite-page-feed.ts";

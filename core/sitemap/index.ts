/**
 * The sitemaps.org protocol, as pure rules: its limits (50,000 entries, 50 MB uncompressed), which URLs
 * a sitemap may list given where it lives and who named it (location.ts), and what its `<lastmod>` and
 * `<priority>` mean to the crawler (lastmod.ts, priority.ts). Fetching and stream-parsing a sitemap is
 * the fetch path's (engine/fetch/pipeline/sitemap-task.ts); queueing its entries the frontier's.
 */
export { SITEMAP_MAX_BYTES, SITEMAP_MAX_ENTRIES, SITEMAP_MAX_LOC_CHARS } from "./limits.ts";
export { entryAllowed, robotsGrant, sameSite, sitemapDirectory } from "./location.ts";
export { parseLastmod } from "./lastmod.ts";
export { levelOfSitemapPriority, parseSitemapPriority } from "./priority.ts";

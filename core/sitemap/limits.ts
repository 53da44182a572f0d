/**
 * The sitemaps.org protocol's limits: a sitemap (or a sitemap index) lists at most 50,000 entries and is
 * at most 50 MB (52,428,800 bytes) uncompressed. The crawler reads a sitemap as a stream and stops at
 * either limit: entries past the 50,000th, and bytes past the 50 MB, are ignored.
 */
export const SITEMAP_MAX_ENTRIES = 50_000;
export const SITEMAP_MAX_BYTES = 52_428_800;
/** Longest `<loc>` (or text line) considered; anything longer is not a URL the crawler would queue. */
export const SITEMAP_MAX_LOC_CHARS = 8_192;

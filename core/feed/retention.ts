/**
 * How long and how much of the feed of fetched pages is kept: two rows of the config table read by the
 * coordinator (the JetStream stream CRAWL_PAGES) and by `crawl` (its pages.sqlite, with --http), the same
 * flags, env vars and defaults in both.
 */
import { between, durationKind, sizeKind, type FieldSpecs } from "../config/index.ts";

export interface FeedRetentionSettings {
  /** How long a record is kept. */
  feedMaxAgeMs: number;
  /** Most bytes the feed keeps; past it the oldest records go first. */
  feedMaxBytes: number;
}

const SECOND = 1_000;

export const FEED_RETENTION_SPECS: FieldSpecs<FeedRetentionSettings> = {
  feedMaxAgeMs: {
    default: 7 * 24 * 3_600 * SECOND,
    env: "CRAWL_FEED_MAX_AGE",
    flag: "--feed-max-age",
    description:
      "How long the feed of fetched pages (GET /v1/jobs/{id}/pages; the JetStream stream CRAWL_PAGES in a cluster, pages.sqlite under --out in crawl --http) keeps a record",
    ...durationKind(between(60 * SECOND, 365 * 24 * 3_600 * SECOND)),
  },
  feedMaxBytes: {
    default: 10 * 1024 ** 3,
    env: "CRAWL_FEED_MAX_BYTES",
    flag: "--feed-max-bytes",
    description: "Most bytes the feed of fetched pages keeps; past it the oldest records go first",
    ...sizeKind(between(1024 ** 2, 1024 ** 5)),
  },
};

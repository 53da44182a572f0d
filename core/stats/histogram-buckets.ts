/**
 * The bucket layout of every histogram the crawler records, in one table, so every process exports the
 * same buckets and the coordinator can merge them. Each name ends with its unit (Prometheus base units:
 * seconds, bytes); `crawler_` + the name with `.` and `-` as `_` is the exported metric
 * (`fetch.duration-seconds` → `crawler_fetch_duration_seconds_bucket{le="0.25"}`, `_sum`, `_count`).
 * Bounds are chosen for crawl work, around the policy defaults (core/config/policy-defaults.ts):
 *
 *   fetch.duration-seconds        one fetch, request sent to body complete (robots.txt included): 25 ms (a
 *   fetcher.duration-seconds      CDN next door) to 20 s (the response timeout); 1 s matters most, since
 *                                 the gap after a fetch is 10x its duration, so a 0.1 s fetch costs the host
 *                                 nothing over the 1 s minimum gap and a 1 s one makes the gap 10 s.
 *   fetch.page-bytes              a stored page body (after decompression), powers of 4 from 1 KiB to the
 *   fetcher.page-bytes            5 MiB body cap: a cut page lands in the last finite bucket.
 *   frontier.queue-wait-seconds   a page URL queued (admitted, due again, or handed over) until its task is
 *                                 handed out: 1 s to 7 days, since a big crawl keeps URLs for days.
 *   politeness.gap-wait-seconds   how long a request waited for its host's gap (engine/frontier/scheduling.ts
 *                                 says exactly what is measured): 100 ms to 1 day (the maximum gap), dense
 *                                 around the 1 s minimum gap and the 10 s of a slow host.
 */

const SECONDS_FETCH = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20];
const KIB = 1024;
const BYTES_PAGE = [KIB, 4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB, 5 * 1024 * KIB];
const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SECONDS_QUEUE = [1, 10, MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR, 4 * HOUR, DAY, 7 * DAY];
const SECONDS_GAP = [0.1, 0.5, 1, 2, 5, 10, 30, MINUTE, 5 * MINUTE, HOUR, DAY];

/** Every histogram name and its bucket upper bounds (ascending, +Inf implied). */
export const HISTOGRAM_BUCKETS: Readonly<Record<string, readonly number[]>> = {
  "fetch.duration-seconds": SECONDS_FETCH,
  "fetch.page-bytes": BYTES_PAGE,
  "frontier.queue-wait-seconds": SECONDS_QUEUE,
  "politeness.gap-wait-seconds": SECONDS_GAP,
  "fetcher.duration-seconds": SECONDS_FETCH,
  "fetcher.page-bytes": BYTES_PAGE,
};

/** Buckets of a histogram not in the table (a typo shows as a histogram with powers of ten). */
const FALLBACK = [0.001, 0.01, 0.1, 1, 10, 100, 1000];

export function bucketsFor(name: string): readonly number[] {
  return HISTOGRAM_BUCKETS[name] ?? FALLBACK;
}

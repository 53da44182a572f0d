/**
 * The feed of fetched pages: one record per page result (a response of any status, a network error, a
 * redirect, a duplicate, a refusal), published once to the JetStream stream CRAWL_PAGES on subject
 * `crawl.pages.<job>` and paged over HTTP (`GET /v1/jobs/{id}/pages`). Plain JSON, the same shape both ways.
 */
import type { FetchResult, RecordLocation } from "../model/index.ts";

export const FEED_STREAM = "CRAWL_PAGES";
export const feedSubject = (job: string) => `crawl.pages.${job}`;
export const FEED_SUBJECTS = "crawl.pages.>";

export type { RecordLocation } from "../model/index.ts";

/** What became of the page: the project's words for the result's kind and status. */
export type PageOutcome = "fetched" | "not-modified" | "redirect" | "duplicate" | "http-error" | "network-error" | "refused";

export interface PageRecord {
  job: string;
  url: string;
  /** HTTP status; 0 without an answer. */
  status: number;
  outcome: PageOutcome;
  /** When the fetch ended, ISO 8601. */
  fetchedAt: string;
  /** The response's Content-Type header as sent (at most 200 characters); null without one. */
  contentType: string | null;
  /** Body bytes after decompression. */
  length: number;
  /** Exact content fingerprint; null without a body. */
  digest: string | null;
  simhash: string | null;
  warc: RecordLocation | null;
  text: RecordLocation | null;
  linksFound: number;
  region: string;
}

/**
 * Where the page's WARC response (or revisit) record and its WET text record are, as the fetch result says
 * (null when nothing was stored: an error, a noindex page, no text). The one place the feed takes them from.
 */
export function recordLocations(result: FetchResult): { warc: RecordLocation | null; text: RecordLocation | null } {
  return { warc: result.warc ? { ...result.warc } : null, text: result.text ? { ...result.text } : null };
}

export function pageOutcome(result: FetchResult): PageOutcome {
  if (result.kind === "skipped") return "refused";
  if (result.kind === "network-error") return "network-error";
  if (result.duplicateOf) return "duplicate";
  if (result.status === 304) return "not-modified";
  if (result.status >= 300 && result.status < 400) return "redirect";
  if (result.status >= 400) return "http-error";
  return "fetched";
}

export function pageRecordOf(result: FetchResult, job: string, region: string): PageRecord {
  return {
    job,
    url: result.url,
    status: result.status,
    outcome: pageOutcome(result),
    fetchedAt: new Date(Math.max(result.endedAt, result.startedAt)).toISOString(),
    contentType: result.contentType ?? null,
    length: result.bytes,
    digest: result.fingerprint ?? null,
    simhash: result.simhash ?? null,
    ...recordLocations(result),
    linksFound: result.linksFound,
    region,
  };
}

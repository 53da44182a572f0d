/**
 * The data that flows between the crawl's roles, as plain types: a frontier hands out FetchTasks, a fetch
 * worker answers with a FetchResult and the DiscoveredUrls it found. In embedded mode these objects pass
 * in-process; in cluster mode the adapters carry them as the protobuf messages of proto/crawler/fetch/v1,
 * converting only at the edge.
 */
import type { FetchErrorKind } from "./fetch-outcome.ts";

/** Priority class of a queued URL: 1 first (home pages, changed pages), 3 last. */
export type Priority = 1 | 2 | 3;

/** What a task asks the fetch worker to do. */
export type TaskKind = "page" | "robots";

export interface FetchTask {
  /** Unique per hand-out; also the message id used for de-duplication on the bus. */
  taskId: string;
  kind: TaskKind;
  /** Normalized absolute URL (for a robots task, the host's /robots.txt). */
  url: string;
  host: string;
  partition: number;
  depth: number;
  /** Redirect hops already taken to reach this URL. */
  redirectHops: number;
  /** Validators of the previous visit, for a conditional GET. */
  etag?: string;
  lastModified?: string;
  /** Fingerprint of the previous visit's content, so the worker can tell whether the page changed. */
  previousFingerprint?: string;
  /** Gap the worker must leave between requests to this host inside one task (robots.txt redirects). */
  hostGapMs: number;
  issuedAt: number;
}

/**
 * Why the fetch path ended a task without asking the host: a fetch error kind that is the crawler's own
 * refusal, not the host's failure (the address is in a refused range).
 */
export type SkipReason = Extract<FetchErrorKind, "blocked-address">;

/** Whether a fetch error kind is a refusal of our own, so the task is skipped rather than failed. */
export function isSkipReason(kind: FetchErrorKind): kind is SkipReason {
  return kind === "blocked-address";
}

/**
 * Something worth knowing about a response that is not an error: the page asked not to be stored
 * (`noindex`, meta robots or X-Robots-Tag), or a redirect's Location could not be used (`bad-location: `
 * and the normalizer's reason, or `missing`).
 */
export type ResultNote = "noindex" | `bad-location: ${string}`;

/** The note without its detail: `noindex` or `bad-location`, for counter names. */
export function noteKind(note: ResultNote): "noindex" | "bad-location" {
  return note === "noindex" ? "noindex" : "bad-location";
}

/** Whether `value` is a result note (input from the wire). */
export function isResultNote(value: unknown): value is ResultNote {
  return value === "noindex" || (typeof value === "string" && value.startsWith("bad-location: "));
}

/** What every result carries, whatever its kind. */
interface FetchResultFields {
  taskId: string;
  taskKind: TaskKind;
  url: string;
  host: string;
  partition: number;
  /** HTTP status for a response; 0 otherwise. */
  status: number;
  /**
   * When the request started and when the response (or the error) was complete: epoch milliseconds with
   * sub-millisecond resolution, on the clock of whoever fetched, until the frontier moves them onto its
   * own (core/politeness/clock.ts).
   */
  startedAt: number;
  endedAt: number;
  /**
   * The fetching side's clock when it handed the result over (to another thread or to the bus); the
   * receiver shifts startedAt and endedAt by its receipt time minus this, then drops it.
   */
  sentAt?: number;
  fingerprint?: string;
  /** 64-bit SimHash of the page text as 16 hex digits. */
  simhash?: string;
  etag?: string;
  lastModified?: string;
  retryAfter?: string;
  /** Normalized redirect target, when the response was a redirect with a usable Location. */
  redirectTo?: string;
  /** True when the content differs from the previous visit. */
  changed?: boolean;
  /** The page is an exact duplicate of this already stored URL. */
  duplicateOf?: string;
  /** The page is a near duplicate (SimHash within 3 bits) of this URL. */
  nearDuplicateOf?: string;
  linksFound: number;
  /** For a robots task: the final verdict and, when "parse", the robots.txt text. */
  robots?: { verdict: "allow-all" | "disallow-all" | "parse"; text?: string };
  /** Bytes stored (after decompression); 0 when nothing was stored. */
  bytes: number;
  truncated?: boolean;
}

/** A response arrived (any status). */
export interface ResponseResult extends FetchResultFields {
  kind: "response";
  error?: undefined;
  note?: ResultNote;
}

/** No response: the fetch failed on the way, and `error` says how. */
export interface NetworkErrorResult extends FetchResultFields {
  kind: "network-error";
  error: Exclude<FetchErrorKind, SkipReason>;
}

/** The fetch path declined to ask the host, for `error`. */
export interface SkippedResult extends FetchResultFields {
  kind: "skipped";
  error: SkipReason;
  /** For `blocked-address`: the address policy's reason (core/net RefusalReason: `loopback`, `metadata`...). */
  refusal?: string;
}

/** How a task ended, in the terms the frontier's policies need. */
export type FetchResult = ResponseResult | NetworkErrorResult | SkippedResult;

export type ResultKind = FetchResult["kind"];

export interface DiscoveredUrl {
  /** Normalized absolute URL. */
  url: string;
  host: string;
  depth: number;
  /** The page it was found on; empty for a seed. */
  sourceUrl?: string;
  redirectHops: number;
  /** Operator seeds bypass the depth limit and are confirmed in the exact store. */
  isSeed?: boolean;
}

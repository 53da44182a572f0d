/**
 * The data that flows between the crawl's roles, as plain types: a frontier hands out FetchTasks, a fetch
 * worker answers with a FetchResult and the DiscoveredUrls it found. In embedded mode these objects pass
 * in-process; in cluster mode the adapters carry them as the protobuf messages of proto/crawler/fetch/v1,
 * converting only at the edge.
 */
import type { FetchErrorKind, LocalCause } from "./fetch-outcome.ts";

/** Priority class of a queued URL: 1 first (home pages, changed pages), 3 last. */
export type Priority = 1 | 2 | 3;

/**
 * A sitemap to read (core/sitemap): where it may list URLs besides its own directory, and how it was
 * found. Carried by the DiscoveredUrl that names it and by the task that fetches it.
 */
export interface SitemapRef {
  /** Origins (`http://host/`) whose robots.txt named this sitemap, or the index that listed it: it may list their URLs. */
  grants: string[];
  /** Listed by a sitemap index; such a sitemap that is an index itself is not followed (no nesting). */
  fromIndex?: boolean;
  /**
   * A feed (RSS, Atom) a home page names in `<link rel="alternate">`: read again each time the home page is
   * offered it again once `--refetch-min` has passed since its last read (a sitemap: half a robots.txt lifetime).
   */
  feed?: boolean;
}

/** What reading a sitemap found, for the frontier's counters. */
export interface SitemapSummary {
  /**
   * A list of pages (`urlset`, or a text file of URLs), a list of sitemaps (`index`), a feed of what is new
   * (`rss` 2.0, `atom` 1.0), or none of these.
   */
  format: "urlset" | "index" | "text" | "rss" | "atom" | "not-a-sitemap";
  /** Entries taken: page URLs of a list, sitemaps of an index. */
  entries: number;
  /** Entries the protocol does not let this sitemap list (another host, outside its directory). */
  outOfLocation: number;
  /** Entries whose location is not a usable URL. */
  invalid: number;
  /** The sitemap went past a protocol limit and was read only up to it: 50,000 entries, or 50 MB. */
  limit?: "entries" | "bytes";
  /** An index listed by an index: the protocol has no nesting, so its sitemaps were not taken. */
  nestedIndex?: boolean;
}
/**
 * What a task asks the fetch worker to do: a page (parsed for links and media), a host's robots.txt, a
 * sitemap to read, or a media file a page named (an image, video or audio: stored, never parsed).
 */
export type TaskKind = "page" | "robots" | "sitemap" | "media";

/** The kinds of URL a frontier queues: pages, and (with --fetch-media) the media files pages name. */
export type UrlKind = "page" | "media";

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
  /** For a sitemap task: what the sitemap may list. */
  sitemap?: SitemapRef;
  /**
   * For a page: also return the media URLs it names as links of kind "media", to be fetched (the frontier
   * sets it from its --fetch-media policy). Media are listed in the WARC either way.
   */
  fetchMedia?: boolean;
  /**
   * The ring epoch under which the issuing frontier node took the task's partition (its ownership epoch
   * as it knows it): a fencing token, so a task of a former owner can be told from the current owner's.
   * Absent: unknown (embedded mode, or a task of an older release).
   */
  ownerEpoch?: number;
  /** The crawl job of the URL (its number, core/jobs); absent: job `default` (0). Links found inherit it. */
  job?: number;
  /**
   * For a page: render it in a headless browser (`always`), or when its HTML looks script-built (`auto`);
   * absent: never (core/render). Set by the frontier from `--render`, the render rules and the host's memory.
   */
  render?: "auto" | "always";
  /**
   * With `render`: the host's robots.txt as the frontier holds it, so the page's own requests to its host
   * obey it; absent: robots.txt allows everything (4xx, or no rules).
   */
  robotsText?: string;
}

/** What rendering did for a page task (FetchResult.render). */
export interface RenderReport {
  /** `rendered`; `as-received` (auto mode judged the HTML not script-built); `failed` (see `reason`). */
  outcome: "rendered" | "as-received" | "failed";
  /** For `failed`: crashed, deadline, browser; for `as-received`: the detector's verdict. */
  reason?: string;
  /** Links the rendered DOM had that the HTML as received did not. */
  extraLinks: number;
  /** Requests the page made that were answered by fetching from its host (the page itself not counted). */
  hostRequests: number;
  /** Browser restarts (a crash, a kill, the memory cap) the fetch side saw since its last report. */
  browserRestarts?: number;
  /** One of the render's requests to the page's host was answered 429 or 503: the host asked us to slow down. */
  hostThrottled?: boolean;
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
  /** Time within the fetch the fetching process was not running (core/model FetchResponse.pausedMs); absent: none. */
  pausedMs?: number;
  /** The crawl job of the task's URL (its number, core/jobs), as the task said; absent: job `default` (0). */
  job?: number;
  /**
   * The fetching side's clock when it handed the result over (to another thread or to the bus); the
   * receiver shifts startedAt and endedAt by its receipt time minus this, then drops it.
   */
  sentAt?: number;
  /**
   * How long the request waited for its server's pass (the cap per address, core/ports AddressGate), in ms;
   * absent: it did not wait. Counted where the fetch ran; not sent over the bus.
   */
  serverWaitMs?: number;
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
  /**
   * The page is a near duplicate (SimHash within 3 bits) of this URL: it was stored as a revisit record
   * naming it, and its links come at the lowest priority.
   */
  nearDuplicateOf?: string;
  linksFound: number;
  /** Media URLs (images, video, audio) the page names, listed in the WARC and the media list. */
  mediaFound?: number;
  /** For a robots task: the final verdict and, when "parse", the robots.txt text. */
  robots?: { verdict: "allow-all" | "disallow-all" | "parse"; text?: string };
  /** Bytes stored (after decompression); 0 when nothing was stored. */
  bytes: number;
  truncated?: boolean;
  /** For a sitemap task that got a 2xx: what the sitemap held (its entries travel as links). */
  sitemap?: SitemapSummary;
  /** For a page task that asked for rendering: what it did. */
  render?: RenderReport;
  /** The response's Content-Type header (at most 200 characters); absent without a response or header. */
  contentType?: string;
  /** Where the response (or revisit) record was stored; absent when nothing was. */
  warc?: RecordLocation;
  /** Where the WET conversion record with the page's extracted text was stored; absent when none was. */
  text?: RecordLocation;
}

/**
 * One record in a WARC or WET file, enough to read it back with one ranged read: the file as written (a bare
 * name on the fetching process's disk) or, when files are uploaded, its object URL (`s3://bucket/key`),
 * the byte offset of the record's gzip member, and that member's length.
 */
export interface RecordLocation {
  file: string;
  offset: number;
  length: number;
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
  /** For `local`: which of our own resources failed (the host was not asked, and is not blamed). */
  local?: LocalCause;
  /** For `local`: the error, in words (for the one warning the process logs). */
  message?: string;
}

/** A failure of our own side (proxy, ports, file table, resolver): the task is given back, the host not blamed. */
export function isLocalFailure(result: FetchResult): result is NetworkErrorResult & { error: "local"; local: LocalCause } {
  return result.kind === "network-error" && result.error === "local";
}

/**
 * The request waited for its server address's cap (AddressGate) and got no pass in time: never made, the
 * task goes back to its host's queue, neither the host nor our own side is to blame. Ask before isLocalFailure.
 */
export function isAddressBusy(result: FetchResult): boolean {
  return result.kind === "network-error" && result.error === "local" && result.local === "address-busy";
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
  /** Set when the URL is a sitemap to read (from robots.txt or an index), not a page to fetch. */
  sitemap?: SitemapRef;
  /** A sitemap entry's `<lastmod>`, epoch milliseconds. */
  lastmod?: number;
  /** A sitemap entry's `<priority>`, 0 to 1. */
  sitemapPriority?: number;
  /** "media": a media file a page named (--fetch-media), fetched as a media task; absent: a page. */
  kind?: UrlKind;
  /** Found on a page that was a near duplicate of another: queued at the lowest priority (3). */
  foundOnNearDuplicate?: boolean;
  /** The crawl job's number (core/jobs), inherited from the page it was found on; absent: job `default` (0). */
  job?: number;
  /** Found only in the page's rendered DOM (not in its HTML as received). */
  foundByRender?: boolean;
}

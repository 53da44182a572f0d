/**
 * One HTTP request and its response as the fetch step saw them, with the body already decompressed: what
 * a page store (the WARC writer) keeps of a fetch.
 */

export interface CapturedExchange {
  url: string;
  /** When the response arrived, epoch ms. Becomes WARC-Date of both records. */
  fetchedAt: number;
  remoteAddress?: string;
  /** "1.1", "2" or a full "HTTP/1.1". */
  httpVersion: string;
  requestHeaders: Record<string, string>;
  /** Default "GET". */
  method?: string;
  status: number;
  statusText?: string;
  responseHeaders: Record<string, string>;
  /** The payload after Content-Encoding was removed. */
  body: Uint8Array;
  /** The body was cut at the size cap. */
  truncated?: boolean;
  /** The Content-Encoding that was decoded away (e.g. "gzip"), when known. */
  contentEncodingRemoved?: string;
  /**
   * Keep this exchange as a `revisit` record (the response's headers, no payload) instead of a `response`:
   * its payload is a duplicate of what `refersTo` names. See docs/warc.md.
   */
  revisit?: Revisit;
  /** Media URLs the page names: a `metadata` record tied to the response lists them, and the media list. */
  media?: readonly MediaRef[];
  /** An HTML page's title and visible text, as parsed: kept as a WET conversion record when text is kept. */
  text?: PageText;
}

/** What a page's WET record holds: its title (when it has one) and its visible text. */
export interface PageText {
  title?: string;
  text: string;
}

/**
 * Why a payload is left out: `identical-payload-digest` (WARC 1.1's profile: byte for byte the payload of
 * `refersToUri`, or of this URL's previous visit) or `near-duplicate` (this project's profile: SimHash
 * within 3 bits of the page `refersToUri`, see docs/warc.md).
 */
export interface Revisit {
  profile: "identical-payload-digest" | "near-duplicate";
  /** The URL whose stored capture holds the (same or nearly the same) content. */
  refersToUri: string;
  /** The 64-bit SimHash of this page's text (16 hex digits), for a near duplicate. */
  simhash?: string;
}

/** One media URL a page names, and where: the element and attribute (`img/@srcset`, `video/@poster`). */
export interface MediaRef {
  /** Absolute, normalized URL. */
  url: string;
  kind: "image" | "video" | "audio";
  /** `element/@attribute` it was found in. */
  via: string;
}

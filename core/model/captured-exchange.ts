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
}

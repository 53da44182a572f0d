/**
 * What one HTTP fetch asks for and how it ended, as the fetch path's HTTP step reports it: a response
 * (status, headers, decompressed body) or an error whose kind tells the crawler how to react. A fetch never
 * throws for a network problem. These are plain data, shared by the fetch path, its ports and the frontier.
 */

export interface FetchRequest {
  /** Absolute http(s) URL; a fragment is not sent. */
  url: string;
  /** Validator from the last fetch, sent as If-None-Match. */
  etag?: string;
  /** Validator from the last fetch, sent as If-Modified-Since. */
  lastModified?: string;
  /** Aborting it ends the fetch with an `aborted` outcome. */
  signal?: AbortSignal;
}

export type FetchErrorKind =
  | "dns"
  | "blocked-address"
  | "refused"
  | "connect-timeout"
  | "timeout"
  | "reset"
  | "tls"
  | "bad-response"
  | "aborted"
  | "other";

export interface FetchResponse {
  kind: "response";
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined by ', '. */
  headers: Record<string, string>;
  /** The body, decoded from its Content-Encoding unless `unsupportedEncoding` is set. */
  body: Uint8Array;
  /** The body was cut at maxBodyBytes (or its encoded bytes ran far past that without decoding to it). */
  truncated: boolean;
  /** The Content-Encoding the server sent, when it sent one other than identity. */
  contentEncoding?: string;
  /** The Content-Encoding was not one we decode: `body` holds the encoded bytes as received. */
  unsupportedEncoding?: boolean;
  /** The address connected to; absent through a proxy, which resolves names itself. */
  remoteAddress?: string;
  /** Epoch milliseconds when the request started and when the body was complete. */
  startedAt: number;
  endedAt: number;
  /** The headers sent, lower-case names, Host included (for the WARC request record). */
  requestHeaders: Record<string, string>;
  /** The HTTP version the client spoke: always '1.1' (HTTP/2 is not negotiated, see dispatcher.ts; undici does not expose a server's HTTP/1.0 status line). */
  httpVersion: string;
}

export interface FetchError {
  kind: "error";
  url: string;
  error: FetchErrorKind;
  message: string;
  startedAt: number;
  endedAt: number;
}

export type FetchOutcome = FetchResponse | FetchError;

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
  /** Body cap of this request, in place of the fetcher's own (a media fetch has its own cap). */
  maxBodyBytes?: number;
}

/**
 * How a fetch failed: the one set of kinds the whole crawl uses (the HTTP step reports it, a result carries
 * it, counters are named after it, a host's politeness state records the last one).
 *
 *   dns              the name did not resolve
 *   refused          connection refused, or the host or network unreachable
 *   connect-timeout  no connection within the connect timeout
 *   timeout          no complete response within the response timeout
 *   reset            the connection broke
 *   tls              the TLS handshake failed
 *   bad-response     the server broke HTTP, or the body did not decode
 *   other            anything else
 *   blocked-address  the address is in a refused range: the crawler never asked the host
 *   aborted          the crawler stopped the fetch itself
 *   local            our own side failed before the host was asked: the egress proxy refused or could not
 *                    be reached, no local port or file descriptor was left, the kernel had no buffers, the
 *                    local resolver failed every name (`local` says which; see LocalCause)
 *
 * The reactions: the first eight are the host failing (the URL follows the retry schedule, the host's gap
 * grows, an unreadable robots.txt parks the host); `blocked-address` is a refusal of our own, so the task
 * is skipped and the URL never retried (see SkipReason); `aborted` is not the host's fault, so the task is
 * given back rather than reported; `local` is not either: the task is given back untouched and the process
 * slows down as a whole until the local resource is back (engine/fetch LocalTrouble).
 */
const FETCH_ERROR_KINDS = [
  "dns",
  "blocked-address",
  "refused",
  "connect-timeout",
  "timeout",
  "reset",
  "tls",
  "bad-response",
  "aborted",
  "local",
  "other",
] as const;

export type FetchErrorKind = (typeof FETCH_ERROR_KINDS)[number];

/** Whether `value` names a fetch error kind (input from the wire or a store). */
export function isFetchErrorKind(value: unknown): value is FetchErrorKind {
  return (FETCH_ERROR_KINDS as readonly unknown[]).includes(value);
}

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
  /** The server the cap per address counted the request against (`ip:…` or `domain:…`), when a cap was on. */
  server?: string;
  /** How long the request waited for its server's pass, in ms (with `server`). */
  serverWaitMs?: number;
  /** Epoch milliseconds when the request started and when the body was complete. */
  startedAt: number;
  endedAt: number;
  /**
   * Time within the fetch during which this process was not running (stopped, or its loop blocked, for
   * over a second: the response deadline gives that time back to the host). Not the host's time: it is
   * left out of the fetch's duration that politeness multiplies. Absent: none.
   */
  pausedMs?: number;
  /** The headers sent, lower-case names, Host included (for the WARC request record). */
  requestHeaders: Record<string, string>;
  /** The HTTP version the client spoke: always '1.1' (HTTP/2 is not negotiated, see dispatcher.ts; undici does not expose a server's HTTP/1.0 status line). */
  httpVersion: string;
}

/**
 * Which of our own resources failed a fetch of kind `local`, so the warning can name it and the setting that
 * helps: the egress proxy refusing or unreachable, or asking for credentials; no local port left for a new
 * connection (EADDRNOTAVAIL); the file table full (EMFILE, ENFILE); no kernel buffers (ENOBUFS, ENOMEM);
 * the local resolver failing for every name at once. `address-busy` is apart: the cap per server address
 * (core/ports AddressGate) gave no pass within its wait, so the request was never made; the task goes back
 * to its host's queue and nothing slows down (`isAddressBusy`), since the other servers are not busy.
 */
export type LocalCause = "proxy-unreachable" | "proxy-auth" | "local-ports" | "file-table" | "kernel-buffers" | "resolver" | "address-busy";

export interface FetchError {
  kind: "error";
  url: string;
  error: FetchErrorKind;
  message: string;
  /** For `local`: which of our own resources failed. */
  local?: LocalCause;
  /** For `blocked-address`: the address policy's reason (core/net RefusalReason: `loopback`, `metadata`...). */
  refusal?: string;
  /** As FetchResponse's: the server the cap counted the request against, and the wait for its pass. */
  server?: string;
  serverWaitMs?: number;
  startedAt: number;
  endedAt: number;
  /**
   * Time within the fetch during which this process was not running (stopped, or its loop blocked, for
   * over a second: the response deadline gives that time back to the host). Not the host's time: it is
   * left out of the fetch's duration that politeness multiplies. Absent: none.
   */
  pausedMs?: number;
}

export type FetchOutcome = FetchResponse | FetchError;

/** The head of a response whose body is read as a stream (`StreamingFetcher`): everything but the body. */
export interface StreamedResponseHead {
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined by ', '. */
  headers: Record<string, string>;
  /** The Content-Encoding the server sent (other than identity); the stream is already decoded from it. */
  contentEncoding?: string;
  remoteAddress?: string;
  /** As FetchResponse's. */
  server?: string;
  serverWaitMs?: number;
  startedAt: number;
  requestHeaders: Record<string, string>;
  httpVersion: string;
}

/** A response read as a stream: its head, when the reading ended, and what the reader made of the body. */
export interface StreamedResponse<T> extends StreamedResponseHead {
  kind: "response";
  endedAt: number;
  /**
   * Time within the fetch during which this process was not running (stopped, or its loop blocked, for
   * over a second: the response deadline gives that time back to the host). Not the host's time: it is
   * left out of the fetch's duration that politeness multiplies. Absent: none.
   */
  pausedMs?: number;
  value: T;
}

export type StreamOutcome<T> = StreamedResponse<T> | FetchError;

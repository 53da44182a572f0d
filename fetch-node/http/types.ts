/**
 * The contract of the HTTP fetch step: its options, one request, and the outcome the rest of the
 * fetch path consumes (storage writes the outcome as WARC request/response records; the result sent
 * to the frontier is derived from it). A fetch never throws for a network problem: every failure
 * comes back as an `error` outcome whose `error` kind tells the crawler how to react.
 */
import type { LookupFn } from './dns-cache.ts'

export interface HttpFetcherOptions {
  /** Sent as User-Agent on every request, robots.txt included. */
  userAgent: string
  /** Time allowed to resolve the name and open the TCP (and TLS) connection. Policy default 5000. */
  connectTimeoutMs: number
  /** Time allowed for the whole response, body included, from the moment the request starts. Policy default 20000. */
  responseTimeoutMs: number
  /** Body bytes kept, counted after decompression; the rest is dropped and `truncated` set. Policy default 5 MiB. */
  maxBodyBytes: number
  /**
   * HTTP forward proxy for every request. http targets go in absolute form, https targets through
   * CONNECT. The proxy is trusted to resolve names and to apply its own address policy: with a proxy
   * the crawler resolves nothing itself.
   */
  proxyUrl?: string
  /** Allow loopback, private, link-local and similar ranges (tests, intranet crawls). Metadata addresses stay refused. Default false. */
  allowPrivateAddresses?: boolean
  /** How long a DNS answer is reused. Default 5 minutes. */
  dnsCacheTtlMs?: number
  /** How long a failed DNS lookup is remembered. Default 30 seconds. */
  dnsNegativeTtlMs?: number
  /** Connections opened to one origin at most (politeness). Default 1. */
  maxConnectionsPerOrigin?: number
  /**
   * Requests in flight at most across all origins, so busy sockets are bounded; extra fetches wait
   * for a slot (the response deadline starts once they have one). Default 256.
   */
  maxConcurrentRequests?: number
  /** How long an idle keep-alive connection is kept (servers may ask for less). Default 4000. */
  keepAliveTimeoutMs?: number
  /** Resolver, injectable for tests. Default: the system resolver (`node:dns` lookup). */
  lookup?: LookupFn
}

export interface FetchRequest {
  /** Absolute http(s) URL; a fragment is not sent. */
  url: string
  /** Validator from the last fetch, sent as If-None-Match. */
  etag?: string
  /** Validator from the last fetch, sent as If-Modified-Since. */
  lastModified?: string
  /** Aborting it ends the fetch with an `aborted` outcome. */
  signal?: AbortSignal
}

export type FetchErrorKind =
  | 'dns' | 'blocked-address' | 'refused' | 'connect-timeout' | 'timeout' | 'reset' | 'tls'
  | 'bad-response' | 'aborted' | 'other'

export interface FetchResponse {
  kind: 'response'
  url: string
  status: number
  /** Lower-case names; repeated headers joined by ', '. */
  headers: Record<string, string>
  /** The body, decoded from its Content-Encoding unless `unsupportedEncoding` is set. */
  body: Uint8Array
  /** The body was cut at maxBodyBytes (or its encoded bytes ran far past that without decoding to it). */
  truncated: boolean
  /** The Content-Encoding the server sent, when it sent one other than identity. */
  contentEncoding?: string
  /** The Content-Encoding was not one we decode: `body` holds the encoded bytes as received. */
  unsupportedEncoding?: boolean
  /** The address connected to; absent through a proxy, which resolves names itself. */
  remoteAddress?: string
  /** Epoch milliseconds when the request started and when the body was complete. */
  startedAt: number
  endedAt: number
  /** The headers sent, lower-case names, Host included (for the WARC request record). */
  requestHeaders: Record<string, string>
  /** The HTTP version the client spoke: always '1.1' (HTTP/2 is not negotiated, see dispatcher.ts; undici does not expose a server's HTTP/1.0 status line). */
  httpVersion: string
}

export interface FetchError {
  kind: 'error'
  url: string
  error: FetchErrorKind
  message: string
  startedAt: number
  endedAt: number
}

export type FetchOutcome = FetchResponse | FetchError

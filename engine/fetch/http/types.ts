/**
 * The contract of the HTTP fetch step: its options, one request, and the outcome the rest of the
 * fetch path consumes (storage writes the outcome as WARC request/response records; the result sent
 * to the frontier is derived from it). A fetch never throws for a network problem: every failure
 * comes back as an `error` outcome whose `error` kind tells the crawler how to react.
 */
import type { AddressPolicy } from "../../../core/net/index.ts";
import type { LookupFn } from "./dns-cache.ts";
import type { AddressGate } from "../../../core/ports/index.ts";
export type {
  FetchError,
  FetchErrorKind,
  FetchOutcome,
  LocalCause,
  FetchRequest,
  FetchResponse,
  StreamedResponseHead,
  StreamOutcome,
} from "../../../core/model/index.ts";

export interface HttpFetcherOptions {
  /** Sent as User-Agent on every request, robots.txt included. */
  userAgent: string;
  /** Time allowed to resolve the name and open the TCP (and TLS) connection. Policy default 5000. */
  connectTimeoutMs: number;
  /** Time allowed for the whole response, body included, from the moment the request starts. Policy default 20000. */
  responseTimeoutMs: number;
  /** Body bytes kept, counted after decompression; the rest is dropped and `truncated` set. Policy default 5 MiB. */
  maxBodyBytes: number;
  /**
   * HTTP forward proxy for every request. http targets go in absolute form, https targets through
   * CONNECT. The proxy resolves names, so with a proxy the crawler resolves nothing itself: hosts are
   * still judged by their spelling (literal addresses, localhost, local names, deny lists) before any
   * request, but a name that resolves to an internal address can only be refused by the proxy, which
   * must apply the same policy.
   */
  proxyUrl?: string;
  /**
   * What may be fetched (core/net): every host is judged by its spelling before any request, and without
   * a proxy every address it resolves to is judged at connect time. Default: the strict policy (no
   * internal address, no local name, no deny lists).
   */
  addressPolicy?: AddressPolicy;
  /** How long a DNS answer is reused. Default 5 minutes. */
  dnsCacheTtlMs?: number;
  /** How long a failed DNS lookup is remembered. Default 30 seconds. */
  dnsNegativeTtlMs?: number;
  /** Connections opened to one origin at most (politeness). Default 1. */
  maxConnectionsPerOrigin?: number;
  /**
   * Requests in flight at most across all origins, so busy sockets are bounded; extra fetches wait
   * for a slot (the response deadline starts once they have one). Default 256.
   */
  maxConcurrentRequests?: number;
  /** How long an idle keep-alive connection is kept (servers may ask for less). Default: the policy's `keepAliveMs`. */
  keepAliveTimeoutMs?: number;
  /** Resolver, injectable for tests. Default: the system resolver (`node:dns` lookup). */
  lookup?: LookupFn;
  /**
   * The cap per server address: each request first enters the gate for its server (its resolved address, or
   * through a proxy its host's registrable domain) and leaves when its response has ended. Borrowed: the
   * caller closes it. Default: none (no cap beyond each origin's own).
   */
  addressGate?: AddressGate;
  /** How long a request waits for its server's pass before it is given back (`address-busy`). Default ADDRESS_WAIT_MS. */
  addressWaitMs?: number;
  /**
   * The gate's gap runs from the end of each response, not from the start of its answer (`--politeness-key
   * ip`: the address is the politeness key, and the gap is kept from one request's end to the next's start).
   */
  addressGapFromEnd?: boolean;
}

/**
 * The HTTP fetch step: one GET per call, no redirects followed (a 3xx comes back with its Location,
 * and the crawler re-enqueues the target so each hop passes robots, politeness and the seen check),
 * conditional headers when validators are known, the body decoded and capped, and every failure
 * turned into an `error` outcome whose kind says how to react. Before any request the host is judged
 * by the address policy (core/net), with or without a proxy, so a task that reaches a fetch node for
 * `http://2130706433/` or `http://localhost/` is refused here even if admission let it through; without
 * a proxy the connector also judges every address a name resolves to. The same fetcher serves pages and
 * robots.txt; nothing here knows the difference. It owns its undici dispatcher and DNS cache, so
 * `close()` ends every connection it opened.
 */
import { preciseNow } from "../../../core/politeness/index.ts";
import { readBody, normalizeEncoding } from "./body.ts";
import { Deadline } from "./deadline.ts";
import { createDispatcher } from "./dispatcher.ts";
import { DnsCache } from "./dns-cache.ts";
import { AddressPolicy, describeRefusal } from "../../../core/net/index.ts";
import { describe, errorKind, refusalIn } from "./errors.ts";
import { buildRequestHeaders, flattenHeaders } from "./headers.ts";
import { Slots } from "./slots.ts";
import type { FetchError, FetchErrorKind, FetchOutcome, FetchRequest, HttpFetcherOptions } from "./types.ts";
import { assertRealUndici, request } from "./undici.ts";
import type { Dispatcher } from "./undici.ts";

const MAX_REMEMBERED_ORIGINS = 10_000;

export class HttpFetcher {
  readonly #userAgent: string;
  readonly #responseTimeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #proxied: boolean;
  readonly #addressPolicy: AddressPolicy;
  readonly #dns: DnsCache;
  readonly #dispatcher: Dispatcher;
  readonly #slots: Slots;
  /** The address each origin's newest connection went to, for `remoteAddress`. */
  readonly #addresses = new Map<string, string>();
  #closing: Promise<void> | undefined;

  constructor(options: HttpFetcherOptions) {
    assertRealUndici();
    validate(options);
    this.#userAgent = options.userAgent;
    this.#responseTimeoutMs = options.responseTimeoutMs;
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#proxied = options.proxyUrl !== undefined;
    this.#addressPolicy = options.addressPolicy ?? new AddressPolicy();
    this.#dns = new DnsCache({ lookup: options.lookup, ttlMs: options.dnsCacheTtlMs, negativeTtlMs: options.dnsNegativeTtlMs });
    this.#slots = new Slots(options.maxConcurrentRequests ?? 256);
    this.#dispatcher = createDispatcher({
      connectTimeoutMs: options.connectTimeoutMs,
      responseTimeoutMs: options.responseTimeoutMs,
      connectionsPerOrigin: options.maxConnectionsPerOrigin ?? 1,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 4000,
      proxyUrl: options.proxyUrl,
      dns: this.#dns,
      addressPolicy: this.#addressPolicy,
      onConnected: (origin, address) => this.#rememberAddress(origin, address),
    });
  }

  /** Fetches `req.url` once. Never rejects for network, protocol or content problems. */
  async fetch(req: FetchRequest): Promise<FetchOutcome> {
    const queuedAt = preciseNow();
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return failure(req.url, "other", "not a valid absolute URL", queuedAt);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return failure(req.url, "other", `unsupported scheme ${url.protocol}`, queuedAt);
    }
    const refusal = this.#addressPolicy.checkHost(url.hostname);
    if (refusal) {
      return {
        ...failure(req.url, "blocked-address", `refused before any request: ${describeRefusal(refusal)}`, queuedAt),
        refusal: refusal.reason,
      };
    }
    if (this.#closing) return failure(req.url, "aborted", "the fetcher is closed", queuedAt);
    try {
      await this.#slots.acquire(req.signal);
    } catch (error) {
      return failure(req.url, "aborted", `aborted while waiting for a request slot: ${describe(error)}`, queuedAt);
    }
    try {
      return await this.#fetchHoldingSlot(url, req);
    } finally {
      this.#slots.release();
    }
  }

  /** Turns waiting fetches away, aborts running ones and closes every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#slots.close();
      await this.#dispatcher.destroy();
      this.#dns.close();
      this.#addresses.clear();
    })();
    return this.#closing;
  }

  async #fetchHoldingSlot(url: URL, req: FetchRequest): Promise<FetchOutcome> {
    // Politeness clock (sub-millisecond, monotonic): the frontier's gap is 10 × endedAt − startedAt.
    const startedAt = preciseNow();
    const requestHeaders = buildRequestHeaders(url, { userAgent: this.#userAgent, etag: req.etag, lastModified: req.lastModified });
    const deadline = new Deadline(this.#responseTimeoutMs, req.signal);
    const target = new URL(url);
    target.hash = "";
    try {
      const response = await request(target, {
        dispatcher: this.#dispatcher,
        method: "GET",
        headers: requestHeaders,
        signal: deadline.signal,
      });
      const headers = flattenHeaders(response.headers);
      const contentEncoding = normalizeEncoding(headers["content-encoding"]);
      const { body, truncated, unsupportedEncoding } = await readBody(response.body, contentEncoding, this.#maxBodyBytes);
      const remoteAddress = this.#proxied ? undefined : this.#addresses.get(url.origin);
      return {
        kind: "response",
        url: req.url,
        status: response.statusCode,
        headers,
        body,
        truncated,
        ...(contentEncoding ? { contentEncoding } : {}),
        ...(unsupportedEncoding ? { unsupportedEncoding } : {}),
        ...(remoteAddress ? { remoteAddress } : {}),
        startedAt,
        // The body has been read to its end (or cut at the cap and the connection let go): the host is free.
        endedAt: preciseNow(),
        requestHeaders,
        httpVersion: "1.1",
      };
    } catch (error) {
      const outcome = failure(req.url, classify(error, deadline), explain(error, deadline), startedAt);
      const refusal = outcome.error === "blocked-address" ? refusalIn(error) : undefined;
      return refusal ? { ...outcome, refusal: refusal.reason } : outcome;
    } finally {
      deadline.dispose();
    }
  }

  #rememberAddress(origin: string, address: string): void {
    this.#addresses.delete(origin);
    this.#addresses.set(origin, address);
    if (this.#addresses.size > MAX_REMEMBERED_ORIGINS) {
      const oldest = this.#addresses.keys().next().value;
      if (oldest !== undefined) this.#addresses.delete(oldest);
    }
  }
}

/** Who ended the fetch decides first: the caller's abort, then our deadline, then the error itself. */
function classify(error: unknown, deadline: Deadline): FetchErrorKind {
  if (deadline.callerAborted) return "aborted";
  if (deadline.timedOut) return "timeout";
  return errorKind(error);
}

function explain(error: unknown, deadline: Deadline): string {
  if (deadline.callerAborted) return "aborted by the caller";
  if (deadline.timedOut) return `no complete response within ${deadline.timeoutMs} ms`;
  return describe(error);
}

function failure(url: string, error: FetchErrorKind, message: string, startedAt: number): FetchError {
  return { kind: "error", url, error, message, startedAt, endedAt: preciseNow() };
}

function validate(options: HttpFetcherOptions): void {
  if (!options.userAgent || /[\r\n]/.test(options.userAgent)) {
    throw new TypeError("HttpFetcher: userAgent must be a non-empty single-line string");
  }
  const positive: Array<[string, number | undefined]> = [
    ["connectTimeoutMs", options.connectTimeoutMs],
    ["responseTimeoutMs", options.responseTimeoutMs],
    ["maxBodyBytes", options.maxBodyBytes],
    ["dnsCacheTtlMs", options.dnsCacheTtlMs],
    ["dnsNegativeTtlMs", options.dnsNegativeTtlMs],
    ["maxConnectionsPerOrigin", options.maxConnectionsPerOrigin],
    ["maxConcurrentRequests", options.maxConcurrentRequests],
    ["keepAliveTimeoutMs", options.keepAliveTimeoutMs],
  ];
  for (const [name, value] of positive) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new RangeError(`HttpFetcher: ${name} must be a positive number, got ${value}`);
    }
  }
  if (options.proxyUrl !== undefined) {
    let proxy: URL;
    try {
      proxy = new URL(options.proxyUrl);
    } catch {
      throw new TypeError(`HttpFetcher: proxyUrl is not a URL: ${options.proxyUrl}`);
    }
    if (proxy.protocol !== "http:" && proxy.protocol !== "https:") {
      throw new TypeError(`HttpFetcher: proxyUrl must be http: or https:, got ${proxy.protocol}`);
    }
  }
}

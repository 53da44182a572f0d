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
import { DEFAULT_POLICY } from "../../../core/config/index.ts";
import { preciseNow } from "../../../core/politeness/index.ts";
import { readBody, normalizeEncoding } from "./body.ts";
import { decodeStream, plainStream } from "./body-stream.ts";
import { DECODERS, isDecodeError } from "./decoders.ts";
import { Deadline } from "./deadline.ts";
import { createDispatcher } from "./dispatcher.ts";
import { DnsCache } from "./dns-cache.ts";
import { AddressPolicy, describeRefusal } from "../../../core/net/index.ts";
import { BadEncodingError, describe, droppedConnection, errorKind, localCauseOf, refusalIn } from "./errors.ts";
import { buildRequestHeaders, flattenHeaders } from "./headers.ts";
import { proxyListens } from "./proxy-probe.ts";
import { ProxyStallWatch } from "./proxy-stall-watch.ts";
import { Slots } from "./slots.ts";
import { serverKeyOf } from "./server-key.ts";
import type { AddressGate, AddressPass } from "../../../core/ports/index.ts";
import type {
  FetchError,
  FetchErrorKind,
  FetchOutcome,
  FetchRequest,
  HttpFetcherOptions,
  StreamedResponseHead,
  StreamOutcome,
} from "./types.ts";
import { assertRealUndici } from "./undici.ts";
import { sendGet, type ResponseStart } from "./exchange.ts";
import type { Dispatcher } from "./undici.ts";

const MAX_REMEMBERED_ORIGINS = 10_000;
/**
 * How long nothing may come back through the proxy, with requests under way, before it is probed
 * (proxy-stall-watch.ts): well inside the response deadline, so a partition is found while it lasts and a
 * request it holds is not timed out, and blamed on its host, after it healed. Half the deadline when that is shorter.
 */
const PROXY_STALL_MS = 3_000;
/**
 * How long a request waits for its server's pass (the cap per address) before its task goes back to its
 * host's queue: long enough that a busy server's queue moves, short enough that a task never nears the
 * frontier's fetch lease, and a given-back host waits its own gap before it is tried again.
 */
export const ADDRESS_WAIT_MS = 5_000;

export class HttpFetcher {
  readonly #userAgent: string;
  readonly #responseTimeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #proxied: boolean;
  readonly #proxyUrl: string | undefined;
  readonly #addressPolicy: AddressPolicy;
  readonly #dns: DnsCache;
  /** Replaced, connections and all, when the proxy is found out of reach (`#proxyLost`). */
  #dispatcher: Dispatcher;
  readonly #newDispatcher: () => Dispatcher;
  readonly #slots: Slots;
  readonly #addressGate: AddressGate | undefined;
  readonly #addressWaitMs: number;
  readonly #addressGapFromEnd: boolean;
  readonly #connectTimeoutMs: number;
  /** The address each origin's newest connection went to, for `remoteAddress`. */
  readonly #addresses = new Map<string, string>();
  /** The deadlines of the requests through the proxy under way, to end them when the proxy is found out of reach. */
  readonly #throughProxy = new Set<Deadline>();
  /** Set when a request found the proxy out of reach, cleared when one gets an answer through it again. */
  #proxyDownSince: number | undefined;
  /** With a proxy: finds it out of reach while requests hang in a partition, before their deadlines. */
  readonly #stallWatch: ProxyStallWatch | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: HttpFetcherOptions) {
    assertRealUndici();
    validate(options);
    this.#userAgent = options.userAgent;
    this.#responseTimeoutMs = options.responseTimeoutMs;
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#proxied = options.proxyUrl !== undefined;
    this.#proxyUrl = options.proxyUrl;
    this.#addressPolicy = options.addressPolicy ?? new AddressPolicy();
    this.#dns = new DnsCache({ lookup: options.lookup, ttlMs: options.dnsCacheTtlMs, negativeTtlMs: options.dnsNegativeTtlMs });
    this.#slots = new Slots(options.maxConcurrentRequests ?? 256);
    this.#addressGate = options.addressGate;
    this.#addressWaitMs = options.addressWaitMs ?? ADDRESS_WAIT_MS;
    this.#addressGapFromEnd = options.addressGapFromEnd ?? false;
    this.#connectTimeoutMs = options.connectTimeoutMs;
    this.#newDispatcher = () =>
      createDispatcher({
        connectTimeoutMs: options.connectTimeoutMs,
        responseTimeoutMs: options.responseTimeoutMs,
        connectionsPerOrigin: options.maxConnectionsPerOrigin ?? 1,
        keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULT_POLICY.keepAliveMs,
        proxyUrl: options.proxyUrl,
        proxyConnections: options.maxConcurrentRequests ?? 256,
        dns: this.#dns,
        addressPolicy: this.#addressPolicy,
        onConnected: (origin, address) => this.#rememberAddress(origin, address),
      });
    this.#dispatcher = this.#newDispatcher();
    const proxyUrl = options.proxyUrl;
    this.#stallWatch =
      proxyUrl === undefined
        ? undefined
        : new ProxyStallWatch({
            stallMs: Math.min(PROXY_STALL_MS, options.responseTimeoutMs / 2),
            probe: () => proxyListens(proxyUrl),
            onLost: (stalledMs) =>
              this.#proxyLost(`nothing came back through it for ${Math.round(stalledMs)} ms and it takes no new connection`),
            now: preciseNow,
          });
  }

  /** Fetches `req.url` once. Never rejects for network, protocol or content problems. */
  fetch(req: FetchRequest): Promise<FetchOutcome> {
    return this.#withSlot(req, (url, onAnswer) => this.#fetchHoldingSlot(url, req, onAnswer));
  }

  /**
   * Fetches `req.url` once and hands its body to `read` as a stream, decoded from its Content-Encoding,
   * never gathered whole (StreamingFetcher). The response deadline covers `read`. Encoded bytes are capped
   * at `maxBytes` plus a sixteenth, so a body that decodes to nothing cannot run on; decoded bytes are
   * `read`'s to count. The same address policy and request slots as `fetch`. Never rejects for network,
   * protocol or content problems.
   */
  stream<T>(
    req: FetchRequest,
    read: (head: StreamedResponseHead, body: AsyncIterable<Uint8Array>) => Promise<T>,
    maxBytes: number,
  ): Promise<StreamOutcome<T>> {
    return this.#withSlot(req, (url, onAnswer) => this.#streamHoldingSlot(url, req, read, maxBytes, onAnswer));
  }

  /** The checks before any request (a usable URL, the address policy), then `run` holding a request slot. */
  async #withSlot<T>(req: FetchRequest, run: (url: URL, onAnswer: () => void) => Promise<T | FetchError>): Promise<T | FetchError> {
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
      // The server's pass last, just before the request: the next request to that server waits for this one's answer to begin.
      const server = await this.#enterServer(url, req, queuedAt);
      if (server.kind === "error") return server;
      try {
        // With the gap from the end, the pass is not marked arrived: leaving it counts as the arrival (the port's contract).
        const outcome = await run(url, () => (this.#addressGapFromEnd ? undefined : server.pass?.arrived()));
        if (server.pass && server.key && typeof outcome === "object" && outcome !== null) {
          Object.assign(outcome, { server: server.key, serverWaitMs: Math.round(server.pass.waitedMs) });
        }
        return outcome;
      } finally {
        server.pass?.leave();
      }
    } finally {
      this.#slots.release();
    }
  }

  /**
   * The pass of the request's server (the cap per address), held until the response has ended; none without
   * a gate, or for a name that does not resolve (the request fails at connect as it would anyway). No pass
   * within the wait: an `address-busy` outcome, the request never made.
   */
  async #enterServer(
    url: URL,
    req: FetchRequest,
    queuedAt: number,
  ): Promise<{ kind: "pass"; key?: string; pass?: AddressPass } | FetchError> {
    if (this.#addressGate === undefined) return { kind: "pass" };
    const key = await serverKeyOf(url, {
      proxied: this.#proxied,
      dns: this.#dns,
      addressPolicy: this.#addressPolicy,
      connectTimeoutMs: this.#connectTimeoutMs,
    });
    if (key === undefined) return { kind: "pass" };
    let pass: AddressPass | undefined;
    try {
      pass = await this.#addressGate.enter(key, this.#addressWaitMs, req.signal);
    } catch (error) {
      return failure(req.url, "aborted", `aborted while waiting for the server's turn (${key}): ${describe(error)}`, queuedAt);
    }
    if (pass === undefined) {
      const busy = failure(req.url, "local", `${key} stayed at its cap for ${this.#addressWaitMs} ms: the request was not made`, queuedAt);
      return { ...busy, local: "address-busy", server: key, serverWaitMs: this.#addressWaitMs };
    }
    return { kind: "pass", key, pass };
  }

  /** Turns waiting fetches away, aborts running ones and closes every connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#slots.close();
      this.#stallWatch?.close();
      await this.#dispatcher.destroy();
      this.#dns.close();
      this.#addresses.clear();
    })();
    return this.#closing;
  }

  /**
   * Sends the GET for `url` and hands the response to `handle`, timed on the politeness clock (sub-millisecond,
   * monotonic: the frontier's gap is 10 × endedAt − startedAt) and under the response deadline; whatever
   * throws, sending or handling, becomes a FetchError.
   */
  async #send<T>(
    url: URL,
    req: FetchRequest,
    onAnswer: () => void,
    handle: (response: ResponseStart, sent: { startedAt: number; requestHeaders: Record<string, string> }) => Promise<T>,
  ): Promise<T | FetchError> {
    const startedAt = preciseNow();
    const requestHeaders = buildRequestHeaders(url, { userAgent: this.#userAgent, etag: req.etag, lastModified: req.lastModified });
    const deadline = new Deadline(this.#responseTimeoutMs, req.signal);
    const target = new URL(url);
    target.hash = "";
    let answered = false;
    if (this.#proxied) {
      this.#throughProxy.add(deadline);
      this.#stallWatch?.started(deadline);
    }
    try {
      const response = await sendGet(this.#dispatcher, target, requestHeaders, deadline.signal, onAnswer);
      answered = true;
      this.#proxyDownSince = undefined;
      this.#stallWatch?.answered();
      return withPause(await handle(response, { startedAt, requestHeaders }), deadline);
    } catch (error) {
      const proxyGone = await this.#proxyGone(error, deadline, target, answered);
      const outcome: FetchError = proxyGone
        ? { ...failure(req.url, "local", proxyGone, startedAt), local: "proxy-unreachable" }
        : failed(req.url, error, deadline, startedAt, this.#proxied);
      if (outcome.local === "proxy-unreachable") this.#proxyLost();
      return withPause(outcome, deadline);
    } finally {
      this.#throughProxy.delete(deadline);
      // An end after an answer, by neither deadline nor interruption, means bytes came back through the proxy.
      this.#stallWatch?.ended(deadline, answered && !deadline.signal.aborted);
      deadline.dispose();
    }
  }

  /**
   * Whether a request through the proxy failed because the proxy was out of reach, not because of the host:
   * what went wrong (for the message), or undefined. Asked when a plain-http request's connection closed
   * before any answer (the proxy went away, or passed the host's reset on), and when any request ran out of
   * time: a slow host behind a proxy that still listens is the host's timeout, but a proxy gone silent (a
   * network partition between us and it drops packets and tells nobody) times out every request alike, and
   * booking those against their hosts would stretch each one's gap and fetch its page again for nothing.
   * It was out of reach if it takes no new connection now (proxy-probe.ts: refused or unanswered within
   * PROXY_PROBE_MS), or if another request found it so while this one ran, which ended this one then
   * (`#proxyLost`; otherwise it would time out at its deadline, when the link may be back already), or if
   * the stall watch found it so while nothing came back through it (proxy-stall-watch.ts), or if
   * it timed out while no request had got through since the proxy was found out of reach.
   */
  async #proxyGone(error: unknown, deadline: Deadline, target: URL, answered: boolean): Promise<string | undefined> {
    if (this.#proxyUrl === undefined || deadline.callerAborted) return undefined;
    if (deadline.interrupted)
      return "ended when the proxy was found out of reach (by another request, or while nothing came back through it)";
    if (deadline.timedOut && this.#proxyDownSince !== undefined) {
      // Sent while the proxy was out of reach (the probe of a node in local trouble, on a connection the
      // partition cut): it may be delivered when the link heals, after this deadline, and the proxy then
      // takes the check's connection; the host was never the one that failed to answer.
      return `no complete response within ${deadline.timeoutMs} ms, and no request has got through the proxy since it was found out of reach`;
    }
    const dropped = target.protocol === "http:" && !answered && !deadline.timedOut && droppedConnection(error);
    if (!dropped && !deadline.timedOut) return undefined;
    const what = dropped ? `the proxy dropped the request (${describe(error)})` : `no complete response within ${deadline.timeoutMs} ms`;
    if (await proxyListens(this.#proxyUrl)) return undefined;
    return `${what}, and the proxy takes no connection`;
  }

  /**
   * The proxy was found out of reach: every other request through it is caught in the same outage (across a
   * partition it would hang until its deadline, its task held that long), so each ends now as a local
   * failure, its task given back at once; its connection is reset (reset-on-abort.ts), so what it had not
   * sent cannot reach the proxy once the link is back.
   */
  #proxyLost(how = "by another request"): void {
    const reason = new Error(`the egress proxy was found out of reach: ${how}`);
    for (const deadline of this.#throughProxy) deadline.interrupt(reason);
    if (this.#proxyDownSince !== undefined) return;
    this.#proxyDownSince = preciseNow();
    // The idle connections to the proxy are as cut as the busy ones: a probe sent on one would wait for
    // TCP's next retransmission after the link heals (seconds), or its deadline. The next requests open
    // fresh ones, which connect (or time out connecting) as soon as the link allows.
    if (this.#closing) return;
    const old = this.#dispatcher;
    this.#dispatcher = this.#newDispatcher();
    old.destroy().catch(() => {});
  }

  #fetchHoldingSlot(url: URL, req: FetchRequest, onAnswer: () => void): Promise<FetchOutcome> {
    return this.#send(url, req, onAnswer, async (response, { startedAt, requestHeaders }): Promise<FetchOutcome> => {
      const headers = flattenHeaders(response.headers);
      const contentEncoding = normalizeEncoding(headers["content-encoding"]);
      const cap = req.maxBodyBytes !== undefined && req.maxBodyBytes > 0 ? req.maxBodyBytes : this.#maxBodyBytes;
      const { body, truncated, unsupportedEncoding } = await readBody(response.body, contentEncoding, cap);
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
    });
  }

  /** As #fetchHoldingSlot, the body streamed to `read` (a sitemap is a request to its host like any page). */
  #streamHoldingSlot<T>(
    url: URL,
    req: FetchRequest,
    read: (head: StreamedResponseHead, body: AsyncIterable<Uint8Array>) => Promise<T>,
    maxBytes: number,
    onAnswer: () => void,
  ): Promise<StreamOutcome<T>> {
    return this.#send(url, req, onAnswer, async (response, { startedAt, requestHeaders }): Promise<StreamOutcome<T>> => {
      const headers = flattenHeaders(response.headers);
      const contentEncoding = normalizeEncoding(headers["content-encoding"]);
      const decoder = contentEncoding === undefined ? undefined : DECODERS[contentEncoding];
      if (contentEncoding !== undefined && decoder === undefined) {
        response.body.destroy();
        return failure(req.url, "bad-response", `unsupported Content-Encoding ${contentEncoding}`, startedAt);
      }
      // When the body's end came (not its last data chunk: a server may write its last bytes and end the
      // response later, and the gap runs from that end), however long reading took after.
      let sourceEndedAt = startedAt;
      const source = (async function* () {
        for await (const chunk of response.body) yield chunk;
        sourceEndedAt = preciseNow();
      })();
      const body = decoder ? decodeStream(source, decoder, maxBytes + Math.floor(maxBytes / 16) + 65_536) : plainStream(source);
      const remoteAddress = this.#proxied ? undefined : this.#addresses.get(url.origin);
      const head: StreamedResponseHead = {
        url: req.url,
        status: response.statusCode,
        headers,
        ...(contentEncoding ? { contentEncoding } : {}),
        ...(remoteAddress ? { remoteAddress } : {}),
        startedAt,
        requestHeaders,
        httpVersion: "1.1",
      };
      let value: T;
      try {
        value = await read(head, body.chunks);
      } catch (error) {
        throw isDecodeError(error) ? new BadEncodingError(contentEncoding ?? "identity", error) : error;
      } finally {
        // A body not read to its end holds its connection: let it go.
        if (!body.sourceEnded()) response.body.destroy();
      }
      // Read to its end, the response ended when its end came (the gap after it is not stretched by our
      // own parsing after that); cut short, it ended when we hung up, which the server saw just now.
      return { ...head, kind: "response", endedAt: body.sourceEnded() ? sourceEndedAt : preciseNow(), value };
    });
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

/**
 * The outcome with the time this process was found not running during the fetch (deadline.ts), if any:
 * politeness leaves it out of the fetch's duration, which is the host's time only.
 */
function withPause<T>(outcome: T, deadline: Deadline): T {
  if (deadline.pausedMs > 0 && typeof outcome === "object" && outcome !== null) Object.assign(outcome, { pausedMs: deadline.pausedMs });
  return outcome;
}

/** The outcome of a request that threw: its kind, in words, and the address rule when one refused it. */
function failed(url: string, error: unknown, deadline: Deadline, startedAt: number, viaProxy: boolean): FetchError {
  // Our own side failing is told apart first: the host was never asked, and must not be blamed.
  const local = deadline.callerAborted || deadline.timedOut ? undefined : localCauseOf(error, viaProxy);
  if (local) return { ...failure(url, "local", describe(error), startedAt), local };
  const outcome = failure(url, classify(error, deadline), explain(error, deadline), startedAt);
  const refusal = outcome.error === "blocked-address" ? refusalIn(error) : undefined;
  return refusal ? { ...outcome, refusal: refusal.reason } : outcome;
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
    ["addressWaitMs", options.addressWaitMs],
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

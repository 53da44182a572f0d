/**
 * Fetch errors: the errors this folder raises itself, and the mapping from whatever undici, the
 * sockets and zlib throw to a {@link FetchErrorKind}, which is what the crawler reacts to (a dns or
 * refused error marks the host unreachable and retries later, a timeout doubles the host's gap, a
 * blocked address is never retried, a bad response counts as a broken page). The mapping reads error
 * codes, walking `cause` chains and AggregateErrors, because undici wraps socket errors and Bun and
 * Node word their messages differently but agree on codes.
 */
import { describeRefusal, type Refusal } from "../../../core/net/index.ts";
import type { FetchErrorKind, LocalCause } from "./types.ts";

/** A name did not resolve (or not in time). Reaction: treat the host as unreachable, retry later. */
export class DnsLookupError extends Error {
  readonly code = "ERR_CRAWLER_DNS";
  constructor(
    readonly host: string,
    cause: unknown,
  ) {
    super(`DNS lookup of ${host} failed: ${describe(cause)}`, { cause });
    this.name = "DnsLookupError";
  }
}

/**
 * Our own resolver is down: many names in a row failed alike (dns-cache.ts). Reaction: a local failure,
 * the task goes back and the host is not blamed.
 */
export class ResolverDownError extends Error {
  readonly code = "ERR_CRAWLER_RESOLVER_DOWN";
  constructor(host: string, names: number, cause: unknown) {
    super(`the resolver failed ${host} and the ${names - 1} names before it alike: ${describe(cause)}`, { cause });
    this.name = "ResolverDownError";
  }
}

/** The address policy (core/net) refused the target. Reaction: never retry this URL. */
export class BlockedAddressError extends Error {
  readonly code = "ERR_CRAWLER_BLOCKED_ADDRESS";
  constructor(readonly refusal: Refusal) {
    super(`refused to connect: ${describeRefusal(refusal)}`);
    this.name = "BlockedAddressError";
  }
}

/** The address policy's refusal carried by `error` or its causes, if it is a BlockedAddressError. */
export function refusalIn(error: unknown): Refusal | undefined {
  for (let e = error, depth = 0; e !== null && typeof e === "object" && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BlockedAddressError) return e.refusal;
  }
  return undefined;
}

/** The body's Content-Encoding did not decode. Reaction: count the page as broken. */
export class BadEncodingError extends Error {
  readonly code = "ERR_CRAWLER_BAD_ENCODING";
  constructor(
    readonly encoding: string,
    cause: unknown,
  ) {
    super(`could not decode ${encoding} body: ${describe(cause)}`, { cause });
    this.name = "BadEncodingError";
  }
}

const KIND_BY_CODE: Readonly<Record<string, FetchErrorKind>> = {
  ERR_CRAWLER_DNS: "dns",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EAI_FAIL: "dns",
  EAI_NODATA: "dns",
  EAI_NONAME: "dns",
  ENODATA: "dns",
  ERR_CRAWLER_BLOCKED_ADDRESS: "blocked-address",
  ECONNREFUSED: "refused",
  // Unreachable networks call for the same reaction as a refusal: the host is down for us.
  EHOSTUNREACH: "refused",
  ENETUNREACH: "refused",
  EHOSTDOWN: "refused",
  UND_ERR_PRX_CONN: "refused",
  UND_ERR_CONNECT_TIMEOUT: "connect-timeout",
  ETIMEDOUT: "connect-timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  ECONNRESET: "reset",
  EPIPE: "reset",
  ECONNABORTED: "reset",
  UND_ERR_SOCKET: "reset",
  UND_ERR_PRX_TLS: "tls",
  EPROTO: "tls",
  ERR_CRAWLER_BAD_ENCODING: "bad-response",
  UND_ERR_HEADERS_OVERFLOW: "bad-response",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "bad-response",
  UND_ERR_RESPONSE: "bad-response",
  // Our own aborts (caller, deadline) are recognised before codes are read, so an undici abort that
  // reaches this table came from elsewhere, e.g. a proxy refusing a CONNECT tunnel (see errorKind).
  UND_ERR_ABORTED: "other",
  UND_ERR_ABORT: "other",
  UND_ERR_DESTROYED: "aborted",
  UND_ERR_CLOSED: "aborted",
  ABORT_ERR: "aborted",
};

/** Codes that say our own machine ran out of something, whoever the target was. */
const LOCAL_BY_CODE: Readonly<Record<string, LocalCause>> = {
  ERR_CRAWLER_RESOLVER_DOWN: "resolver",
  EADDRNOTAVAIL: "local-ports",
  EMFILE: "file-table",
  ENFILE: "file-table",
  ENOBUFS: "kernel-buffers",
  ENOMEM: "kernel-buffers",
};

/**
 * With a proxy every connection goes to it: these mean the proxy, not the host, could not be reached. A
 * connection that timed out is one to the proxy too (a partition between us and it drops our SYNs silently);
 * a host the proxy cannot reach in time comes back as the proxy's answer.
 */
const PROXY_UNREACHABLE = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "UND_ERR_CONNECT_TIMEOUT", "ETIMEDOUT"]);

/** A connection that closed under a request. */
const DROPPED = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET"]);

/** Whether the request's connection closed under it (reset, or closed by the other end). */
export function droppedConnection(error: unknown): boolean {
  return errorCodes(error).some((code) => DROPPED.has(code));
}

/**
 * Whether a failed fetch failed on our own side (the host was never asked), and on what. Without a proxy a
 * refused connection is the host's; with one, the only connection we open is to the proxy, so a refusal is
 * the proxy's (a host the proxy cannot reach comes back as the proxy's answer to CONNECT, or as its error
 * response, never as a refused socket of ours). A 407 is the proxy asking for credentials we lack. (A
 * request the proxy dropped is told apart by the fetcher, which asks whether the proxy still listens.)
 */
export function localCauseOf(error: unknown, viaProxy: boolean): LocalCause | undefined {
  if (viaProxy && error instanceof Error && /Proxy Authentication Required \(407\)|^Proxy response \(407\)/.test(error.message)) {
    return "proxy-auth";
  }
  for (const code of errorCodes(error)) {
    const local = LOCAL_BY_CODE[code];
    if (local) return local;
    if (viaProxy && PROXY_UNREACHABLE.has(code)) return "proxy-unreachable";
  }
  return undefined;
}

/** The kind of a failed fetch, judged from the error's codes; `'other'` when none is known. */
export function errorKind(error: unknown): FetchErrorKind {
  // undici reports a proxy that answers CONNECT with a non-200 status only through this message.
  if (error instanceof Error && error.message.startsWith("Proxy response (")) return "refused";
  for (const code of errorCodes(error)) {
    const known = KIND_BY_CODE[code];
    if (known) return known;
    if (code.startsWith("HPE_")) return "bad-response"; // llhttp parser: the server broke HTTP
    if (code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || code.includes("CERT")) return "tls";
  }
  return "other";
}

/** Every `code` found on the error, its causes and aggregated errors, outermost first. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== "object" || seen.has(value) || depth > 5) return;
    seen.add(value);
    const code = (value as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    const name = (value as { name?: unknown }).name;
    if (name === "AbortError") codes.push("ABORT_ERR");
    // llhttp errors carry no code when the status line itself is wrong (e.g. an SSH banner).
    if (name === "HTTPParserError" && typeof code !== "string") codes.push("HPE_UNKNOWN");
    visit((value as { cause?: unknown }).cause, depth + 1);
    const nested = (value as { errors?: unknown }).errors;
    if (Array.isArray(nested)) for (const inner of nested) visit(inner, depth + 1);
  };
  visit(error, 0);
  return codes;
}

/** A one-line description of an error for logs and outcomes, with its code when it has one. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(error);
}

/**
 * The one entry point for every URL that enters the crawler (seeds, extracted links, redirect targets):
 * it parses with the WHATWG rules, keeps only http and https, and rewrites the URL into one canonical
 * string so the seen-set, the partition hash and the politeness queues all agree on what "the same URL"
 * is (ARCHITECTURE.md policy table, "normalization"). The WHATWG parser does most of the work: lower-case
 * scheme and host, IDN to punycode, default port, empty path, dot segments (also `%2e`), the encoding of
 * spaces and non-ASCII. This module adds what it leaves alone: the host's trailing dot, the fragment,
 * percent-escape case and unreserved escapes, tracking parameters and query order.
 */
import { normalizePercentEscapes } from "./percent.ts";
import { normalizeQuery } from "./query.ts";

export type NormalizeResult = { ok: true; url: string; host: string } | { ok: false; reason: string };

/**
 * Longest URL accepted, in UTF-16 code units, checked on the input and base before parsing (a cheap guard
 * against hostile pages) and on the result (which percent-encoding can make longer), so every accepted
 * result normalizes again to itself. The crawl's own trap limit is lower and lives with the frontier.
 */
export const MAX_URL_LENGTH = 8192;

// Longest detail quoted from the input in a reason, so a reason stays one short line.
const MAX_DETAIL = 32;

/**
 * Normalizes `input`, resolved against `base` when given (the page URL, or its `<base href>`). Never
 * throws: a URL that cannot be crawled comes back as `{ ok: false, reason }`, where `reason` starts with a
 * kebab-case code (`empty`, `too-long`, `unparseable`, `unsupported-scheme`, `missing-host`,
 * `invalid-host`, `bad-base`) and may carry a detail after `: `. An empty input is rejected even with a
 * base: it only names the page it was found on. A base that cannot be used is ignored for an absolute
 * input and rejects a relative one.
 */
export function normalizeUrl(input: string, base?: string): NormalizeResult {
  if (input.length > MAX_URL_LENGTH) return reject(`too-long: ${input.length} chars`);
  if (isBlank(input)) return reject("empty");
  const parsed = parse(input, base);
  if (!(parsed instanceof URL)) return parsed;
  const url = parsed;

  const protocol = url.protocol;
  if (protocol !== "http:" && protocol !== "https:") {
    return reject(`unsupported-scheme: ${clip(protocol.slice(0, -1))}`);
  }

  let host = url.hostname;
  if (host.charCodeAt(host.length - 1) === 0x2e /* . */) {
    const fixed = dropTrailingDots(url, host);
    if (typeof fixed !== "string") return fixed;
    host = fixed;
  }

  // For http(s) the href is `scheme://[userinfo@]host[:port]` + path + query + fragment, and the
  // userinfo is percent-encoded, so the first `/` after `//` starts the path.
  const href = url.href;
  const pathStart = href.indexOf("/", protocol.length + 2);
  const path = url.pathname;
  const normalizedPath = path.indexOf("%") === -1 ? path : normalizePercentEscapes(path);
  const normalized = href.slice(0, pathStart) + normalizedPath + normalizeQuery(url.search);
  if (normalized.length > MAX_URL_LENGTH) return reject(`too-long: ${normalized.length} chars after normalizing`);
  return { ok: true, url: normalized, host };
}

/** Parses `input` against `base`, or explains why it cannot. */
function parse(input: string, base: string | undefined): URL | NormalizeResult {
  if (base === undefined) return URL.parse(input) ?? reject(whyUnparseable(input));
  const baseTooLong = base.length > MAX_URL_LENGTH;
  const url = baseTooLong ? null : URL.parse(input, base);
  if (url !== null) return url;
  // The WHATWG parser rejects even an absolute input when its base is bad; a bad <base href> on a page
  // should cost only its relative links, so try the input alone.
  const alone = URL.parse(input);
  if (alone !== null) return alone;
  if (baseTooLong) return reject(`bad-base: too-long: ${base.length} chars`);
  if (!URL.canParse(base)) return reject("bad-base: unparseable");
  return reject(whyUnparseable(input));
}

/**
 * Strips every trailing dot of the host (`example.com.` and `example.com` are one host; stripping one dot
 * at a time would not be idempotent) and lets the parser read the host again, since `0x7f.1..` becomes
 * the IPv4 address 127.0.0.1 once the dots are gone.
 */
function dropTrailingDots(url: URL, host: string): string | NormalizeResult {
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 0x2e) end--;
  if (end === 0) return reject("missing-host");
  const stripped = host.slice(0, end);
  url.hostname = stripped;
  const reparsed = url.hostname;
  // The setter leaves the host unchanged when the stripped form is invalid (`1.2.3.999.` is a domain,
  // `1.2.3.999` a bad IPv4 address).
  if (reparsed === host) return reject(`invalid-host: ${clip(stripped)}`);
  return reparsed;
}

/** Names the most likely reason the WHATWG parser refused `input`. */
function whyUnparseable(input: string): string {
  const scheme = /^[\x00-\x20]*([A-Za-z][A-Za-z0-9+.-]*):/.exec(input)?.[1];
  if (scheme !== undefined) {
    const lower = scheme.toLowerCase();
    if (lower !== "http" && lower !== "https") return `unsupported-scheme: ${clip(lower)}`;
    // Nothing between the slashes and the path (userinfo and port aside): the parser refused an empty host.
    if (/^[\x00-\x20]*https?:[/\\]*(?![/\\])(?:[^/\\?#]*@)?(?::[0-9]*)?(?:[/\\?#]|[\x00-\x20]*$)/i.test(input)) {
      return "missing-host";
    }
  }
  return "unparseable";
}

/** True for a string the WHATWG parser would read as empty: only C0 controls and spaces. */
function isBlank(input: string): boolean {
  for (let i = 0; i < input.length; i++) if (input.charCodeAt(i) > 0x20) return false;
  return true;
}

function clip(detail: string): string {
  return detail.length <= MAX_DETAIL ? detail : detail.slice(0, MAX_DETAIL) + "...";
}

function reject(reason: string): NormalizeResult {
  return { ok: false, reason };
}

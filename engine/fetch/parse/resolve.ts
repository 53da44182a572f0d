/**
 * Turns a raw link attribute into an absolute, fetchable URL. Only http: and https: survive: every other
 * scheme (javascript:, mailto:, data:, tel:, ftp:, blob: …) resolves to `undefined`, so callers filter on
 * `resolved` alone and still see the raw link for auditing. The fragment is dropped because it never
 * reaches the server and would otherwise make one page look like many.
 *
 * Most hrefs and media URLs on a page are root-relative paths of plain characters (`/img/a-480.jpg`). For
 * those the WHATWG URL parser's answer is the base's origin followed by the href unchanged, so it is built
 * by concatenation: a page names dozens of them and the parser costs about half a microsecond each, plus
 * the garbage. The fast path takes only what provably needs no parser work: no `%` (escapes, and `%2e`
 * dot segments), no `.` or `..` segment, no `?`, `#`, `\`, whitespace, non-ASCII or other character the
 * parser would encode, and not `//` (another host); the tests compare it with the parser.
 */

/** A page's base URL, parsed once for all its links, with its origin for the fast path. */
export interface BaseUrl {
  url: URL;
  /** `scheme://host[:port]` of an http(s) base without userinfo; undefined otherwise (no fast path). */
  origin: string | undefined;
}

/** Parses `base` once so a page with hundreds of links does not re-parse it per link; undefined if invalid. */
export function parseBase(base: string): BaseUrl | undefined {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return undefined;
  }
  // The origin leaves out userinfo, which the parser keeps in a resolved URL: such a base takes the parser.
  const http = (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
  return { url, origin: http ? url.origin : undefined };
}

/** A root-relative path the parser would keep as it is: unreserved and sub-delimiter characters, `:`, `@`, `/`. */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
/** A `.` or `..` segment, which the parser removes. */
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

/** Resolves `href` against `base`; undefined when unparsable or not http(s). Never throws. */
export function resolveHttpUrl(href: string, base: BaseUrl | undefined): string | undefined {
  if (base === undefined) return undefined;
  if (base.origin !== undefined && PLAIN_PATH.test(href) && !DOT_SEGMENT.test(href)) return base.origin + href;
  let url: URL;
  try {
    url = new URL(href, base.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  url.hash = "";
  return url.href;
}

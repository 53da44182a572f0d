/**
 * Percent-normalization shared by robots.txt patterns and the URLs matched against them (RFC 9309
 * section 2.2.2). Both sides are brought to one canonical octet form, so that comparison is a plain
 * string comparison: a percent-encoded unreserved character is decoded (`%7E` is `~`, `%41` is `A`),
 * every other escape keeps its encoding with upper-case hex (`%2f` becomes `%2F`, and stays distinct
 * from `/`), and every octet that may not appear raw in a URI (non-ASCII octets, controls, space,
 * `"<>\^`{|}`) is percent-encoded. `*` and `$` are special in patterns, so a URL's literal `*` and `$`
 * are written as `%2A` and `%24`: that is how a rule spells them (section 2.2.3), and it makes the
 * rule `/a-%24` match both `/a-$` and `/a-%24`.
 *
 * "Octet strings" here are JS strings whose every char code is one octet (0..255): robots.txt bodies
 * are handled as octets so a file that is not valid UTF-8 still matches the octets a URL would carry.
 */

/** Per ASCII code: 1 when the character is copied as is into the canonical form. */
const PASS = buildPassTable();

function buildPassTable(): Uint8Array {
  const table = new Uint8Array(128);
  const keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!&'()+,;=";
  for (let i = 0; i < keep.length; i++) table[keep.charCodeAt(i)] = 1;
  return table;
}

const HEX = "0123456789ABCDEF";
const STAR = 0x2a;
const DOLLAR = 0x24;
const PERCENT = 0x25;

function isUnreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e
  );
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function escapeOctet(c: number): string {
  return "%" + HEX[c >> 4] + HEX[c & 15];
}

/**
 * Canonical form of an octet string. With `keepStar` (patterns) a `*` stays a wildcard; otherwise
 * (URLs) it becomes `%2A`. A `$` always becomes `%24`: the pattern parser strips a trailing `$`
 * anchor before calling this, so any `$` left is a literal one.
 */
export function normalizeOctets(s: string, keepStar: boolean): string {
  const n = s.length;
  let i = 0;
  // Fast path: most paths need no change at all, so scan before building anything.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && PASS[c] === 1) continue;
    if (c === STAR && keepStar) continue;
    break;
  }
  if (i === n) return s;
  let out = s.slice(0, i);
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && PASS[c] === 1) {
      out += s[i];
    } else if (c === STAR) {
      out += keepStar ? "*" : "%2A";
    } else if (c === DOLLAR) {
      out += "%24";
    } else if (c === PERCENT) {
      const hi = i + 2 < n ? hexValue(s.charCodeAt(i + 1)) : -1;
      const lo = hi >= 0 ? hexValue(s.charCodeAt(i + 2)) : -1;
      if (lo < 0) {
        // A stray `%` is not an escape: encode it so `%zz` in a rule and in a URL still agree.
        out += "%25";
        continue;
      }
      const v = (hi << 4) | lo;
      out += isUnreserved(v) ? String.fromCharCode(v) : escapeOctet(v);
      i += 2;
    } else {
      out += escapeOctet(c & 0xff);
    }
  }
  return out;
}

/** UTF-8 octets of a JS string, as an octet string; lone surrogates become U+FFFD like TextEncoder. */
export function utf8Octets(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp < 0x80) {
      out += s[i];
      continue;
    }
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x800) {
      out += String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    } else if (cp < 0x10000) {
      out += String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    } else {
      out += String.fromCharCode(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    }
  }
  return out;
}

/** Octets of a byte array as an octet string (chunked: spreading 512 KiB at once overflows the stack). */
export function bytesToOctets(bytes: Uint8Array): string {
  const CHUNK = 8192;
  let out = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return out;
}

/** True when every char code is below 0x80, i.e. the string is its own UTF-8 octet string. */
export function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/**
 * The path and query of a URL, as given: an absolute URL (`scheme://authority/path?query`) loses its
 * scheme and authority, a fragment is dropped, and an empty path becomes `/`. The path is not resolved
 * or re-encoded here (URL normalization is core/url's job); a relative reference without a leading
 * slash is read as relative to the root.
 */
export function pathAndQueryOf(url: string): string {
  let start = 0;
  // A leading `/` is always a path here, even `//x` (callers pass paths or absolute URLs, and a path
  // may legitimately begin with an empty segment).
  if (url.charCodeAt(0) !== 0x2f) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
    if (scheme) {
      start = scheme[0].length;
      while (start < url.length) {
        const c = url.charCodeAt(start);
        if (c === 0x2f || c === 0x3f || c === 0x23) break;
        start++;
      }
    }
  }
  const hash = url.indexOf("#", start);
  const end = hash < 0 ? url.length : hash;
  if (start === 0 && end === url.length && url.charCodeAt(0) === 0x2f) return url;
  const rest = url.slice(start, end);
  if (rest.length === 0) return "/";
  return rest.charCodeAt(0) === 0x2f ? rest : "/" + rest;
}

/** Canonical octet form of a URL's path and query, ready to compare with compiled patterns. */
export function normalizeUrlPath(pathAndQuery: string): string {
  const octets = isAscii(pathAndQuery) ? pathAndQuery : utf8Octets(pathAndQuery);
  return normalizeOctets(octets, false);
}

/**
 * Turns a raw link attribute into an absolute, fetchable URL. Only http: and https: survive: every other
 * scheme (javascript:, mailto:, data:, tel:, ftp:, blob: …) resolves to `undefined`, so callers filter on
 * `resolved` alone and still see the raw link for auditing. The fragment is dropped because it never
 * reaches the server and would otherwise make one page look like many.
 */

/** Parses `base` once so a page with hundreds of links does not re-parse it per link; undefined if invalid. */
export function parseBase(base: string): URL | undefined {
  try {
    return new URL(base);
  } catch {
    return undefined;
  }
}

/** Resolves `href` against `base`; undefined when unparsable or not http(s). Never throws. */
export function resolveHttpUrl(href: string, base: URL | undefined): string | undefined {
  if (base === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  url.hash = "";
  return url.href;
}

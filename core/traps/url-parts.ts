/**
 * Cheap slicing of a normalized absolute URL into its path and query, without building a URL object:
 * the trap checks run on every discovered link, and the normalizer has already done the hard parsing.
 */

/** The start of the path: the first `/` after `scheme://authority`, or -1 when there is none. */
function pathStart(url: string): number {
  const scheme = url.indexOf("://");
  if (scheme < 0) return url.startsWith("/") ? 0 : -1;
  const slash = url.indexOf("/", scheme + 3);
  const query = url.indexOf("?", scheme + 3);
  // `https://host?x` has no path but does have a query.
  return slash >= 0 && (query < 0 || slash < query) ? slash : -1;
}

/** Index of the first of the `stops` characters at or after `from`, else the URL's length. */
function endOf(url: string, from: number, stops: string): number {
  let end = url.length;
  for (let s = 0; s < stops.length; s++) {
    const i = url.indexOf(stops[s]!, from);
    if (i >= 0 && i < end) end = i;
  }
  return end;
}

/** The path (`/a/b`), `/` when the URL has none; query and fragment excluded. */
export function urlPath(url: string): string {
  const start = pathStart(url);
  return start < 0 ? "/" : url.slice(start, endOf(url, start, "?#"));
}

/** The path and query (`/a/b?x=1`); fragment excluded. */
export function urlPathAndQuery(url: string): string {
  const start = pathStart(url);
  if (start >= 0) return url.slice(start, endOf(url, start, "#"));
  const query = url.indexOf("?");
  return query < 0 ? "/" : `/${url.slice(query, endOf(url, query, "#"))}`;
}

/** How many `/` the path has: no path has more non-empty segments than that. */
export function pathSlashes(url: string): number {
  const path = urlPath(url);
  let n = 0;
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) n++;
  return n;
}

/** The non-empty segments of the path: `/a//b/` gives `a`, `b`. */
export function pathSegments(url: string): string[] {
  return urlPath(url)
    .split("/")
    .filter((segment) => segment !== "");
}

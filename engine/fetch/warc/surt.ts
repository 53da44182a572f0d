/**
 * SURT (Sort-friendly URI Reordering Transform) keys for the CDXJ index: host labels reversed and
 * comma-joined, then `)`, then path and sorted query, e.g. `com,example)/path?a=1&b=2`. Sorting keys
 * groups a site's URLs together and makes lookups prefix scans. The rules match warcio's and pywb's
 * indexers so their tools read our index: the whole URL is lower-cased, a leading `www.`/`www2.` label is
 * dropped, default ports vanish, and query arguments are sorted as strings. Non-http(s) URLs are returned
 * unchanged, as they do.
 */

const WWW_PREFIX = /^(https?:\/\/)www\d*\./i;

export function surt(url: string): string {
  if (!/^https?:/i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(WWW_PREFIX, "$1").toLowerCase());
  } catch {
    return url;
  }
  let key = parsed.hostname.split(".").reverse().join(",");
  if (parsed.port) key += ":" + parsed.port;
  key += ")" + parsed.pathname;
  if (parsed.search) key += "?" + parsed.search.slice(1).split("&").sort().join("&");
  return key;
}

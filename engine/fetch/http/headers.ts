/**
 * Header shaping for the fetch step: the request headers the crawler sends (identical for pages
 * and robots.txt, so a site sees one consistent client) and the flattening of undici's response
 * headers into one string per lower-case name. Host is set explicitly so the WARC request record
 * shows exactly what went on the wire.
 */
export const ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7";
export const ACCEPT_ENCODING = "gzip, deflate, br";

export interface RequestHeaderInput {
  userAgent: string;
  etag?: string;
  lastModified?: string;
}

export function buildRequestHeaders(url: URL, input: RequestHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    host: url.host,
    "user-agent": input.userAgent,
    accept: ACCEPT,
    "accept-encoding": ACCEPT_ENCODING,
  };
  if (input.etag) headers["if-none-match"] = input.etag;
  if (input.lastModified) headers["if-modified-since"] = input.lastModified;
  return headers;
}

/** One string per header; repeated headers (undici gives arrays) joined by ', '. */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

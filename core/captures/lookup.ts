/**
 * "Where is the capture of this URL", as every API asks it (crawl --http, the admin API, gRPC, crawlctl):
 * the URL checked and normalized the one way, the limit checked the one way, and the answer's JSON shape.
 * A URL that is not an absolute http(s) URL, or that the crawl would never fetch (it does not normalize),
 * is a bad request; a URL the crawl does not know, or has not stored, has no captures: an empty list, not an
 * error, so a client tells "not captured (yet)" from a mistake by the status code alone.
 */
import { InvalidArgumentError } from "../errors/index.ts";
import { hostKeyOf, MAX_URL_LENGTH, normalizeUrl } from "../url/index.ts";

/** The largest limit accepted; any limit at or above MAX_CAPTURES_PER_URL returns every capture kept. */
export const MAX_CAPTURES_LIMIT = 1000;

/** The normalized URL and its host key; InvalidArgumentError for input no capture can ever have. */
export function captureLookup(input: string): { url: string; host: string } {
  const trimmed = input.trim();
  if (trimmed === "") throw new InvalidArgumentError("url: required");
  if (trimmed.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`url: longer than ${MAX_URL_LENGTH} characters`);
  const n = normalizeUrl(trimmed);
  if (!n.ok) throw new InvalidArgumentError(`url: not a URL the crawl can fetch (${n.reason.slice(0, 120)})`);
  return { url: n.url, host: hostKeyOf(n.url) };
}

/** A limit as given in a query string (`?limit=3`); absent: every capture kept. */
export function captureLimitOf(raw: string | undefined): number {
  if (raw === undefined) return MAX_CAPTURES_LIMIT;
  const limit = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  // 0 means "all" only on gRPC, where an unset field reads 0; in a query it is a mistake.
  if (limit === 0 || Number.isNaN(limit)) {
    throw new InvalidArgumentError(`limit: a whole number from 1 to ${MAX_CAPTURES_LIMIT}, got "${raw.slice(0, 16)}"`);
  }
  return checkedCaptureLimit(limit);
}

/** A limit as a number (gRPC: 0 means every capture kept). */
export function checkedCaptureLimit(limit: number): number {
  if (limit === 0) return MAX_CAPTURES_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CAPTURES_LIMIT) {
    throw new InvalidArgumentError(`limit: a whole number from 1 to ${MAX_CAPTURES_LIMIT}, got ${limit}`);
  }
  return limit;
}

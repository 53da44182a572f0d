/**
 * What a robots.txt fetch means for a host, and how long that answer may be cached (RFC 9309 sections
 * 2.3.1 and 2.4). The fetch itself happens in the fetch node; this module only maps the outcome of the
 * successive requests (each redirect is one step) to one of three verdicts:
 *
 * | outcome of the chain                          | verdict        | RFC 9309                          |
 * | --------------------------------------------- | -------------- | --------------------------------- |
 * | 2xx                                           | `parse`        | 2.3.1.1: MUST follow the rules     |
 * | 304 Not Modified (conditional refetch)        | `parse`        | 2.4: the cached body still stands  |
 * | other 3xx, at most 5 in a row, then a status  | that status    | 2.3.1.2: SHOULD follow at least 5  |
 * | a 6th consecutive redirect                    | `allow-all`    | 2.3.1.2: MAY assume unavailable    |
 * | `redirect-loop`                               | `allow-all`    | 2.3.1.2: unavailable, as above     |
 * | chain ends on a redirect that was not followed| `allow-all`    | 2.3.1.2: no file reached: unavailable |
 * | 4xx, every one (401, 403, 404, 429 …)          | `allow-all`    | 2.3.1.3: MAY access any resource   |
 * | 5xx                                           | `disallow-all` | 2.3.1.4: MUST assume complete disallow |
 * | `unreachable` (DNS, connect, timeout, reset)  | `disallow-all` | 2.3.1.4: network errors, likewise  |
 * | anything else (1xx, < 100, ≥ 600, no steps)   | `disallow-all` | not a usable answer: treated as unreachable |
 *
 * 429 is in the 4xx range and so allows everything per the RFC's words; the politeness layer is what
 * slows down a host that answers 429. Steps after the first non-redirect are ignored.
 *
 * Caching: a verdict lives at most 24 h (section 2.4: SHOULD NOT use a cached copy longer). A
 * `disallow-all` lives at most one hour, so a passing outage does not shut a host out for a day; the
 * caller may keep using an earlier `parse` verdict while robots.txt is unreachable (2.3.1.4, 2.4).
 */

export type RobotsVerdict = "allow-all" | "disallow-all" | "parse";

/** One fetch of robots.txt: its HTTP status, or how it failed without one. */
export type RobotsFetchStep = number | "unreachable" | "redirect-loop";

/** Consecutive redirects followed before robots.txt counts as unavailable (RFC 9309 section 2.3.1.2). */
export const ROBOTS_MAX_REDIRECTS = 5;
/** Longest a robots.txt verdict may be cached: 24 h (RFC 9309 section 2.4). */
export const ROBOTS_MAX_AGE_MS = 24 * 3600 * 1000;
/** Longest a `disallow-all` (5xx, unreachable) is cached before robots.txt is tried again: 1 h. */
export const ROBOTS_DISALLOW_MAX_AGE_MS = 3600 * 1000;

export function robotsVerdict(chain: readonly RobotsFetchStep[]): RobotsVerdict {
  let redirects = 0;
  for (const step of chain) {
    if (step === "unreachable") return "disallow-all";
    if (step === "redirect-loop") return "allow-all";
    if (!Number.isInteger(step) || step < 100 || step > 599) return "disallow-all";
    if (step >= 200 && step <= 299) return "parse";
    if (step === 304) return "parse";
    if (step >= 300 && step <= 399) {
      redirects++;
      if (redirects > ROBOTS_MAX_REDIRECTS) return "allow-all";
      continue;
    }
    if (step >= 400 && step <= 499) return "allow-all";
    return "disallow-all"; // 5xx, or a 1xx as a final status
  }
  // Redirects that were never followed to an answer reached no file: unavailable, as past the limit.
  return redirects > 0 ? "allow-all" : "disallow-all";
}

/**
 * When a verdict fetched at `fetchedAt` (epoch ms) expires. `maxAgeMs` is the freshness the server
 * gave (Cache-Control); it is clamped to 24 h, or to 1 h for `disallow-all`. A negative or NaN value
 * counts as 0 (expired at once) and `undefined` as the cap.
 */
export function robotsExpiresAt(fetchedAt: number, verdict: RobotsVerdict, maxAgeMs?: number): number {
  const cap = verdict === "disallow-all" ? ROBOTS_DISALLOW_MAX_AGE_MS : ROBOTS_MAX_AGE_MS;
  if (maxAgeMs === undefined) return fetchedAt + cap;
  // `> 0` is false for NaN, so NaN and negatives expire at once; +Infinity is clamped like any large age.
  const age = maxAgeMs > 0 ? Math.min(maxAgeMs, cap) : 0;
  return fetchedAt + age;
}

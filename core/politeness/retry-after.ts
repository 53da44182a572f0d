/**
 * Reads the Retry-After header (RFC 9110 §10.2.3), which a server sends with 429 and 503 to say when
 * to come back: either delta-seconds (`120`) or an HTTP-date in any of the three forms of RFC 9110
 * §5.6.7. Parsing is hand-written rather than left to `Date.parse`, whose handling of the obsolete
 * forms differs between runtimes. Garbage yields undefined, so the caller falls back to its own gap.
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAY_NAME = "(?:mon|tue|wed|thu|fri|sat|sun)";
const LONG_DAY_NAME = "(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)";
const MONTH = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)";
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";

// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, the only form servers should send).
const IMF_FIXDATE = new RegExp(`^${DAY_NAME},\\s*(\\d{1,2})\\s+${MONTH}\\s+(\\d{4})\\s+${TIME}\\s+(?:gmt|utc)$`);
// `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete RFC 850 form, two-digit year).
const RFC_850 = new RegExp(`^${LONG_DAY_NAME},\\s*(\\d{1,2})-${MONTH}-(\\d{2})\\s+${TIME}\\s+(?:gmt|utc)$`);
// `Sun Nov  6 08:49:37 1994` (obsolete asctime form, no zone: it is always UTC).
const ASCTIME = new RegExp(`^${DAY_NAME}\\s+${MONTH}\\s+(\\d{1,2})\\s+${TIME}\\s+(\\d{4})$`);

// delta-seconds past 2^31 are read as 2^31, as RFC 9111 §1.2.2 asks of caches; the caller caps it anyway.
const MAX_DELTA_SECONDS = 2 ** 31;

/**
 * Returns how many milliseconds from `now` the header asks the client to wait, 0 for a date already
 * past, or undefined for a missing or unreadable value. `now` is epoch milliseconds.
 */
export function parseRetryAfter(value: string | undefined | null, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text), MAX_DELTA_SECONDS) * 1000;
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/**
 * The header as the fetching side should pass it on: an HTTP-date becomes delta-seconds, read against the
 * wall clock (`wallNow`, `Date.now()`) when the response arrived. A date is wall-clock time, while the
 * times a result carries are on the monotonic politeness clock (./clock.ts) and cross threads and
 * processes as differences; a date compared with those later would shift the wait by any step of the wall
 * clock since the process started (seen: 10 s on a VM), or by the frontier's clock skew. Rounded up to
 * the next second, so the wait is never shorter than the server asked. Delta-seconds and unreadable values
 * pass through as they are (the frontier reads both as before).
 */
export function retryAfterAsDelay(value: string | undefined, wallNow: number): string | undefined {
  // Delta-seconds are no HTTP-date, nor is an unreadable value: both come back undefined here.
  const at = value === undefined ? undefined : parseHttpDate(value, wallNow);
  return at === undefined ? value : String(Math.ceil(Math.max(0, at - wallNow) / 1000));
}

/**
 * Reads an HTTP-date in IMF-fixdate, RFC 850 or asctime form and returns epoch milliseconds, or
 * undefined when it is not one or names an impossible date. Case and runs of whitespace are forgiven,
 * as are a one-digit day and a `UTC` zone, which some servers send.
 * `now` resolves RFC 850's two-digit years: a year that would land more than 50 years in the future
 * means the century before (RFC 9110 §5.6.7).
 */
export function parseHttpDate(value: string, now: number): number | undefined {
  const text = value.trim().toLowerCase();

  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(Number(match[3]), match[2], match[1], match[4], match[5], match[6]);
  match = RFC_850.exec(text);
  if (match) return utc(fullYear(Number(match[3]), now), match[2], match[1], match[4], match[5], match[6]);
  match = ASCTIME.exec(text);
  if (match) return utc(Number(match[6]), match[1], match[2], match[3], match[4], match[5]);
  return undefined;
}

function fullYear(twoDigits: number, now: number): number {
  const nowYear = new Date(now).getUTCFullYear();
  let year = Math.floor(nowYear / 100) * 100 + twoDigits;
  if (year > nowYear + 50) year -= 100;
  return year;
}

function utc(
  year: number,
  monthName: string | undefined,
  dayText: string | undefined,
  hourText: string | undefined,
  minuteText: string | undefined,
  secondText: string | undefined,
): number | undefined {
  const month = MONTHS.indexOf(monthName ?? "");
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText);
  if (month < 0 || hour > 23 || minute > 59 || second > 60) return undefined;
  // A leap second (60) is allowed by the grammar; reading it as 59 is one second early, which is harmless.
  const ms = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 Feb over into March; a date that does not read back the same is impossible.
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined;
  return ms;
}

/**
 * `<lastmod>` values: W3C Datetime, as the protocol asks (`2025-01-31`, `2025-01-31T08:00:00+01:00`,
 * `2025-01-31T08:00Z`, fractions of a second allowed; a year or a year and month alone too). A date
 * without a time is its midnight in UTC; a time without a zone is read as UTC, as many generators
 * omit it. Anything else, or a date that does not exist, is no lastmod at all rather than a guess.
 */
const W3C = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?)?)?)?$/;

/** Epoch milliseconds of a W3C Datetime, or undefined when the text is not one. */
export function parseLastmod(text: string): number | undefined {
  const m = W3C.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = m;
  const ms = Number(`0.${frac || "0"}`) * 1000;
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.floor(ms));
  const check = new Date(utc);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) {
    return undefined;
  }
  if (zone === "Z" || zone === "z") return utc;
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  if (offsetMin > 14 * 60) return undefined;
  return utc - sign * offsetMin * 60_000;
}

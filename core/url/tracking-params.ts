/**
 * Which query parameters are tracking tags. Campaign and click identifiers (`utm_*`, `gclid`, `fbclid`…)
 * make one page look like thousands of distinct URLs without changing what the server returns, so the
 * normalizer drops them before the seen check (ARCHITECTURE.md policy table, "normalization").
 */

/** Exact tracking names, lower-case; `utm_*` is matched by prefix instead. */
const TRACKING_NAMES: ReadonlySet<string> = new Set(["gclid", "fbclid", "msclkid", "dclid", "yclid", "mc_cid", "mc_eid", "_ga", "igshid"]);

// Length bounds of the exact names, so most ordinary names are rejected without allocating a lower-case copy.
const MIN_EXACT = 3;
const MAX_EXACT = 7;

/**
 * True when a parameter with this name is a tracking tag. `name` is compared case-insensitively and must
 * already have its unreserved escapes decoded (so `utm%5Fsource` arrives as `utm_source`).
 */
export function isTrackingParam(name: string): boolean {
  const n = name.length;
  if (n >= 4 && name.charCodeAt(3) === 0x5f /* _ */ && name.slice(0, 3).toLowerCase() === "utm") return true;
  if (n < MIN_EXACT || n > MAX_EXACT) return false;
  return TRACKING_NAMES.has(name.toLowerCase());
}

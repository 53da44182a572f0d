/**
 * Fetch outcomes by kind, from the frontier's counters (the same names in `crawl` and in frontier nodes):
 *
 *   ok, 3xx, 4xx, 5xx   responses by status class (`fetch.status.NNN`; 1xx counts as ok)
 *   timeout             `fetch.network-error.timeout` and `.connect-timeout`
 *   dns                 `fetch.network-error.dns`
 *   other-error         every other network error, and tasks skipped by the fetcher (blocked addresses)
 *   robots-denied       URLs robots.txt disallowed (`robots.disallowed`): never requested
 *   trap                URLs refused by a trap limit (`traps.rejected.*`): never queued
 *   duplicate           pages whose content was an exact duplicate of a stored one (`content.exact-duplicates`)
 *
 * `errors` (the dashboard's total) is 5xx plus every network error, the rule of coordinator/stats.ts.
 */
import type { Outcomes } from "./types.ts";

export function outcomesOf(counters: Readonly<Record<string, number>>): Outcomes {
  const out: Outcomes = {
    ok: 0,
    "3xx": 0,
    "4xx": 0,
    "5xx": 0,
    timeout: 0,
    dns: 0,
    "other-error": 0,
    "robots-denied": 0,
    trap: 0,
    duplicate: 0,
  };
  for (const [name, value] of Object.entries(counters)) {
    const status = /^fetch\.status\.(\d)\d\d$/.exec(name);
    if (status) {
      const cls = status[1]!;
      if (cls === "3") out["3xx"] += value;
      else if (cls === "4") out["4xx"] += value;
      else if (cls === "5") out["5xx"] += value;
      else out.ok += value;
    } else if (name === "fetch.network-error.timeout" || name === "fetch.network-error.connect-timeout") out.timeout += value;
    else if (name === "fetch.network-error.dns") out.dns += value;
    else if (name.startsWith("fetch.network-error.") || name.startsWith("fetch.skipped.")) out["other-error"] += value;
    else if (name === "robots.disallowed") out["robots-denied"] += value;
    else if (name.startsWith("traps.rejected.")) out.trap += value;
    else if (name === "content.exact-duplicates") out.duplicate += value;
  }
  return out;
}

/** 5xx responses plus network errors (skips are our own refusals, not errors of the web). */
export function errorsOf(counters: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const [name, value] of Object.entries(counters)) {
    if (name.startsWith("fetch.network-error.") || /^fetch\.status\.5\d\d$/.test(name)) total += value;
  }
  return total;
}

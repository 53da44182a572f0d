/**
 * The cap per server address, judged from the test web's own log: per address a request came to
 * (`localAddress`), never more than `maxInFlight` requests open at once (a request is open from the arrival
 * of its head to the end of its response, as the server saw them), and never two arrivals closer than
 * `gapMs`. No tolerance. Also says how close the crawl came to the cap (the most open at once per address),
 * so a test can show the cap was reached and not merely never tried.
 */
import type { RequestRecord } from "./types.ts";

export interface AddressPolicy {
  maxInFlight: number;
  gapMs: number;
}

export interface AddressVerdict {
  /** One line per breach, for a failing test to print. */
  violations: string[];
  /** Address -> the most requests it had open at once. */
  mostOpen: Map<string, number>;
  /** Address -> requests it received. */
  requests: Map<string, number>;
}

export function judgeAddresses(log: readonly RequestRecord[], policy: AddressPolicy): AddressVerdict {
  const byAddress = new Map<string, RequestRecord[]>();
  for (const r of log) {
    if (r.localAddress === undefined) continue;
    let list = byAddress.get(r.localAddress);
    if (!list) byAddress.set(r.localAddress, (list = []));
    list.push(r);
  }
  const violations: string[] = [];
  const mostOpen = new Map<string, number>();
  const requests = new Map<string, number>();
  for (const [address, list] of byAddress) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    requests.set(address, list.length);
    // Open requests at each arrival: those arrived before it and not yet ended (an end at the same instant
    // as an arrival has ended: the server finished the one before it heard the other).
    const open: RequestRecord[] = [];
    let most = 0;
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      for (let j = open.length - 1; j >= 0; j--) if (open[j]!.endedAt <= r.startedAt) open.splice(j, 1);
      open.push(r);
      most = Math.max(most, open.length);
      if (open.length > policy.maxInFlight) {
        violations.push(
          `${address}: ${open.length} requests open at once (cap ${policy.maxInFlight}) when ${r.host}${r.path} arrived: ${open
            .map((o) => `${o.host}${o.path}`)
            .join(", ")}`,
        );
      }
      const before = list[i - 1];
      if (before !== undefined && r.startedAt - before.startedAt < policy.gapMs) {
        violations.push(
          `${address}: ${r.host}${r.path} arrived ${(r.startedAt - before.startedAt).toFixed(3)} ms after ${before.host}${before.path} (gap ${policy.gapMs} ms; connections ${before.connection} then ${r.connection}, ${before.headers["user-agent"] === r.headers["user-agent"] ? "one client" : "two clients"})`,
        );
      }
    }
    mostOpen.set(address, most);
  }
  return { violations, mostOpen, requests };
}

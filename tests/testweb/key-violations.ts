/**
 * Politeness per key, judged from the test web's own log: for every key (a host, a registrable domain, a
 * server address: `keyOf` says which of a request's), one request at a time, and at least `gapMs` from the
 * end of one request to the start of the next (a request starting before an earlier one ended breaches
 * both). No tolerance. Also counts, per key, the requests and the hosts that shared the key, so a test can
 * show the key really was shared.
 */
import type { RequestRecord } from "./types.ts";

export interface KeyVerdict {
  /** One line per breach, for a failing test to print. */
  violations: string[];
  /** Key -> requests it received. */
  requests: Map<string, number>;
  /** Key -> distinct hosts whose requests it received. */
  hosts: Map<string, number>;
}

export function judgeKeys(log: readonly RequestRecord[], keyOf: (r: RequestRecord) => string | undefined, gapMs: number): KeyVerdict {
  const byKey = new Map<string, RequestRecord[]>();
  for (const r of log) {
    const key = keyOf(r);
    if (key === undefined) continue;
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(r);
  }
  const violations: string[] = [];
  const requests = new Map<string, number>();
  const hosts = new Map<string, number>();
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    requests.set(key, list.length);
    hosts.set(key, new Set(list.map((r) => r.host)).size);
    // The latest end of the requests started before this one: the key was busy until then.
    let last: RequestRecord | undefined;
    for (const r of list) {
      if (last !== undefined && r.startedAt - last.endedAt < gapMs) {
        const what =
          r.startedAt < last.endedAt ? "while it was still open" : `${(r.startedAt - last.endedAt).toFixed(3)} ms after it ended`;
        violations.push(`${key}: ${r.host}${r.path} arrived ${what}: ${last.host}${last.path} (gap ${gapMs} ms)`);
      }
      if (last === undefined || r.endedAt > last.endedAt) last = r;
    }
  }
  return { violations, requests, hosts };
}

/**
 * The politeness checker: reads a request log and lists every rule a crawler broke, per host. Timing is
 * judged on the server's own instants, with no tolerance: a request must not arrive while another to the
 * same host is still open, and must arrive no sooner than the end of the previous response (the instant
 * the server finished sending it, or saw the connection close) plus the largest of minGapMs,
 * gapMultiplier × that request's duration as the server saw it, the host's Crawl-delay and any
 * Retry-After it sent. robots.txt is a request like any other: the gap runs after it too. robots.txt must
 * have been fetched before any page of its host, the pages must be allowed by it, and a host whose
 * robots.txt failed may get no other request at all.
 */
import { robotsPaths, verdictFor, type RobotsVerdict } from "./robots.ts";
import type { PolitenessPolicy, RequestRecord, RobotsPolicy, Violation } from "./types.ts";

/** Checks `log` against `policy`; `robotsOf` gives each host's robots policy (undefined: unknown host). */
export function findViolations(
  log: readonly RequestRecord[],
  robotsOf: (host: string) => RobotsPolicy | undefined,
  policy: PolitenessPolicy,
): Violation[] {
  const byHost = new Map<string, RequestRecord[]>();
  for (const r of log) {
    let list = byHost.get(r.host);
    if (!list) byHost.set(r.host, (list = []));
    list.push(r);
  }
  const out: Violation[] = [];
  for (const [host, list] of byHost) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    const robots = robotsOf(host);
    const verdict = robots && verdictFor(robots, policy.userAgent);
    const own = new Set(robots ? robotsPaths(robots) : []);
    checkTiming(host, list, verdict, policy, out);
    if (robots && verdict) checkRobots(host, list, own, verdict, out);
  }
  return out.sort((a, b) => a.request.startedAt - b.request.startedAt);
}

function checkTiming(
  host: string,
  list: readonly RequestRecord[],
  verdict: RobotsVerdict | undefined,
  policy: PolitenessPolicy,
  out: Violation[],
): void {
  // `prev` is the earlier request that ended last: the one the next request must keep its distance from.
  let prev: RequestRecord | undefined;
  for (const r of list) {
    if (prev) {
      if (r.startedAt < prev.endedAt) {
        out.push({
          kind: "concurrent",
          host,
          path: r.path,
          message: `${host}: ${r.method} ${r.path} started while ${prev.path} was still in flight (${open(prev, r)})`,
          request: r,
          previous: prev,
        });
      } else {
        const need = required(prev, verdict, policy);
        const gap = r.startedAt - prev.endedAt;
        if (gap < need.ms) {
          out.push({
            kind: need.kind,
            host,
            path: r.path,
            message: `${host}: ${r.method} ${r.path} started ${ms(gap)} after ${prev.path} ended; needs ≥ ${ms(need.ms)} (${need.why}), ${ms(need.ms - gap)} short`,
            request: r,
            previous: prev,
            shortByMs: need.ms - gap,
          });
        }
      }
    }
    if (!prev || r.endedAt > prev.endedAt) prev = r;
  }
}

interface Requirement {
  ms: number;
  kind: "gap" | "crawl-delay" | "retry-after";
  why: string;
}

/** The largest of the waits owed after `prev`, with the rule that asks for it. */
function required(prev: RequestRecord, verdict: RobotsVerdict | undefined, policy: PolitenessPolicy): Requirement {
  let need: Requirement = { ms: policy.minGapMs, kind: "gap", why: "minGapMs" };
  const consider = (ms: number, kind: Requirement["kind"], why: string): void => {
    if (ms > need.ms) need = { ms, kind, why };
  };
  // Only a finished response has a duration the crawler could measure; an abandoned one is a timeout.
  if (policy.gapMultiplier > 0 && prev.completed) {
    const d = prev.endedAt - prev.startedAt;
    consider(policy.gapMultiplier * d, "gap", `${policy.gapMultiplier} × ${ms(d)} fetch time`);
  }
  if (verdict && verdict.crawlDelayMs > 0) consider(verdict.crawlDelayMs, "crawl-delay", "Crawl-delay");
  if (prev.retryAfter !== undefined) {
    // The recorder's wall-clock reading; a record made by hand without one is read on its own clock.
    const wait = prev.retryAfterWaitMs ?? retryAfterMs(prev.retryAfter, prev.endedAt);
    if (wait !== undefined) consider(wait, "retry-after", `Retry-After: ${prev.retryAfter}`);
  }
  return need;
}

/** A Retry-After value (seconds or HTTP date) as milliseconds after `from`, a wall-clock time for a date. */
export function retryAfterMs(value: string, from: number): number | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - from);
}

function checkRobots(
  host: string,
  list: readonly RequestRecord[],
  robotsOwn: ReadonlySet<string>,
  verdict: RobotsVerdict,
  out: Violation[],
): void {
  // robots.txt is known once every request that makes it up (the file, any redirect target) has ended.
  let knownAt = Number.NEGATIVE_INFINITY;
  for (const p of robotsOwn) {
    const first = list.find((r) => r.path === p);
    knownAt = Math.max(knownAt, first ? first.endedAt : Number.POSITIVE_INFINITY);
  }
  for (const r of list) {
    if (robotsOwn.has(r.path)) continue;
    if (r.startedAt < knownAt) {
      out.push({
        kind: "before-robots",
        host,
        path: r.path,
        message: `${host}: ${r.method} ${r.path} requested before robots.txt (${[...robotsOwn].join(", ")}) had been fetched`,
        request: r,
      });
    }
    if (verdict.unavailable) {
      out.push({
        kind: "robots-unavailable",
        host,
        path: r.path,
        message: `${host}: ${r.method} ${r.path} requested although robots.txt failed (nothing may be fetched)`,
        request: r,
      });
    } else if (!verdict.allowed(r.path)) {
      out.push({
        kind: "disallowed",
        host,
        path: r.path,
        message: `${host}: ${r.method} ${r.path} is disallowed by robots.txt`,
        request: r,
      });
    }
  }
}

function open(prev: RequestRecord, r: RequestRecord): string {
  return prev.endedAt === Number.POSITIVE_INFINITY ? "never finished" : `it ended ${ms(prev.endedAt - r.startedAt)} later`;
}

/** Milliseconds as logged: to the hundredth unless whole, so that 999.99 never reads as 1000. */
function ms(x: number): string {
  return Number.isInteger(x) ? `${x} ms` : `${x.toFixed(2)} ms`;
}

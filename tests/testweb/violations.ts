/**
 * The politeness checker: reads a request log and lists every rule a crawler broke, per host. Timing is
 * judged on server-side times: a request must not start while another to the same host is still open,
 * and must start no sooner than the previous response's end plus the largest of minGapMs, the optional
 * gapMultiplier × that request's duration, the host's Crawl-delay and any Retry-After it sent (minus a
 * tolerance for timer jitter). robots.txt must have been fetched before any page of its host, the pages
 * must be allowed by it, and a host whose robots.txt failed may get no other request at all.
 */
import { robotsPaths, verdictFor, type RobotsVerdict } from "./robots.ts";
import type { PolitenessPolicy, RequestRecord, RobotsPolicy, Violation } from "./types.ts";

export const DEFAULT_TOLERANCE_MS = 50;

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
    checkTiming(host, list, own, verdict, policy, out);
    if (robots && verdict) checkRobots(host, list, own, verdict, out);
  }
  return out.sort((a, b) => a.request.startedAt - b.request.startedAt);
}

function checkTiming(
  host: string,
  list: readonly RequestRecord[],
  robotsOwn: ReadonlySet<string>,
  verdict: RobotsVerdict | undefined,
  policy: PolitenessPolicy,
  out: Violation[],
): void {
  const tolerance = policy.toleranceMs ?? DEFAULT_TOLERANCE_MS;
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
      } else if (policy.gapAfterRobots || !robotsOwn.has(prev.path)) {
        const need = required(prev, verdict, policy);
        const gap = r.startedAt - prev.endedAt;
        if (gap < need.ms - tolerance) {
          out.push({
            kind: need.kind,
            host,
            path: r.path,
            message: `${host}: ${r.method} ${r.path} started ${ms(gap)} after ${prev.path} ended; needs ≥ ${ms(need.ms)} (${need.why}, tolerance ${tolerance} ms)`,
            request: r,
            previous: prev,
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
  if (policy.gapMultiplier && prev.completed) {
    const d = prev.endedAt - prev.startedAt;
    consider(policy.gapMultiplier * d, "gap", `${policy.gapMultiplier} × ${ms(d)} fetch time`);
  }
  if (verdict && verdict.crawlDelayMs > 0) consider(verdict.crawlDelayMs, "crawl-delay", "Crawl-delay");
  if (prev.retryAfter !== undefined) {
    const wait = retryAfterMs(prev.retryAfter, prev.endedAt);
    if (wait !== undefined) consider(wait, "retry-after", `Retry-After: ${prev.retryAfter}`);
  }
  return need;
}

/** A Retry-After value (seconds or HTTP date) as milliseconds after `from`. */
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

function ms(x: number): string {
  return `${Math.round(x)} ms`;
}

/**
 * The crawler-trap limits applied to each discovered URL before it is queued (seeds 000-002): a
 * maximum URL length, no path segment repeated too often, a cap on the URLs queued for one host, and a
 * cap on the pages fetched from one host per UTC day. Each refusal names its reason, so it can be counted
 * and explained. The depth limit, a user's knob more than a trap rule, is core/scope's.
 *
 * Repeated segments: any segment is counted wherever it occurs in the path, not only in consecutive
 * runs, because the common trap is a relative link resolved again and again (`/a/b/` linking to
 * `a/b/`), which makes cycles such as `/a/b/a/b/a/` where no segment repeats back to back. A segment
 * occurring `maxRepeatedSegment` times (default 3) or more rejects the URL; twice is allowed, since
 * paths such as `/en/docs/en/` are legitimate. Empty segments and the query are ignored.
 */
import type { PolicyConfig } from "../config/index.ts";
import { pathSegments, pathSlashes } from "./url-parts.ts";

export type TrapReason = "url-too-long" | "repeated-segment" | "host-queue-full" | "host-daily-cap" | "url-pattern-flood";

/** Accepted, or refused with a reason and a human-readable detail for `explain`. */
export type TrapVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: TrapReason; readonly detail: string };

/** What the frontier knows about a URL's context when it is discovered. */
export interface TrapContext {
  /** URLs of the same host already queued. */
  readonly hostQueued: number;
  /** Pages of the same host fetched today (UTC), e.g. from a DailyCounter. */
  readonly hostPagesToday: number;
}

/** The slice of the policy that the trap checks read. */
export type TrapConfig = Pick<PolicyConfig, "maxUrlLength" | "maxRepeatedSegment" | "maxQueuePerHost" | "maxPagesPerHostPerDay">;

const OK: TrapVerdict = Object.freeze({ ok: true });

/** The most frequent path segment and how often it occurs, or undefined for an empty path. */
export function mostRepeatedSegment(url: string): { readonly segment: string; readonly count: number } | undefined {
  const counts = new Map<string, number>();
  let best: { segment: string; count: number } | undefined;
  for (const segment of pathSegments(url)) {
    const count = (counts.get(segment) ?? 0) + 1;
    counts.set(segment, count);
    if (!best || count > best.count) best = { segment, count };
  }
  return best;
}

/**
 * Checks a normalized URL against the trap limits, cheapest first, and returns the first one broken.
 * The daily cap refuses new URLs of a host that used up today's fetches; the frontier should also stop
 * fetching that host until the next UTC day (see `nextUtcDayStart`).
 */
export function checkTrap(url: string, ctx: TrapContext, cfg: TrapConfig): TrapVerdict {
  if (url.length > cfg.maxUrlLength) {
    return { ok: false, reason: "url-too-long", detail: `${url.length} characters, the limit is ${cfg.maxUrlLength}` };
  }
  // A path with fewer slashes than the limit cannot repeat a segment that often: most URLs stop here.
  const repeated = pathSlashes(url) < cfg.maxRepeatedSegment ? undefined : mostRepeatedSegment(url);
  if (repeated && repeated.count >= cfg.maxRepeatedSegment) {
    return {
      ok: false,
      reason: "repeated-segment",
      detail: `path segment "${repeated.segment}" occurs ${repeated.count} times (${cfg.maxRepeatedSegment} or more is a trap)`,
    };
  }
  if (ctx.hostQueued >= cfg.maxQueuePerHost) {
    return { ok: false, reason: "host-queue-full", detail: `${ctx.hostQueued} URLs queued, the limit is ${cfg.maxQueuePerHost}` };
  }
  if (ctx.hostPagesToday >= cfg.maxPagesPerHostPerDay) {
    return {
      ok: false,
      reason: "host-daily-cap",
      detail: `${ctx.hostPagesToday} pages fetched today, the limit is ${cfg.maxPagesPerHostPerDay}`,
    };
  }
  return OK;
}

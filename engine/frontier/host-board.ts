/**
 * The host report of a frontier (core/dashboard HostReport): the slowest, the most throttled and the
 * robots-parked among its active hosts (those in memory: work queued or a fetch in flight), a few of each,
 * and the politeness figures behind its gauges (throttled and parked hosts, the largest gap). One pass over
 * the active hosts with a bounded top-k per list, so its cost follows the active hosts, not the crawl's
 * size; reports.ts caches the result for a second, since dashboards, heartbeats and /metrics all ask.
 */
import type { HostReport, HostRow } from "../../core/dashboard/index.ts";
import type { HostEntry } from "./host-entry.ts";

/** Rows per list. */
export const BOARD_ROWS = 10;

export function hostReport(hosts: Iterable<HostEntry>, limit = BOARD_ROWS): HostReport {
  const slowest = new TopK<HostEntry>(limit);
  const throttled = new TopK<HostEntry>(limit);
  const parked = new TopK<HostEntry>(limit);
  let activeHosts = 0;
  let throttledHosts = 0;
  let parkedHosts = 0;
  let largestGapMs = 0;
  let largestGapHost = "";
  for (const e of hosts) {
    activeHosts++;
    const s = e.state;
    if ((e.fetchMs ?? 0) > 0) slowest.offer(e, e.fetchMs!);
    if (s.throttleMs > 0) {
      throttledHosts++;
      throttled.offer(e, s.throttleMs + s.throttles / 1e6);
    }
    if (e.robots?.stored.verdict === "disallow-all") {
      parkedHosts++;
      parked.offer(e, -e.robots.stored.expiresAt);
    }
    if (s.gapMs > largestGapMs) {
      largestGapMs = s.gapMs;
      largestGapHost = e.key;
    }
  }
  return {
    board: { slowest: slowest.sorted().map(row), throttled: throttled.sorted().map(row), parked: parked.sorted().map(row) },
    politeness: { activeHosts, throttledHosts, parkedHosts, largestGapMs, largestGapHost },
  };
}

function row(e: HostEntry): HostRow {
  const s = e.state;
  return {
    host: e.key,
    queued: e.queued,
    inFlight: e.inFlight !== undefined,
    gapMs: s.gapMs,
    nextAllowedAt: s.nextAllowedAt,
    throttleMs: s.throttleMs,
    throttles: s.throttles,
    fetchMs: Math.round(e.fetchMs ?? 0),
    fetches: s.fetches,
    lastStatus: s.lastStatus ?? 0,
    lastError: s.lastError ?? "",
    robotsVerdict: e.robots?.stored.verdict ?? "unknown",
    robotsExpiresAt: e.robots?.stored.expiresAt ?? 0,
  };
}

/** The k items of highest score seen, kept in a small sorted array (k is a dozen). */
class TopK<T> {
  private readonly items: Array<{ item: T; score: number }> = [];

  constructor(private readonly k: number) {}

  offer(item: T, score: number): void {
    const items = this.items;
    if (items.length === this.k && score <= items[items.length - 1]!.score) return;
    let i = items.length;
    while (i > 0 && items[i - 1]!.score < score) i--;
    items.splice(i, 0, { item, score });
    if (items.length > this.k) items.pop();
  }

  sorted(): T[] {
    return this.items.map((x) => x.item);
  }
}

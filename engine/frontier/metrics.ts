/**
 * The gauges a frontier exports, under the same names in `crawl` and in every frontier node (so one Grafana
 * board and one dashboard read both): its queue and host totals from `snapshot()`, and the politeness
 * figures of its host report. Counters and histograms are the Frontier's own `counters` and `histograms`.
 */
import type { Frontier } from "./frontier.ts";

export function frontierGauges(frontier: Frontier): Record<string, number> {
  const s = frontier.snapshot();
  const p = frontier.hostReport().politeness;
  return {
    queued: s.queued,
    scheduled: s.scheduled,
    sitemapsPending: s.sitemapsPending,
    knownUrls: s.knownUrls,
    activeHosts: s.activeHosts,
    hostsReady: s.hostsReady,
    hostsWaiting: s.hostsWaiting,
    hostsCold: s.hostsCold,
    inFlight: s.inFlight,
    hostsThrottled: p.throttledHosts,
    hostsParked: p.parkedHosts,
    largestGapSeconds: p.largestGapMs / 1000,
  };
}

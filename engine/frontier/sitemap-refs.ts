/**
 * The frontier's side of sitemaps, as small pure steps: which sitemaps a robots.txt result names for its
 * host (`Sitemap:` lines, resolved against the robots.txt URL; with `--sitemaps probe`, the default, and
 * none named, `/sitemap.xml`: the probe), each granted the robots.txt's origin (core/sitemap: a robots.txt
 * vouches for the sitemaps it names, wherever they live); telling sitemap references apart from page links;
 * and counting what a sitemap task found. The probe is a guess, so what it finds absent (404, 410) or not a
 * sitemap is counted apart (`sitemap.probe.*`) and not as a fetch error: most hosts have none, and a crawl
 * of a thousand hosts must not report a thousand 404s. The frontier keeps the sitemaps themselves
 * (host-sitemaps.ts over store/sitemap-table.ts, a probed one like any other) and issues their tasks (scheduling.ts).
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult } from "../../core/model/index.ts";
import { parseRobots } from "../../core/robots/index.ts";
import { robotsGrant } from "../../core/sitemap/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import { hostKeyOf, normalizeUrl, originOf } from "../../core/url/index.ts";

/** The sitemaps a robots.txt result names for its host (or the one to probe), as sitemap references. */
export function robotsSitemapRefs(result: FetchResult, mode: PolicyConfig["sitemaps"], depth: number): DiscoveredUrl[] {
  if (mode === "off" || result.kind !== "response" || !result.robots || result.robots.verdict === "disallow-all") return [];
  const named = result.robots.verdict === "parse" ? parseRobots(result.robots.text ?? "").sitemaps : [];
  const urls: string[] = [];
  for (const raw of named) {
    const n = normalizeUrl(raw, result.url);
    if (n.ok && !urls.includes(n.url)) urls.push(n.url);
  }
  if (urls.length === 0 && mode === "probe") urls.push(probeUrlOf(result.url));
  const grants = [robotsGrant(result.url)];
  return urls.map((url) => ({ url, host: hostKeyOf(url), depth, sourceUrl: result.url, redirectHops: 0, sitemap: { grants } }));
}

/** The sitemap probed on a host whose robots.txt names none: `/sitemap.xml` of its origin. */
export function probeUrlOf(url: string): string {
  return `${originOf(url)}/sitemap.xml`;
}

/**
 * Whether a sitemap is the probe: `/sitemap.xml` of its host, not from an index nor a redirect, on a host
 * whose robots.txt names no sitemap (`robotsNamesSitemaps` false; an absent robots.txt names none). A
 * robots.txt that names `/sitemap.xml` itself makes it a named sitemap, counted as one.
 */
export function isSitemapProbe(row: { url: string; fromIndex: boolean; hops: number }, robotsNamesSitemaps: boolean): boolean {
  if (row.fromIndex || row.hops > 0 || row.url !== probeUrlOf(row.url)) return false;
  return !robotsNamesSitemaps;
}

/** A probe's answer that says the host has no sitemap there: 404 or 410, counted quietly. */
export function probeFoundNone(result: FetchResult): boolean {
  return result.kind === "response" && (result.status === 404 || result.status === 410);
}

/** Splits discovered URLs into page links and sitemap references. */
export function splitSitemapRefs(urls: readonly DiscoveredUrl[]): { pages: DiscoveredUrl[]; refs: DiscoveredUrl[] } {
  const pages: DiscoveredUrl[] = [];
  const refs: DiscoveredUrl[] = [];
  for (const u of urls) (u.sitemap ? refs : pages).push(u);
  return { pages, refs };
}

/**
 * Counts a sitemap task's outcome under `sitemap.`: formats, entries taken, entries refused, limits hit. A
 * probe is also counted as `sitemap.probed`; one that found none as `sitemap.probe.absent` (404, 410) or
 * `sitemap.probe.not-a-sitemap` (an answer that is no sitemap: an HTML page, a feed) instead.
 */
export function countSitemapResult(counters: Counters, result: FetchResult, probe = false): void {
  const s = result.sitemap;
  if (probe) {
    counters.add("sitemap.probed");
    if (probeFoundNone(result)) return void counters.add("sitemap.probe.absent");
    if (s?.format === "not-a-sitemap") return void counters.add("sitemap.probe.not-a-sitemap");
  }
  if (!s) {
    counters.add(result.kind === "response" ? `sitemap.unread.status-${result.status}` : "sitemap.unread.no-response");
    return;
  }
  counters.add(`sitemap.read.${s.format}`);
  if (s.format === "rss" || s.format === "atom") {
    counters.add("feed.read");
    if (s.entries > 0) counters.add("feed.items", s.entries);
  }
  if (s.entries > 0) counters.add(s.format === "index" ? "sitemap.index-entries" : "sitemap.entries", s.entries);
  if (s.outOfLocation > 0) counters.add("sitemap.entries-out-of-location", s.outOfLocation);
  if (s.invalid > 0) counters.add("sitemap.entries-invalid", s.invalid);
  if (s.limit) counters.add(`sitemap.limit.${s.limit}`);
  if (s.nestedIndex) counters.add("sitemap.nested-index");
}

/**
 * The frontier's side of sitemaps, as small pure steps: which sitemaps a robots.txt result names for its
 * host (`Sitemap:` lines, resolved against the robots.txt URL; with `--sitemaps probe` and none named,
 * `/sitemap.xml`), each granted the robots.txt's origin (core/sitemap: a robots.txt vouches for the
 * sitemaps it names, wherever they live); telling sitemap references apart from page links; and counting
 * what a sitemap task found. The Frontier keeps the sitemaps themselves (store/sitemap-table.ts) and
 * issues their tasks.
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
  if (urls.length === 0 && mode === "probe") urls.push(`${originOf(result.url)}/sitemap.xml`);
  const grants = [robotsGrant(result.url)];
  return urls.map((url) => ({ url, host: hostKeyOf(url), depth, sourceUrl: result.url, redirectHops: 0, sitemap: { grants } }));
}

/** Splits discovered URLs into page links and sitemap references. */
export function splitSitemapRefs(urls: readonly DiscoveredUrl[]): { pages: DiscoveredUrl[]; refs: DiscoveredUrl[] } {
  const pages: DiscoveredUrl[] = [];
  const refs: DiscoveredUrl[] = [];
  for (const u of urls) (u.sitemap ? refs : pages).push(u);
  return { pages, refs };
}

/** Counts a sitemap task's outcome under `sitemap.`: formats, entries taken, entries refused, limits hit. */
export function countSitemapResult(counters: Counters, result: FetchResult): void {
  const s = result.sitemap;
  if (!s) {
    counters.add(result.kind === "response" ? `sitemap.unread.status-${result.status}` : "sitemap.unread.no-response");
    return;
  }
  counters.add(`sitemap.read.${s.format}`);
  if (s.entries > 0) counters.add(s.format === "index" ? "sitemap.index-entries" : "sitemap.entries", s.entries);
  if (s.outOfLocation > 0) counters.add("sitemap.entries-out-of-location", s.outOfLocation);
  if (s.invalid > 0) counters.add("sitemap.entries-invalid", s.invalid);
  if (s.limit) counters.add(`sitemap.limit.${s.limit}`);
  if (s.nestedIndex) counters.add("sitemap.nested-index");
}

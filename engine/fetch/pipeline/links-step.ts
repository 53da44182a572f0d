/**
 * The parse step's output side: the links of a page, normalized (core/url), each with its host key, depth
 * and source, without the ones the page asked us not to follow (rel=nofollow, meta robots or X-Robots-Tag
 * nofollow) and without repeats. Links that do not normalize (mailto:, javascript:, garbage) are dropped.
 */
import type { DiscoveredUrl, FetchTask } from "../../../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import type { ExtractedPage } from "../parse/index.ts";

/** The links of `page` worth following: none when the whole page is nofollow. */
export function selectLinks(task: FetchTask, page: ExtractedPage, pageNofollow: boolean): DiscoveredUrl[] {
  const links: DiscoveredUrl[] = [];
  if (pageNofollow) return links;
  const seen = new Set<string>();
  for (const link of page.links) {
    if (link.nofollow || !link.resolved) continue;
    const n = normalizeUrl(link.resolved);
    if (!n.ok || seen.has(n.url)) continue;
    seen.add(n.url);
    links.push({ url: n.url, host: hostKeyOf(n.url), depth: task.depth + 1, sourceUrl: task.url, redirectHops: 0 });
  }
  return links;
}

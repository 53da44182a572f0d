/**
 * The parse step's output side: the links of a page, normalized (core/url), each with its host key, depth
 * and source, without the ones the page asked us not to follow (rel=nofollow, meta robots or X-Robots-Tag
 * nofollow) and without repeats. Links that do not normalize (mailto:, javascript:, garbage) are dropped.
 * A home page's `<link rel="alternate">` to an RSS or Atom feed is a feed to read (a sitemap reference
 * marked `feed`, vouched for by the home page's origin), not a page to fetch.
 */
import type { DiscoveredUrl, FetchTask } from "../../../core/model/index.ts";
import { hostKeyOf, isHomePage, normalizeUrl, originOf } from "../../../core/url/index.ts";
import type { ExtractedPage } from "../parse/index.ts";

/** The links of `page` worth following: none when the whole page is nofollow. */
export function selectLinks(task: FetchTask, page: ExtractedPage, pageNofollow: boolean): DiscoveredUrl[] {
  const links: DiscoveredUrl[] = [];
  if (pageNofollow) return links;
  const seen = new Set<string>();
  const home = isHomePage(task.url);
  for (const link of page.links) {
    if (link.nofollow || !link.resolved) continue;
    const n = normalizeUrl(link.resolved);
    if (!n.ok || seen.has(n.url)) continue;
    seen.add(n.url);
    if (home && isFeedLink(link)) {
      const grants = [`${originOf(task.url)}/`];
      links.push({
        url: n.url,
        host: hostKeyOf(n.url),
        depth: task.depth,
        sourceUrl: task.url,
        redirectHops: 0,
        sitemap: { grants, feed: true },
      });
      continue;
    }
    links.push({ url: n.url, host: hostKeyOf(n.url), depth: task.depth + 1, sourceUrl: task.url, redirectHops: 0 });
  }
  return links;
}

const FEED_TYPES = new Set(["application/rss+xml", "application/atom+xml"]);

/** `<link rel="alternate" type="application/rss+xml|application/atom+xml">`. */
function isFeedLink(link: ExtractedPage["links"][number]): boolean {
  return link.tag === "link" && link.type !== undefined && FEED_TYPES.has(link.type) && /(?:^|\s)alternate(?:\s|$)/i.test(link.rel ?? "");
}

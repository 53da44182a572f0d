/**
 * The parse step's output side: the links of a page, normalized (core/url) and addressed to their hosts,
 * without the ones the page asked us not to follow (rel=nofollow, meta robots or X-Robots-Tag nofollow).
 * Links that do not normalize (mailto:, javascript:, garbage) are counted and dropped.
 */
import type { DiscoveredUrl, FetchTask } from "../../../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import type { ExtractedPage } from "../parse/index.ts";

export interface LinkSelection {
  links: DiscoveredUrl[];
  nofollowed: number;
  rejected: number;
}

export function selectLinks(task: FetchTask, page: ExtractedPage, pageNofollow: boolean): LinkSelection {
  const links: DiscoveredUrl[] = [];
  const seen = new Set<string>();
  let nofollowed = 0;
  let rejected = 0;
  if (pageNofollow) return { links, nofollowed: page.links.length, rejected };
  for (const link of page.links) {
    if (link.nofollow) {
      nofollowed++;
      continue;
    }
    if (!link.resolved) {
      rejected++;
      continue;
    }
    const n = normalizeUrl(link.resolved);
    if (!n.ok) {
      rejected++;
      continue;
    }
    if (seen.has(n.url)) continue;
    seen.add(n.url);
    links.push({ url: n.url, host: hostKeyOf(n.url), depth: task.depth + 1, sourceUrl: task.url, redirectHops: 0 });
  }
  return { links, nofollowed, rejected };
}

/**
 * The media of a page, in two forms. The list kept with the page (its WARC metadata record and the media
 * list): every http(s) media URL as the page resolves it, each once, in document order. And, when the task
 * asks for media (the frontier's --fetch-media) and the page lets its links be followed, the same URLs
 * normalized (core/url) as discovered URLs of kind "media", one link deeper than the page, for the frontier
 * to admit like any link: the same admission checks, the same politeness when fetched.
 */
import type { DiscoveredUrl, FetchTask, MediaRef } from "../../../core/model/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import type { ExtractedPage } from "../parse/index.ts";

export interface PageMedia {
  refs: MediaRef[];
  urls: DiscoveredUrl[];
}

export function selectMedia(task: FetchTask, page: ExtractedPage, pageNofollow: boolean): PageMedia {
  const refs: MediaRef[] = [];
  const urls: DiscoveredUrl[] = [];
  if (page.media.length === 0) return { refs, urls };
  const listed = new Set<string>();
  const queued = new Set<string>();
  const fetch = task.fetchMedia === true && !pageNofollow;
  for (const m of page.media) {
    if (!m.resolved || listed.has(m.resolved)) continue;
    listed.add(m.resolved);
    refs.push({ url: m.resolved, kind: m.kind, via: m.via });
    if (!fetch) continue;
    const n = normalizeUrl(m.resolved);
    if (!n.ok || queued.has(n.url)) continue;
    queued.add(n.url);
    urls.push({ url: n.url, host: hostKeyOf(n.url), depth: task.depth + 1, sourceUrl: task.url, redirectHops: 0, kind: "media" });
  }
  return { refs, urls };
}

/**
 * The special hosts, each a named behaviour documented in ../README.md. Built fresh for every test web
 * (some keep counters), and only when a test asks for them with `special: true`.
 */
import type { HostBehaviour } from "../types.ts";
import { bodyHosts } from "./bodies.ts";
import { brokenHosts } from "./broken.ts";
import { conditionalHosts } from "./conditional.ts";
import { dupHosts } from "./dup.ts";
import { mediaHosts } from "./media.ts";
import { nearDupHosts } from "./neardup.ts";
import { nofollowHosts } from "./nofollow.ts";
import { redirectHosts } from "./redirects.ts";
import { renderHosts } from "./render.ts";
import { robotsHosts } from "./robots-hosts.ts";
import { scopeHosts } from "./scope.ts";
import { sitemapHosts } from "./sitemaps.ts";
import { throttleHosts } from "./throttle.ts";
import { timingHosts } from "./timing.ts";
import { trapHosts } from "./traps.ts";

export function specialHosts(seed: number): Record<string, HostBehaviour> {
  return {
    ...robotsHosts(),
    ...timingHosts(),
    ...throttleHosts(),
    ...redirectHosts(),
    ...trapHosts(),
    ...brokenHosts(),
    ...bodyHosts(),
    ...nofollowHosts(),
    ...conditionalHosts(),
    ...dupHosts(seed),
    ...sitemapHosts(),
    ...scopeHosts(),
    ...nearDupHosts(seed),
    ...mediaHosts(),
    ...renderHosts(),
  };
}

export { MALFORMED_LINKS } from "./broken.ts";
export { BOMB_BYTES, HUGE_BYTES } from "./bodies.ts";
export { ETAG_LAST_MODIFIED, stableEtag } from "./conditional.ts";
export { MEDIA_HUGE_BYTES, MEDIA_ON_PAGE } from "./media.ts";
export { LONG_CHAIN } from "./redirects.ts";
export { RENDERED_LATE_LINKS, RENDERED_LINKS } from "./render.ts";
export { SCOPE_CHAIN } from "./scope.ts";
export { SITEMAP_BIG_BEYOND, SITEMAP_BIG_FILLERS, SITEMAP_BIG_KEPT, SITEMAP_HUGE_PADDING, urlsetXml } from "./sitemaps.ts";
export { RATELIMIT_COUNT, RATELIMIT_RETRY_AFTER_S, UNAVAILABLE_COUNT, UNAVAILABLE_RETRY_AFTER_S } from "./throttle.ts";
export { DRIP_INTERVAL_MS, SLOW_MS } from "./timing.ts";

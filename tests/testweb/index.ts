/**
 * The synthetic web that end-to-end tests and the benchmark crawl instead of the internet: many virtual
 * hosts on one loopback port, reachable directly (Host header) or through it as a forward proxy, with a
 * request log and a politeness checker. See README.md for the hosts and their behaviours.
 */
export { SITEMAP_PROBE_PATH, startTestWeb, resolveShape, webUrl, type TestWeb } from "./server.ts";
export { expectedPages, type ExpectedOptions, type ExpectedPages } from "./expected.ts";
export { findViolations, retryAfterMs } from "./violations.ts";
export { judgeAddresses, type AddressPolicy, type AddressVerdict } from "./address-violations.ts";
export { judgeKeys, type KeyVerdict } from "./key-violations.ts";
export { logClock, onLogClock } from "./clock.ts";
export { FAULT_RETRY_AFTER_S, FAULT_SLOW_MS, faultyHosts, type FaultKind, type FaultShares } from "./faults.ts";
export { refusedPort, type RefusedPort } from "./refused.ts";
export { isAllowed, parseRobots, verdictFor } from "./robots.ts";
export { SITE_ROBOTS, siteHost, siteLinks, sitePage, type SiteLink } from "./site.ts";
export { prosePool } from "./text.ts";
export {
  BOMB_BYTES,
  DRIP_INTERVAL_MS,
  ETAG_LAST_MODIFIED,
  HUGE_BYTES,
  LONG_CHAIN,
  MALFORMED_LINKS,
  MEDIA_HUGE_BYTES,
  MEDIA_ON_PAGE,
  RENDERED_LATE_LINKS,
  RENDERED_LINKS,
  RATELIMIT_COUNT,
  RATELIMIT_RETRY_AFTER_S,
  SCOPE_CHAIN,
  SITEMAP_BIG_BEYOND,
  SITEMAP_BIG_FILLERS,
  SITEMAP_BIG_KEPT,
  SITEMAP_HUGE_PADDING,
  SLOW_MS,
  UNAVAILABLE_COUNT,
  UNAVAILABLE_RETRY_AFTER_S,
  stableEtag,
  urlsetXml,
} from "./special/index.ts";
export { homePageHeldOnce } from "./held-home-page.ts";
export { newsSite, type NewsSite } from "./news-site.ts";
export { SHARED_DOMAINS, sharedServerHosts, type SharedServerWeb } from "./shared-servers.ts";
export type {
  HostBehaviour,
  PolitenessPolicy,
  RequestRecord,
  RobotsPolicy,
  ServeContext,
  SiteShape,
  TestWebOptions,
  Violation,
  ViolationKind,
} from "./types.ts";

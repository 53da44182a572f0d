/**
 * robots.txt per RFC 9309: the face of core/robots. Parse a body once per host (`parseRobots`), build
 * the crawler's policy from it (`policyFor`, compiled, fast enough to ask per URL), and decide from the
 * fetch outcome whether there is a body to parse at all (`robotsVerdict`) and how long the answer may be
 * cached (`robotsExpiresAt`). Pure and runtime-neutral: no I/O, no clock (times are passed in).
 */
export {
  parseRobots,
  productToken,
  sitemaps,
  ROBOTS_MAX_BYTES,
  ROBOTS_MAX_CRAWL_DELAY_MS,
  type RobotsGroup,
  type RobotsRule,
  type RobotsRules,
} from "./parse.ts";
export { isAllowed, policyFor, type RobotsDecision, type RobotsPolicy } from "./policy.ts";
export {
  robotsExpiresAt,
  robotsVerdict,
  ROBOTS_DISALLOW_MAX_AGE_MS,
  ROBOTS_MAX_AGE_MS,
  ROBOTS_MAX_REDIRECTS,
  type RobotsFetchStep,
  type RobotsVerdict,
} from "./verdict.ts";

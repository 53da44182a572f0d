/**
 * Crawler-trap defences: the fixed limits checked on each discovered URL, the per-host daily counter
 * behind the daily cap, the stat name of refusals by reason, and the tracker of number-only URL families.
 */
export {
  checkTrap,
  mostRepeatedSegment,
  type TrapConfig,
  type TrapContext,
  type TrapReason,
  type TrapVerdict,
} from "./check-trap.ts";
export { bumpDaily, countToday, type DailyCounter, nextUtcDayStart, utcDay } from "./daily-counter.ts";
export { trapCounterName } from "./trap-counters.ts";
export { type UrlFamily, urlFamily, type UrlPatternSnapshot, UrlPatternTracker } from "./url-pattern.ts";
export { pathSegments, urlPath, urlPathAndQuery } from "./url-parts.ts";

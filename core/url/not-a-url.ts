/**
 * Which normalizer refusals mean the input is not a URL at all (an API answers 400 to those), as opposed
 * to a URL the crawler would never crawl (another scheme, a bad port), which `url explain` explains.
 */
const NOT_A_URL = new Set(["empty", "too-long", "unparseable", "missing-host", "invalid-host", "bad-base"]);

/** True when a normalizer reason (`code` or `code: detail`) says the input is not a URL at all. */
export function isNotAUrl(reason: string): boolean {
  const colon = reason.indexOf(":");
  return NOT_A_URL.has(colon < 0 ? reason : reason.slice(0, colon));
}

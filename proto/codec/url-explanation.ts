/**
 * Hand-written builders of generated messages that more than one service answers with. A UrlExplanation
 * starts with nothing known: the proto's zero values, except robots and state, which say `unknown` rather
 * than the empty string, so `crawlctl url explain` never prints a blank verdict.
 */
import type { UrlExplanation } from "../gen/crawler/frontier/v1/frontier.ts";

/** A UrlExplanation of `fields`, every other field at its nothing-known value. */
export function urlExplanation(fields: Partial<UrlExplanation> = {}): UrlExplanation {
  return {
    input: "",
    normalized: "",
    rejectedReason: "",
    host: "",
    partition: 0,
    region: "",
    owner: "",
    seen: false,
    robots: "unknown",
    robotsRule: "",
    state: "unknown",
    lastStatus: 0,
    lastFetchedAtMs: 0n,
    nextFetchAtMs: 0n,
    failures: 0,
    note: "",
    trap: "",
    addressRefusal: "",
    scopeRejection: "",
    sitemap: "",
    foundByRender: false,
    maxPerAddress: 0,
    addressGapMs: 0,
    server: "",
    serverNote: "",
    serverStateKnown: false,
    serverHolders: 0,
    serverNextAllowedAtMs: 0n,
    serverPasses: 0,
    serverWaits: 0,
    serverLongestWaitMs: 0,
    serverGivenBack: 0,
    ...fields,
  };
}

/**
 * Host and URL inspection as the APIs answer it: a frontier's view of a host (engine/frontier HostView) as
 * a HostInfo, its explanation of a URL (UrlView) as a UrlExplanation, and any message as plain JSON
 * (`jsonOf`: int64 fields as numbers). One conversion for a frontier node's gRPC answers, which the
 * coordinator's admin API relays, and for `crawl --http`, which answers the same routes from its own
 * frontier, so both serve the same shapes. The inputs are declared here by their fields (proto/ does not
 * import the engine); HostView and UrlView fit them.
 */
import type { HostState } from "../../core/politeness/index.ts";
import type { HostInfo, UrlExplanation } from "../gen/crawler/frontier/v1/frontier.ts";
import { urlExplanation } from "./url-explanation.ts";

/** What a frontier knows of a host (engine/frontier HostView). */
export interface InspectedHost {
  host: string;
  partition: number;
  queued: number;
  inFlight: boolean;
  state: HostState;
  robotsVerdict: string;
  robotsExpiresAt: number;
  pagesToday: number;
  minGapOverrideMs: number;
}

/** What a frontier knows of a URL (engine/frontier UrlView). */
export interface InspectedUrl {
  known: boolean;
  state: string;
  lastStatus: number;
  lastFetchedAt: number;
  failures: number;
  note: string;
  nextFetchAt: number;
  robots: string;
  robotsRule: string;
  trap: string;
  addressRefusal: string;
  scopeRejection: string;
  foundByRender: boolean;
  sitemap: string;
  maxPerAddress: number;
  addressGapMs: number;
}

/** Where a host lives: its region and the node owning its partition ("" when unknown). */
export interface HostPlace {
  region: string;
  owner: string;
}

export function hostInfoOf(view: InspectedHost, where: HostPlace): HostInfo {
  const s = view.state;
  return {
    host: view.host,
    partition: view.partition,
    region: where.region,
    owner: where.owner,
    queued: int64(view.queued),
    inFlight: view.inFlight,
    nextAllowedAtMs: int64(s.nextAllowedAt),
    gapMs: int64(s.gapMs),
    paused: s.paused,
    robotsVerdict: view.robotsVerdict,
    robotsExpiresAtMs: int64(view.robotsExpiresAt),
    crawlDelayMs: uint32(s.crawlDelayMs),
    fetches: int64(s.fetches),
    failures: int64(s.failures),
    throttles: int64(s.throttles),
    lastStatus: uint32(s.lastStatus ?? 0),
    lastError: s.lastError ?? "",
    pagesToday: int64(view.pagesToday),
    minGapOverrideMs: int64(view.minGapOverrideMs),
  };
}

/** The explanation of a normalized URL from a frontier's view of it. */
export function urlExplanationOf(
  input: string,
  normalized: string,
  where: HostPlace & { host: string; partition: number },
  view: InspectedUrl,
): UrlExplanation {
  return urlExplanation({
    input,
    normalized,
    host: where.host,
    partition: where.partition,
    region: where.region,
    owner: where.owner,
    seen: view.known,
    robots: view.robots,
    robotsRule: view.robotsRule,
    state: view.state,
    lastStatus: uint32(view.lastStatus),
    lastFetchedAtMs: int64(view.lastFetchedAt),
    nextFetchAtMs: int64(view.nextFetchAt),
    failures: uint32(view.failures),
    note: view.note,
    trap: view.trap,
    addressRefusal: view.addressRefusal,
    scopeRejection: view.scopeRejection,
    sitemap: view.sitemap,
    foundByRender: view.foundByRender,
    maxPerAddress: uint32(view.maxPerAddress),
    addressGapMs: uint32(view.addressGapMs),
  });
}

/** A generated message as JSON-ready data: int64 fields (bigint) become numbers; ms and counts fit. */
export function jsonOf(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v)));
}

function int64(n: number): bigint {
  return Number.isFinite(n) ? BigInt(Math.round(n)) : 0n;
}

function uint32(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(0xffffffff, Math.round(n)) : 0;
}

/** What `url explain` learned of the URL's server (engine/fetch ServerExplanation), as explanation fields. */
export interface InspectedServer {
  server: string;
  note: string;
  state?: { holders: number; nextAllowedAt: number };
  board?: { passes: number; waits: number; givenBack: number; longestWaitMs: number };
}

export function serverFields(e: InspectedServer): Partial<UrlExplanation> {
  return {
    server: e.server,
    serverNote: e.note,
    serverStateKnown: e.state !== undefined,
    serverHolders: uint32(e.state?.holders ?? 0),
    serverNextAllowedAtMs: int64(e.state?.nextAllowedAt ?? 0),
    serverPasses: uint32(e.board?.passes ?? 0),
    serverWaits: uint32(e.board?.waits ?? 0),
    serverLongestWaitMs: uint32(e.board?.longestWaitMs ?? 0),
    serverGivenBack: uint32(e.board?.givenBack ?? 0),
  };
}

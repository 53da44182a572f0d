/**
 * Every request a rendered page makes, answered by the crawler, never by the browser's own network stack
 * (render-page.ts routes them all here). In order:
 *
 *   the page itself (the first navigation)  -> the response the page task already fetched, from memory
 *   not GET, or not http(s)                  -> failed (the crawler only reads)
 *   images, media, fonts, known trackers     -> failed unfetched (they add no links; trackers we never feed)
 *   a host the address policy refuses        -> failed (a rendered page is no way into internal addresses)
 *   in the subresource cache                 -> from memory
 *   another host than the page's             -> failed: its turn belongs to its own frontier (see below)
 *   a path the page host's robots.txt forbids -> failed
 *   else                                      -> fetched through the crawler's fetcher (address policy at
 *                                               connect time, body caps, timeouts) in the host's turn
 *                                               (host-turn.ts); failed if the turn would come after the
 *                                               render's deadline, or after the host answered 429/503
 *                                               (throttled)
 *
 * Other hosts: a host's politeness lives with its frontier (the one node that owns its partition), which
 * this fetch path cannot ask for a turn in the middle of a task; so a render only ever asks its own host,
 * whose turn it holds. A page's scripts and data served from another host (a CDN, an API host) are failed
 * to the page; the page renders with what its own host serves. docs/architecture.md ("Rendering") says why.
 *
 * Later navigations of the main frame (a script setting `location`) are failed too and their targets
 * returned as links: the render keeps the page it was asked for.
 */
import type { FetchOutcome } from "../../core/model/index.ts";
import type { AddressPolicy } from "../../core/net/index.ts";
import type { RobotsPolicy } from "../../core/robots/index.ts";
import { hostKeyOf, normalizeUrl } from "../../core/url/index.ts";
import type { HostTurn } from "./host-turn.ts";
import type { CachedResponse, SubresourceCache } from "./subresource-cache.ts";

/** What the browser asked, in the terms the router needs. */
export interface PageRequest {
  url: string;
  method: string;
  /** Playwright's resource type: document, script, xhr, fetch, image, media, font, stylesheet... */
  resourceType: string;
  /** A navigation of the page's main frame. */
  mainFrameNavigation: boolean;
}

/** How a request is answered: with a response, or failed with a reason (counted as `render.refused.<reason>`). */
export type RouteAnswer =
  | { kind: "fulfill"; response: CachedResponse; from: "page" | "cache" | "host" }
  | { kind: "fail"; reason: RefusedReason };

export type RefusedReason =
  | "method"
  | "scheme"
  | "media"
  | "tracker"
  | "address"
  | "other-host"
  | "robots"
  | "deadline"
  | "throttled"
  | "fetch-error"
  | "navigation";

/** Resource types never fetched for a render: they cost host turns and hold no links. */
const UNFETCHED_TYPES = new Set(["image", "media", "font", "texttrack", "websocket", "eventsource", "manifest", "ping", "beacon"]);

/**
 * Known tracking and advertising hosts (and every name under them): a render never calls them. A short
 * list of the most common; a longer one can come with `--deny-hosts`, which the address policy applies.
 */
export const TRACKER_HOSTS = [
  "google-analytics.com",
  "googletagmanager.com",
  "googlesyndication.com",
  "doubleclick.net",
  "facebook.net",
  "connect.facebook.com",
  "hotjar.com",
  "segment.io",
  "segment.com",
  "scorecardresearch.com",
  "quantserve.com",
  "criteo.com",
  "adnxs.com",
  "amazon-adsystem.com",
  "taboola.com",
  "outbrain.com",
  "nr-data.net",
  "clarity.ms",
  "mixpanel.com",
];

function isTracker(hostname: string): boolean {
  for (const t of TRACKER_HOSTS) if (hostname === t || hostname.endsWith(`.${t}`)) return true;
  return false;
}

export interface RouterParts {
  /** The page's normalized URL and host key. */
  pageUrl: string;
  pageHost: string;
  /** The page's response as fetched, served for its navigation. */
  page: CachedResponse;
  /** The page host's robots.txt rules; undefined: everything allowed. */
  robots: RobotsPolicy | undefined;
  addresses: AddressPolicy;
  fetch: (url: string, signal: AbortSignal) => Promise<FetchOutcome>;
  cache: SubresourceCache;
  turn: HostTurn;
  /** The render's deadline; set when the render starts (setDeadline), none before. */
  deadlineAt?: number;
  signal: AbortSignal;
  now: () => number;
}

export class RequestRouter {
  private pageServed = false;
  /** Targets of navigations the page tried after loading (returned as links). */
  readonly navigations: string[] = [];
  /** Answers by how they went: `page`, `cache`, `host` and `refused.<reason>`. */
  readonly counts = new Map<string, number>();
  inFlight = 0;
  lastActivityAt = 0;

  constructor(private readonly p: RouterParts) {}

  /** The render has started, with this deadline: a request whose host turn comes later is failed. */
  setDeadline(at: number): void {
    this.p.deadlineAt = at;
  }

  async answer(req: PageRequest): Promise<RouteAnswer> {
    this.inFlight++;
    this.lastActivityAt = this.p.now();
    try {
      const answer = await this.decide(req);
      const key = answer.kind === "fulfill" ? answer.from : `refused.${answer.reason}`;
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      return answer;
    } finally {
      this.inFlight--;
      this.lastActivityAt = this.p.now();
    }
  }

  private async decide(req: PageRequest): Promise<RouteAnswer> {
    const fail = (reason: RefusedReason): RouteAnswer => ({ kind: "fail", reason });
    if (req.mainFrameNavigation) {
      if (!this.pageServed) {
        this.pageServed = true;
        return { kind: "fulfill", response: this.p.page, from: "page" };
      }
      if (this.navigations.length < 100) this.navigations.push(req.url);
      return fail("navigation");
    }
    if (req.method !== "GET") return fail("method");
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return fail("scheme");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return fail("scheme");
    if (UNFETCHED_TYPES.has(req.resourceType)) return fail("media");
    const hostname = url.hostname.toLowerCase();
    if (isTracker(hostname)) return fail("tracker");
    const normalized = normalizeUrl(req.url);
    if (!normalized.ok) return fail("scheme");
    const host = hostKeyOf(normalized.url);
    if (this.p.addresses.checkHost(host)) return fail("address");
    const cached = this.p.cache.get(normalized.url);
    if (cached) return { kind: "fulfill", response: cached, from: "cache" };
    if (host !== this.p.pageHost) return fail("other-host");
    if (this.p.robots && !this.p.robots.isAllowed(url.pathname + url.search)) return fail("robots");
    const outcome = await this.p.turn.take(this.p.deadlineAt ?? this.p.now(), this.p.signal, async () => {
      const o = await this.p.fetch(req.url, this.p.signal);
      return { startedAt: o.startedAt, endedAt: o.endedAt, status: o.kind === "response" ? o.status : 0, value: o };
    });
    if (outcome === undefined) return fail(this.p.turn.span().throttled ? "throttled" : "deadline");
    if (outcome.kind !== "response") return fail("fetch-error");
    const response: CachedResponse = { status: outcome.status, headers: browserHeaders(outcome.headers), body: outcome.body };
    if (!outcome.truncated) this.p.cache.put(normalized.url, response);
    return { kind: "fulfill", response, from: "host" };
  }
}

/** Headers that no longer describe the body as the fetcher hands it over (decoded, whole). */
const DROPPED = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive", "set-cookie"]);

/** The response headers the browser is given: the body is decoded and complete, cookies are not kept. */
export function browserHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!DROPPED.has(name.toLowerCase())) out[name] = value;
  return out;
}

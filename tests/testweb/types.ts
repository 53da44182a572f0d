/**
 * The public shapes of the test web: its options, the behaviour of a virtual host, what a robots.txt
 * means for the politeness checker, the request log and the violations found in it. Kept apart from the
 * server so that the generator, the checker and the expected-set BFS can share them without importing
 * `node:http` machinery.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FaultShares } from "./faults.ts";

export interface TestWebOptions {
  /** Normal hosts `site0.test` … `site{hosts-1}.test`. Default 10. */
  hosts?: number;
  /** Pages `/page/0` … `/page/{pagesPerHost-1}` on each normal host, besides `/`. Default 20. */
  pagesPerHost?: number;
  /** Generated links per page (the nav link home and the disallowed bait links come on top). Default 24. */
  linksPerPage?: number;
  /** Approximate HTML size of a normal page in bytes. Default 25,000. */
  pageBytes?: number;
  /** Everything served is a pure function of (seed, host, path). Default 1. */
  seed?: number;
  /** Also serve the special hosts (see README.md). Default false. */
  special?: boolean;
  /**
   * Make some normal hosts misbehave (slow, failing, throttling, redirecting, robots.txt 503): shares of
   * the normal hosts, see faults.ts. Default: none.
   */
  faults?: FaultShares;
  /** More virtual hosts, e.g. one a test needs for itself; they win over special hosts of the same name. */
  extraHosts?: Record<string, HostBehaviour>;
  /** Loopback port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Loopback address to listen on, default 127.0.0.1. Another one (127.0.0.2) lets a test stand up an
   * "internal network" beside the "public" test web, with its own request log.
   */
  hostname?: string;
  /**
   * Loopback addresses to listen on, all on one port, with one request log (each record says which address
   * it came to, `localAddress`): servers that answer for many names, e.g. 127.0.0.2 and 127.0.0.3 for a
   * crawler that resolves names itself (`--hosts-file`). Default: `[hostname]`.
   */
  addresses?: string[];
  /**
   * Write the listening port into every absolute link and into `url()` (`http://site3.test:PORT/page/7`), for a
   * crawler that dials the names itself (`--hosts-file` to `addresses`, no proxy): without it an absolute
   * link says port 80. Default false (links name no port, as through a proxy).
   */
  portInLinks?: boolean;
}

/** The options with every default filled in: the inputs of the page generator. */
export interface SiteShape {
  hosts: number;
  pagesPerHost: number;
  linksPerPage: number;
  pageBytes: number;
  seed: number;
  /** The port absolute links carry (`portInLinks`); absent: none (port 80). */
  port?: number;
}

/**
 * What a correct crawler concludes from a host's robots.txt; the violation checker and the expected-set
 * BFS read it instead of re-fetching. `paths` are the requests that make up the robots fetch (default
 * `["/robots.txt"]`; a redirected robots.txt adds its target); they are exempt from the robots checks.
 *
 * - `rules`: robots.txt answers 200 with `text` (RFC 9309 groups, Allow/Disallow, `*` and `$`,
 *   Crawl-delay as a hint the checker enforces).
 * - `allow-all`: robots.txt is unavailable (4xx): everything may be fetched.
 * - `disallow-all`: robots.txt is unreachable (5xx, reset): nothing but robots.txt may be fetched.
 */
export type RobotsPolicy =
  | { kind: "rules"; text: string; paths?: readonly string[] }
  | { kind: "allow-all"; why: string; paths?: readonly string[] }
  | { kind: "disallow-all"; why: string; paths?: readonly string[] };

/** What a behaviour learns about the request besides the raw `node:http` objects. */
export interface ServeContext {
  /** Lower-case host name without port, from the absolute-form target or the Host header. */
  host: string;
  /** Path and query exactly as requested. */
  path: string;
  /** The test web's seed, for behaviours that generate text. */
  seed: number;
  /** `http://host/path`, for links and Location headers to other hosts. */
  url(host: string, path?: string): string;
}

/** One virtual host. Created per test web, so a behaviour may keep state (counters) for its lifetime. */
export interface HostBehaviour {
  /** One line for the README table and for debugging. */
  readonly description: string;
  readonly robots: RobotsPolicy;
  /**
   * By default the test web itself answers `/robots.txt` with `robots.text` for `rules` policies;
   * set this when the behaviour answers it (slowly, with a redirect, …).
   */
  readonly servesRobots?: boolean;
  /**
   * By default the test web also answers `/sitemap.xml` itself, 404, the way it answers robots.txt: it is
   * what a crawler asks of a host whose robots.txt names no sitemap (the probe), and a host's behaviour
   * (its counters, its hang, its drip) is about its pages. Set this when the behaviour serves one.
   */
  readonly servesSitemap?: boolean;
  /** Answers one request. Must end the response, or deliberately never do so (hang, drip). */
  serve(req: IncomingMessage, res: ServerResponse, ctx: ServeContext): void;
  /** Paths a correct crawler seeded at `http://host/` requests (besides robots.txt). */
  readonly mustFetch?: readonly string[];
  /** Paths a correct crawler seeded at `http://host/` never requests. */
  readonly mustNotFetch?: readonly string[];
}

/** One request as the server saw it. Times are epoch milliseconds with sub-millisecond precision. */
export interface RequestRecord {
  host: string;
  /** Path and query as requested (no normalisation). */
  path: string;
  method: string;
  /** `proxy` for an absolute-form target (`GET http://host/path`), `direct` for a Host header. */
  via: "proxy" | "direct";
  /** When the request head had been received. */
  startedAt: number;
  /** When the response was finished or the connection closed; `Infinity` while still open. */
  endedAt: number;
  /** Status sent, 0 when no response head was sent (hang, reset). */
  status: number;
  /** True when the response finished normally, false when the connection closed first. */
  completed: boolean;
  /** The Retry-After header sent with the response, if any. */
  retryAfter?: string;
  /**
   * The wait that header asked for, in ms from the response's end: an HTTP-date read against the wall clock
   * when the response was sent (the log's own clock is monotonic, and a date compared with it later is off
   * by any step of the wall clock since the process started).
   */
  retryAfterWaitMs?: number;
  /** Request headers, lower-case names (e.g. `user-agent`, `if-none-match`). */
  headers: Record<string, string>;
  /**
   * Which TCP connection carried it: the server's count of accepted connections when this one came (1, 2...).
   * Distinct values per host say how many connections a crawler opened for the host (host affinity).
   */
  connection?: number;
  /** The client's port of that connection: with /proc/net/tcp it names the process that sent the request. */
  clientPort?: number;
  /** The server address the request came to (which of `addresses`). */
  localAddress?: string;
}

/**
 * Politeness rules the checker applies, with no tolerance: what the crawler was told, as the server sees
 * it. Every field that shapes the gap is required, so a test states the policy it checks in full.
 */
export interface PolitenessPolicy {
  /** Minimum gap between the end of one response and the arrival of the next request to one host. */
  minGapMs: number;
  /**
   * The gap is also at least this many times the previous (completed) request's duration as the server
   * saw it (the crawler's default is 10); 0 checks no multiplier (a peer crawler without that rule).
   */
  gapMultiplier: number;
  /** Product token whose robots.txt group applies; default: only the `*` group. */
  userAgent?: string;
}

export type ViolationKind =
  | "concurrent" // two requests in flight to one host
  | "gap" // too soon after the previous response (minGapMs or gapMultiplier)
  | "crawl-delay" // too soon for the host's Crawl-delay
  | "retry-after" // too soon after a response carrying Retry-After
  | "disallowed" // a path robots.txt disallows
  | "before-robots" // a page requested before robots.txt had been fetched
  | "robots-unavailable"; // a page requested although robots.txt failed (5xx, reset)

export interface Violation {
  kind: ViolationKind;
  host: string;
  path: string;
  /** Human-readable, so a failing test prints what went wrong. */
  message: string;
  request: RequestRecord;
  /** The earlier request the offending one is measured against, for timing violations. */
  previous?: RequestRecord;
  /** For gap, Crawl-delay and Retry-After violations: how much sooner than allowed it arrived (ms). */
  shortByMs?: number;
}

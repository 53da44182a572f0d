/**
 * What the frontier holds in memory for one host: its politeness state, how many URLs it has queued, the
 * cached head of its queue, the task in flight, its compiled robots.txt rules and today's page count.
 * Only hosts with queued URLs or a fetch in flight are kept; an idle host is saved and forgotten, so memory
 * follows the number of active hosts, not the size of the crawl. What is saved of it is PersistedHost
 * (store/persisted-host.ts).
 */
import type { FetchTask } from "../../core/model/index.ts";
import type { RenderMemory } from "../../core/render/index.ts";
import type { HostState } from "../../core/politeness/index.ts";
import type { RobotsPolicy } from "../../core/robots/index.ts";
import type { DailyCounter } from "../../core/traps/index.ts";
import type { QueuedUrl, StoredRobots, UrlRow } from "./store/frontier-store.ts";
import type { SitemapRow } from "./store/sitemap-table.ts";

export interface HostEntry {
  key: string;
  partition: number;
  state: HostState;
  queued: number;
  /** Sitemaps waiting to be read (a host with one is active even with an empty queue). */
  sitemaps: number;
  head?: QueuedUrl;
  /**
   * The priority of its queue's head (0: the queue is empty), kept when `head` is let go (a lean host) and
   * put right by every enqueue and dequeue (active-hosts.ts); undefined until read, or after a dequeue.
   */
  nextPriority?: QueuedUrl["priority"] | 0;
  /** The task in flight, its queue row or sitemap row, and the URL's stored state when it was handed out. */
  inFlight?: { task: FetchTask; item?: QueuedUrl; prev?: UrlRow; sitemap?: SitemapRow };
  /**
   * Its robots.txt's verdict and expiry (not its text), compiled; `namesSitemaps`: the text names sitemaps
   * (sitemap-refs.ts).
   */
  robots?: { stored: Pick<StoredRobots, "verdict" | "expiresAt">; policy?: RobotsPolicy; namesSitemaps: boolean };
  /**
   * When its robots.txt expires (NO_ROBOTS_STORED: a read found none), kept when `robots` is let go (a lean
   * host), so that a turn does not read robots.txt twice; undefined until read.
   */
  robotsExpiresAt?: number;
  /**
   * The verdict of a robots.txt without rules to compile (allow-all: 4xx; disallow-all: 5xx or no answer), kept
   * with robotsExpiresAt when `robots` is let go, so a lean host's turn rebuilds `robots` without a read (the
   * two such verdicts share their rules); undefined for a robots.txt with rules (read and compiled each turn:
   * rules compiled from a million different texts are what a lean host must not keep) or one not read yet.
   */
  robotsVerdict?: "allow-all" | "disallow-all";
  pagesToday: DailyCounter | null;
  /** Operator override of the minimum gap for this host (0: none). */
  minGapOverrideMs: number;
  /** What rendering its pages found so far (core/render host-memory.ts; 0: never rendered). */
  renderMemory?: RenderMemory;
  /** Recent fetch duration, a moving average (in memory only, for the host board); undefined before a fetch. */
  fetchMs?: number;
  /** Since when the host has had work while not ready: the start of a gap wait (scheduling.ts). */
  workSince?: number;
  /**
   * The crawl jobs with URLs queued here, as far as known, and each one's credit in the host's weighted turns
   * (job-turns.ts); absent while the host has seen one job only (the common case costs nothing).
   */
  jobTurns?: Map<number, number>;
}

/** `robotsExpiresAt` of a host whose robots.txt the store does not hold (a read found none): expired at any time. */
export const NO_ROBOTS_STORED = -1;

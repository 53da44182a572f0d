/**
 * The JSON the dashboard page reads (`GET /v1/dashboard`), one shape for both sources: the coordinator
 * builds it from the node records of the whole cluster, `crawl --http` from its one frontier (as a cluster
 * of one node). Times are epoch milliseconds, durations milliseconds unless a name says seconds, sizes bytes.
 * The OpenAPI document (coordinator/admin-openapi.ts, `Dashboard`) describes the same fields.
 */
import type { AddressRow } from "../politeness/index.ts";
import type { HistogramSnapshot } from "../stats/index.ts";

export type { AddressRow };

/** One host on the host boards: its politeness state as its frontier holds it. */
export interface HostRow {
  host: string;
  /** Node holding it ("crawl" in embedded mode); filled in by whoever merges the boards. */
  node?: string;
  region?: string;
  queued: number;
  inFlight: boolean;
  /** The wait after its last fetch. */
  gapMs: number;
  /** The earliest time of its next fetch. */
  nextAllowedAt: number;
  /** The 429/503 back-off in force (0: not throttled), and how many 429/503 answers it gave. */
  throttleMs: number;
  throttles: number;
  /** Its recent fetch duration (a moving average kept while the host is active); 0 before a fetch. */
  fetchMs: number;
  fetches: number;
  lastStatus: number;
  lastError: string;
  /** "parse", "allow-all", "disallow-all" (robots.txt 5xx or unreachable: parked), "unknown". */
  robotsVerdict: string;
  /** When robots.txt is read again (a parked host's next try). */
  robotsExpiresAt: number;
}

/** The hosts worth a look, each list at most a few rows, worst first. */
export interface HostBoard {
  /** Active hosts by recent fetch duration. */
  slowest: HostRow[];
  /** Hosts with a 429/503 back-off in force, largest back-off first. */
  throttled: HostRow[];
  /** Hosts waiting on a robots.txt that answered 5xx or could not be reached, soonest retry first. */
  parked: HostRow[];
}

/** Politeness at a glance, over the active hosts (those with work queued or in flight). */
export interface PolitenessSummary {
  activeHosts: number;
  throttledHosts: number;
  parkedHosts: number;
  /** The largest gap among active hosts, and whose it is ("" when none). */
  largestGapMs: number;
  largestGapHost: string;
  /** Requests that waited for their host's gap: the gap-wait histogram's count. */
  waitedForGap: number;
  /** Requests that waited for their server's pass (the cap per address), in `crawl` and on fetch nodes. */
  waitedForServer: number;
  /** Requests not made because their server stayed at its cap for the whole wait (given back, host not blamed). */
  givenBackForServer: number;
}

/** What a frontier reports of its hosts: the boards and the politeness figures behind its gauges. */
export interface HostReport {
  board: HostBoard;
  politeness: Omit<PolitenessSummary, "waitedForGap" | "waitedForServer" | "givenBackForServer">;
}

/** Fetch outcomes by kind (counts since the nodes started). */
export interface Outcomes {
  ok: number;
  "3xx": number;
  "4xx": number;
  "5xx": number;
  timeout: number;
  dns: number;
  "other-error": number;
  "robots-denied": number;
  trap: number;
  duplicate: number;
}

/** One point of the rate chart: pages and bytes per second over the step that ends at `at`. */
export interface RatePoint {
  at: number;
  pagesPerSecond: number;
  bytesPerSecond: number;
}

export interface NodeRow {
  id: string;
  role: string;
  region: string;
  /** live, draining, dead, left (cluster); running (crawl). */
  state: string;
  runtime: string;
  partitions: number;
  inFlight: number;
  queued: number;
  scheduled: number;
  activeHosts: number;
  heartbeatAgeMs: number;
  pages: number;
}

/** The ring of one region: which node owns how many partitions, and the moves under way. */
export interface RingRegion {
  region: string;
  /** owners[p]: the node serving partition p ("" when none). */
  owners: string[];
  /** Partitions moving from one node to another (the new owner waits for the handoff). */
  moves: Array<{ partition: number; from: string; to: string }>;
}

export interface HistogramSummary {
  count: number;
  sum: number;
  p50: number;
  p90: number;
  p99: number;
}

export interface Dashboard {
  /** "cluster" (coordinator) or "crawl" (embedded). */
  source: "cluster" | "crawl";
  at: number;
  totals: {
    pages: number;
    bytes: number;
    queued: number;
    scheduled: number;
    inFlight: number;
    errors: number;
    pagesPerSecond: number;
    bytesPerSecond: number;
  };
  /** The last minutes, oldest first. */
  rates: RatePoint[];
  outcomes: Outcomes;
  nodes: NodeRow[];
  ring: { epoch: number; partitions: number; regions: RingRegion[] } | null;
  /**
   * The host board, and its per-address section: the busiest servers of the cap per address (`ip:…`, or
   * `domain:…` through a proxy), merged over the processes that take passes (summed; the longest wait the
   * longest of any), most waits first, at most as many rows as the other lists.
   */
  hosts: HostBoard & { addresses: AddressRow[] };
  politeness: PolitenessSummary;
  rendering: RenderingSummary;
  /** The crawl jobs: the first rows (jobs.ts) and how many more there are. */
  jobs: { rows: JobRow[]; more: number };
  /**
   * Feeds (RSS, Atom) read in full and the items they listed, and rereads answered 304 Not Modified to their
   * conditional GET (counts since the nodes started).
   */
  feeds: { read: number; items: number; notModified: number };
  /** Quantiles of the histograms (seconds or bytes, as each name says), for the figures beside the charts. */
  histograms: Record<string, HistogramSummary>;
  /** The raw merged histograms, for the page's distribution bars. */
  distributions: Record<string, HistogramSnapshot>;
}

/** One crawl job on the dashboard (core/jobs): its state and counters. */
export interface JobRow {
  id: string;
  state: "running" | "paused" | "done" | "cancelled";
  /** Page results so far, and the job's limit (0: none). */
  pages: number;
  maxPages: number;
  queued: number;
  errors: number;
  /** Why it ended; null while running or paused. */
  reason: string | null;
}

/** The rendering pools (engine/render): their size over every process that renders, and what they did. */
export interface RenderingSummary {
  /** Pages that may render at once, summed over the processes with a pool (0: nothing renders). */
  poolSize: number;
  rendered: number;
  failed: number;
  /** Pages `--render auto` judged not script-built. */
  asReceived: number;
  linksFound: number;
  browserRestarts: number;
}

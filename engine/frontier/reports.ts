/**
 * What the frontier tells about itself, changing nothing: the snapshot of its totals and counters (progress
 * lines, heartbeats, /metrics), whether anything may still be fetched within a horizon (`crawl` ends when
 * not), what is left to do and when (pending.ts), the host board of the dashboards (host-board.ts), and a
 * host or a URL as `host show`, `host list` and `url explain` see it (inspection.ts). The slow figures are
 * cached: the totals that count rows of big tables for a few seconds, the host board for a second.
 */
import { decodeCaptures, type Capture } from "../../core/captures/index.ts";
import type { HostReport } from "../../core/dashboard/index.ts";
import type { JobCounts } from "../../core/jobs/index.ts";
import { countToday, nextUtcDayStart } from "../../core/traps/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { FrontierState } from "./frontier-state.ts";
import { hostReport } from "./host-board.ts";
import { explainUrl, hostView, listHosts, type HostView, type InspectedFrontier, type UrlView } from "./inspection.ts";
import { pendingWork, type PendingWork } from "./pending.ts";

export interface FrontierSnapshot {
  queued: number;
  scheduled: number;
  activeHosts: number;
  hostsReady: number;
  /** Of them (and of activeHosts), the hosts with work kept in the store, not in memory (active-hosts.ts). */
  hostsCold: number;
  hostsWaiting: number;
  inFlight: number;
  knownUrls: number;
  /** Sitemaps waiting to be read. */
  sitemapsPending: number;
  counters: Record<string, number>;
}

/** The host report is rebuilt at most this often (dashboards, heartbeats and /metrics all ask). */
const HOST_REPORT_MAX_AGE_MS = 1_000;
/** The totals that count rows of big tables are read again at most this often. */
const COUNTS_MAX_AGE_MS = 5_000;

export class Reports {
  /** The read-only view host and URL inspection works on. */
  private readonly view: InspectedFrontier;
  private report: { at: number; value: HostReport } | undefined;
  private counts = { scheduled: 0, knownUrls: 0 };
  private countsAt = -Infinity;
  private jobs: Record<string, JobCounts> | undefined;
  private jobsAt = -Infinity;

  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
  ) {
    this.view = {
      store: s.store,
      policy: s.policy,
      partitions: s.opts.partitions,
      partitionOf: (host) => s.partitionOf(host),
      now: () => s.now(),
      active: (host) => hosts.get(host),
      activeHosts: () => s.hosts.values(),
      coldHosts: () => (s.coldHosts > 0 ? s.store.cold.summary() : { hosts: 0, queued: 0 }),
      load: (host) => hosts.load(host),
      robotsOf: (entry) => hosts.robotsOf(entry),
      addresses: s.addresses,
      scope: s.scope,
    };
  }

  /**
   * Each crawl job's counters in this store, by job number (NodeRecord.jobs): page results and errors from
   * the partitions' job counts, queued URLs from the index of jobs' queue rows (job default's: the rest of
   * the queue). Recounted at most every COUNTS_MAX_AGE_MS, as the other slow totals.
   */
  jobReport(fresh = false): Record<string, JobCounts> {
    const now = this.s.now();
    if (fresh || this.jobs === undefined || now - this.jobsAt >= COUNTS_MAX_AGE_MS) {
      this.jobsAt = now;
      const out: Record<string, JobCounts> = {};
      const counts = this.s.store.jobCounts.sums();
      const queued = this.s.store.queuedByJob();
      let others = 0;
      for (const [job, n] of queued) others += n;
      queued.set(0, Math.max(0, this.s.totalQueued - others));
      for (const job of new Set([...counts.keys(), ...queued.keys()])) {
        const c = counts.get(job);
        const q = queued.get(job) ?? 0;
        if (!c && q === 0) continue;
        out[String(job)] = { pages: c?.pages ?? 0, errors: c?.errors ?? 0, queued: q };
      }
      this.jobs = out;
    }
    return this.jobs;
  }

  /** Totals and counters; `fresh` recounts the slow-moving totals now (for a final summary). */
  snapshot(fresh: boolean): FrontierSnapshot {
    const now = this.s.now();
    if (fresh || now - this.countsAt >= COUNTS_MAX_AGE_MS) {
      this.countsAt = now;
      // Known URLs: those with a state row plus those waiting in a queue without one yet (a URL re-queued for
      // a refetch has both, so this can count a few twice; it is a gauge, not an exact count).
      this.counts = { scheduled: this.s.store.scheduledCount(), knownUrls: this.s.store.urlCount() + this.s.totalQueued };
    }
    return {
      queued: this.s.totalQueued,
      scheduled: this.counts.scheduled,
      activeHosts: this.s.hosts.size + this.s.coldHosts,
      hostsReady: this.s.ready.size,
      hostsCold: this.s.coldHosts,
      hostsWaiting: this.s.waiting.size + this.s.coldHosts,
      inFlight: this.s.inFlightCount,
      knownUrls: this.counts.knownUrls,
      sitemapsPending: this.s.totalSitemaps,
      counters: this.s.counters.toJSON(),
    };
  }

  /**
   * Whether anything may be fetched within `horizonMs` from now: a task in flight or a host ready; a host
   * with queued URLs that waits only for its politeness gap, however long (its URLs are being crawled; the
   * gap is part of that); a host whose robots.txt was unavailable or whose daily cap is reached, when it may
   * be asked again within the horizon; a retry or refetch due within it.
   */
  hasWorkWithin(horizonMs: number): boolean {
    const now = this.s.now();
    if (this.s.inFlightCount > 0 || this.s.ready.size > 0) return true;
    const until = now + horizonMs;
    const due = this.s.store.nextDueAt();
    if (due !== undefined && due <= until) return true;
    // Cold hosts have work by definition (store/cold-host-table.ts); when each may be asked is what they keep.
    const cold = this.s.coldHosts > 0 ? this.s.store.cold.nextDueAt() : undefined;
    if (cold !== undefined && cold <= until) return true;
    for (const entry of this.s.hosts.values()) {
      if ((entry.queued <= 0 && entry.sitemaps <= 0) || entry.state.paused) continue;
      const robots = this.hosts.robotsOf(entry);
      if (robots?.stored.verdict === "disallow-all" && robots.stored.expiresAt > now) {
        if (robots.stored.expiresAt <= until) return true;
      } else if (countToday(entry.pagesToday, now) >= this.s.policy.maxPagesPerHostPerDay) {
        if (nextUtcDayStart(now) <= until) return true;
      } else {
        return true;
      }
    }
    return false;
  }

  /** The host board and politeness figures of the active hosts, at most a second old. */
  hostReport(): HostReport {
    const now = this.s.now();
    if (!this.report || now - this.report.at >= HOST_REPORT_MAX_AGE_MS || now < this.report.at)
      this.report = { at: now, value: hostReport(this.s.hosts.values()) };
    return this.report.value;
  }

  /** What is left to do and when: the schedule, hosts waiting, hosts that could not be reached. */
  pending(limit: number): PendingWork {
    return pendingWork(this.view, limit);
  }

  /** What the frontier knows about a host, whether active or not; undefined when it never saw it. */
  hostInfo(host: string): HostView | undefined {
    return hostView(this.view, host);
  }

  /** Active hosts, most queued first. */
  listHosts(limit: number): HostView[] {
    return listHosts(this.view, limit);
  }

  /** Why a normalized URL is where it is: stored state, robots verdict, trap limits. */
  explainUrl(url: string, host: string): UrlView {
    return explainUrl(this.view, url, host);
  }

  /** A normalized URL's captures, newest first, from its row in the store; [] when it has none. */
  urlCaptures(url: string, host: string): Capture[] {
    return decodeCaptures(this.view.store.getUrl(this.view.partitionOf(host), url)?.captures);
  }
}

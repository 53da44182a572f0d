/**
 * The cluster's dashboard (core/dashboard) from the node records in the cluster state and the ring: every
 * member with its state and heartbeat age, the ring's owners and moves, the crawl jobs, and the recent pages/s and bytes/s,
 * sampled from the records' running totals each time `sample()` is called (main.ts calls it every
 * heartbeat, so the chart has history before anyone opens the page). A read within `cacheMs` of the last
 * one returns the same snapshot, so several open pages cost one read of the cluster state.
 */
import { buildDashboard, RateHistory, runningTotals, type Dashboard } from "../core/dashboard/index.ts";
import type { JobView } from "../core/jobs/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import type { Membership } from "./membership.ts";

export interface ClusterDashboardOptions {
  membership: Membership;
  state: Pick<ClusterState, "getRing">;
  /** The crawl jobs and their counters (JobService.list); absent: none shown. */
  jobs?: () => Promise<JobView[]>;
  now: () => number;
  /** Reads closer together than this share one snapshot; default 1 s. */
  cacheMs?: number;
}

export class ClusterDashboard {
  private readonly history = new RateHistory();
  private cached: Dashboard | undefined;

  constructor(private readonly opts: ClusterDashboardOptions) {}

  /** Adds a point to the rate history from the records' running totals. */
  async sample(): Promise<void> {
    const view = await this.opts.membership.view();
    const totals = runningTotals(view.members.map((m) => m.record));
    this.history.sample(view.at, totals.pages, totals.bytes);
  }

  async read(): Promise<Dashboard> {
    const now = this.opts.now();
    if (this.cached && now - this.cached.at < (this.opts.cacheMs ?? 1_000) && now >= this.cached.at) return this.cached;
    const [view, ring, jobs] = await Promise.all([
      this.opts.membership.view(),
      this.opts.state.getRing(),
      this.opts.jobs?.() ?? Promise.resolve([]),
    ]);
    const totals = runningTotals(view.members.map((m) => m.record));
    this.history.sample(view.at, totals.pages, totals.bytes);
    this.cached = buildDashboard({
      source: "cluster",
      at: view.at,
      members: view.members,
      ring: ring?.ring,
      jobs,
      rates: this.history.points(),
      current: this.history.current(),
    });
    return this.cached;
  }
}

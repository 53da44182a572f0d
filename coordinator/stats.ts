/**
 * Cluster totals from the node records: the one function behind the admin API's `/v1/stats` and
 * `/metrics` and gRPC `GetStatus`, so both show the same numbers. The rules:
 *
 *   - `counters`: every counter summed by name over every node record present (live, draining or dead:
 *     a dead node's work was still done; a node that stops cleanly deletes its record and its counts go
 *     with it).
 *   - `pagesFetched`: the `fetch.pages` counters of frontier nodes: page responses (robots.txt not counted)
 *     whose results the owner applied. Fetch nodes count their own work under `fetcher.`, so no fetch is
 *     counted twice.
 *   - `errors`: frontier `fetch.network-error.*` counters plus `fetch.status.5xx`.
 *   - `queued`, `inFlight`: the gauges of the same names summed over live and draining frontier nodes.
 *   - `pagesPerSecond`: from deltas between calls over the last `rateWindowMs`: each read adds, per node
 *     (keyed by id and start time, so a restart is a new series), how much its pages grew since the last
 *     read; the rate is that growth over the window. `main.ts` reads every heartbeat so the window stays full.
 *
 * A read within `cacheMs` of the previous one returns the same snapshot, so two APIs asked together agree
 * to the digit.
 */
import type { NodeRecord } from "../core/cluster/index.ts";
import type { Membership } from "./membership.ts";

export interface ClusterTotals {
  atMs: number;
  counters: Record<string, number>;
  gauges: Record<string, number>;
  pagesFetched: number;
  pagesPerSecond: number;
  queued: number;
  inFlight: number;
  errors: number;
  frontierNodes: number;
  fetchNodes: number;
  deadNodes: number;
}

export interface ClusterStatsOptions {
  membership: Membership;
  now: () => number;
  /** Window of the pages/s rate; default 10 s. */
  rateWindowMs?: number;
  /** Reads closer together than this share one snapshot; default 1 s. */
  cacheMs?: number;
}

export const PAGE_COUNTER = "fetch.pages";
export const NETWORK_ERROR_PREFIX = "fetch.network-error.";

export class ClusterStats {
  private readonly startedAt: number;
  private readonly lastPages = new Map<string, number>();
  /** Pages observed since this tracker started, growing only. */
  private observed = 0;
  private samples: Array<{ at: number; observed: number }> = [];
  private cached: ClusterTotals | undefined;

  constructor(private readonly opts: ClusterStatsOptions) {
    this.startedAt = opts.now();
  }

  async read(): Promise<ClusterTotals> {
    const now = this.opts.now();
    if (this.cached && now - this.cached.atMs < (this.opts.cacheMs ?? 1_000)) return this.cached;
    const view = await this.opts.membership.view();
    const counters: Record<string, number> = {};
    const gauges: Record<string, number> = {};
    let pagesFetched = 0;
    let errors = 0;
    let frontierNodes = 0;
    let fetchNodes = 0;
    let deadNodes = 0;
    const seen = new Set<string>();
    for (const { record, state } of view.members) {
      const alive = state === "live" || state === "draining";
      if (!alive) deadNodes++;
      for (const [name, value] of Object.entries(record.counters ?? {})) counters[name] = (counters[name] ?? 0) + value;
      if (alive) for (const [name, value] of Object.entries(record.gauges ?? {})) gauges[name] = (gauges[name] ?? 0) + value;
      if (record.role === "fetcher" && alive) fetchNodes++;
      if (record.role !== "frontier") continue;
      if (alive) frontierNodes++;
      const pages = pagesOf(record);
      pagesFetched += pages;
      errors += errorsOf(record);
      const key = `${record.id}@${record.startedAt}`;
      seen.add(key);
      const last = this.lastPages.get(key) ?? (record.startedAt >= this.startedAt ? 0 : pages);
      this.observed += Math.max(0, pages - last);
      this.lastPages.set(key, pages);
    }
    for (const key of this.lastPages.keys()) if (!seen.has(key)) this.lastPages.delete(key);
    const totals: ClusterTotals = {
      atMs: now,
      counters: sortKeys(counters),
      gauges: sortKeys(gauges),
      pagesFetched,
      pagesPerSecond: this.rate(now),
      queued: frontierGauge(view.members, "queued"),
      inFlight: frontierGauge(view.members, "inFlight"),
      errors,
      frontierNodes,
      fetchNodes,
      deadNodes,
    };
    this.cached = totals;
    return totals;
  }

  private rate(now: number): number {
    const window = this.opts.rateWindowMs ?? 10_000;
    this.samples.push({ at: now, observed: this.observed });
    // Keep the newest sample at or beyond the window's start as the baseline.
    while (this.samples.length > 2 && this.samples[1]!.at <= now - window) this.samples.shift();
    const first = this.samples[0]!;
    const dt = now - first.at;
    return dt > 0 ? Math.round(((this.observed - first.observed) * 1000 * 10) / dt) / 10 : 0;
  }
}

function pagesOf(record: NodeRecord): number {
  return record.counters?.[PAGE_COUNTER] ?? 0;
}

function errorsOf(record: NodeRecord): number {
  let total = 0;
  for (const [name, value] of Object.entries(record.counters ?? {})) {
    if (name.startsWith(NETWORK_ERROR_PREFIX) || /^fetch\.status\.5\d\d$/.test(name)) total += value;
  }
  return total;
}

function frontierGauge(members: ReadonlyArray<{ record: NodeRecord; state: string }>, name: string): number {
  let total = 0;
  for (const m of members) {
    if (m.record.role === "frontier" && (m.state === "live" || m.state === "draining")) total += m.record.gauges?.[name] ?? 0;
  }
  return total;
}

function sortKeys(values: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

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
 *   - `pagesPerSecond`: the sum over live and draining frontier nodes of each node's own rate: how much
 *     its `fetch.pages` grew between its heartbeats within the last `rateWindowMs`, over the time between
 *     them on the node's clock (so how often the coordinator reads does not matter). A node's series is
 *     keyed by id and start time: a restarted node starts a new one from zero at its `startedAt`. A series
 *     seen for the first time is filled from the record history the cluster state keeps
 *     (`nodeHistory`), so a coordinator that has just started, or a standby that just took over, reports
 *     the true rate at its first read: no zero, no spike. A dead node adds nothing. `main.ts` reads every
 *     heartbeat, on standbys too, so the samples are there when the lease moves.
 *
 * A read within `cacheMs` of the previous one returns the same snapshot, so two APIs asked together agree
 * to the digit, unless the membership changed since (`Membership.changes`: a node joined or left), so the
 * node counts are never behind a join that `/v1/nodes` already shows.
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
  /** Samples of each frontier node's pages, per series (`id@startedAt`), oldest first. */
  private readonly series = new Map<string, Sample[]>();
  private cached: ClusterTotals | undefined;
  /** `Membership.changes` when `cached` was read. */
  private cachedChanges = 0;

  constructor(private readonly opts: ClusterStatsOptions) {}

  async read(): Promise<ClusterTotals> {
    const now = this.opts.now();
    const changes = this.opts.membership.changes;
    if (this.cached && now - this.cached.atMs < (this.opts.cacheMs ?? 1_000) && changes === this.cachedChanges) return this.cached;
    const view = await this.opts.membership.view();
    const counters: Record<string, number> = {};
    const gauges: Record<string, number> = {};
    let pagesFetched = 0;
    let errors = 0;
    let frontierNodes = 0;
    let fetchNodes = 0;
    let deadNodes = 0;
    let pagesPerSecond = 0;
    const seen = new Set<string>();
    for (const { record, state } of view.members) {
      const alive = state === "live" || state === "draining";
      if (!alive) deadNodes++;
      for (const [name, value] of Object.entries(record.counters ?? {})) counters[name] = (counters[name] ?? 0) + value;
      if (alive) for (const [name, value] of Object.entries(record.gauges ?? {})) gauges[name] = (gauges[name] ?? 0) + value;
      if (record.role === "fetcher" && alive) fetchNodes++;
      if (record.role !== "frontier") continue;
      if (alive) frontierNodes++;
      pagesFetched += pagesOf(record);
      errors += errorsOf(record);
      const key = seriesKey(record);
      seen.add(key);
      const samples = await this.samplesOf(key, record);
      if (alive) pagesPerSecond += rateOf(samples);
    }
    for (const key of this.series.keys()) if (!seen.has(key)) this.series.delete(key);
    const totals: ClusterTotals = {
      atMs: now,
      counters: sortKeys(counters),
      gauges: sortKeys(gauges),
      pagesFetched,
      pagesPerSecond: Math.round(pagesPerSecond * 10) / 10,
      queued: frontierGauge(view.members, "queued"),
      inFlight: frontierGauge(view.members, "inFlight"),
      errors,
      frontierNodes,
      fetchNodes,
      deadNodes,
    };
    this.cached = totals;
    this.cachedChanges = changes;
    return totals;
  }

  /** The series of `record` with its current sample added, trimmed to the window (and one sample before). */
  private async samplesOf(key: string, record: NodeRecord): Promise<Sample[]> {
    let samples = this.series.get(key);
    if (!samples) {
      samples = await this.firstSamples(record);
      this.series.set(key, samples);
    }
    const last = samples.at(-1);
    if (!last || record.heartbeatAt > last.at) samples.push({ at: record.heartbeatAt, pages: pagesOf(record) });
    const from = samples.at(-1)!.at - (this.opts.rateWindowMs ?? 10_000);
    while (samples.length > 2 && samples[1]!.at <= from) samples.shift();
    return samples;
  }

  /**
   * A series seen for the first time: the node's earlier records of the same life from the cluster state,
   * and, for a node that started within the window, its start (its counters start at zero there).
   */
  private async firstSamples(record: NodeRecord): Promise<Sample[]> {
    let history: NodeRecord[] = [];
    try {
      history = (await this.opts.membership.history(record.id)).filter((r) => r.startedAt === record.startedAt);
    } catch {
      // No history (the state cannot be read that way now): the rate starts at the next beat.
    }
    const samples: Sample[] = [];
    const window = this.opts.rateWindowMs ?? 10_000;
    if (record.startedAt > 0 && record.heartbeatAt - record.startedAt <= window) samples.push({ at: record.startedAt, pages: 0 });
    for (const r of history) {
      if (r.heartbeatAt < record.heartbeatAt && (samples.length === 0 || r.heartbeatAt > samples.at(-1)!.at))
        samples.push({ at: r.heartbeatAt, pages: pagesOf(r) });
    }
    return samples;
  }
}

interface Sample {
  /** The node's heartbeatAt (its clock). */
  at: number;
  pages: number;
}

function seriesKey(record: NodeRecord): string {
  return `${record.id}@${record.startedAt}`;
}

/** Pages per second over a series' samples; 0 with fewer than two, never negative. */
function rateOf(samples: readonly Sample[]): number {
  if (samples.length < 2) return 0;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const dt = last.at - first.at;
  return dt > 0 ? (Math.max(0, last.pages - first.pages) * 1000) / dt : 0;
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

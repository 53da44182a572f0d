/**
 * The dashboard from node records: the one function behind `GET /v1/dashboard` of the coordinator (every
 * node record of the cluster, its ring) and of `crawl --http` (one record describing its own frontier, no
 * ring). The rules, the same as the coordinator's totals (coordinator/stats.ts) where they overlap:
 *
 *   - counters are summed over every record (a dead node's work was done); frontier counters are `fetch.*`,
 *     fetch nodes' `fetcher.*`, so nothing is counted twice. Pages are `fetch.pages`, bytes `fetch.bytes`;
 *   - queue gauges (queued, scheduled, in flight) and host boards come from frontier records that are
 *     serving (live, draining, or the running crawl); a dead node's hosts are no longer anyone's;
 *   - histograms are merged over every record (core/stats mergeHistograms) and summarized as p50/p90/p99;
 *   - each host list is merged across nodes and cut to `rows`, worst first, each row naming its node;
 *   - the crawl jobs are the caller's (JobService.list, the same in both), cut to the first 50 (jobs.ts).
 */
import type { NodeRecord, RingRecord } from "../cluster/index.ts";
import { mergeHistograms, quantile, type HistogramSnapshot } from "../stats/index.ts";
import type { JobView } from "../jobs/index.ts";
import { jobRows } from "./jobs.ts";
import { errorsOf, outcomesOf } from "./outcomes.ts";
import type {
  AddressRow,
  Dashboard,
  HistogramSummary,
  HostBoard,
  HostRow,
  NodeRow,
  PolitenessSummary,
  RatePoint,
  RenderingSummary,
  RingRegion,
} from "./types.ts";

export interface DashboardMember {
  record: NodeRecord;
  /** live, draining, dead, left (cluster); running (crawl). */
  state: string;
  heartbeatAgeMs: number;
  /** The role shown, when not the record's (`crawl`). */
  roleLabel?: string;
}

export interface DashboardInput {
  source: Dashboard["source"];
  at: number;
  members: readonly DashboardMember[];
  ring?: RingRecord;
  rates: RatePoint[];
  current: { pagesPerSecond: number; bytesPerSecond: number };
  /** The crawl jobs (JobService.list), shown bounded (jobs.ts); none given: none shown. */
  jobs?: readonly JobView[];
  /** Rows per host list; default 10. */
  rows?: number;
}

const SERVING = new Set(["live", "draining", "running"]);
export const PAGES_COUNTER = "fetch.pages";
export const BYTES_COUNTER = "fetch.bytes";
export const GAP_WAIT_HISTOGRAM = "politeness.gap-wait-seconds";

/** Pages fetched and bytes stored, summed over the records (for the rate history's samples). */
export function runningTotals(records: Iterable<NodeRecord>): { pages: number; bytes: number } {
  let pages = 0;
  let bytes = 0;
  for (const r of records) {
    pages += r.counters?.[PAGES_COUNTER] ?? 0;
    bytes += r.counters?.[BYTES_COUNTER] ?? 0;
  }
  return { pages, bytes };
}

export function buildDashboard(input: DashboardInput): Dashboard {
  const rows = input.rows ?? 10;
  const counters: Record<string, number> = {};
  for (const { record } of input.members) {
    for (const [name, value] of Object.entries(record.counters ?? {})) counters[name] = (counters[name] ?? 0) + value;
  }
  const frontiers = input.members.filter((m) => m.record.role === "frontier" && SERVING.has(m.state));
  const gauge = (name: string) => frontiers.reduce((sum, m) => sum + (m.record.gauges?.[name] ?? 0), 0);
  const merged = mergeHistograms(input.members.map((m) => m.record.histograms));
  const { pages, bytes } = runningTotals(input.members.map((m) => m.record));
  return {
    source: input.source,
    at: input.at,
    totals: {
      pages,
      bytes,
      queued: gauge("queued"),
      scheduled: gauge("scheduled"),
      inFlight: gauge("inFlight"),
      errors: errorsOf(counters),
      pagesPerSecond: input.current.pagesPerSecond,
      bytesPerSecond: input.current.bytesPerSecond,
    },
    rates: input.rates,
    outcomes: outcomesOf(counters),
    nodes: input.members.map(nodeRow).sort(byRegionRoleId),
    ring: input.ring ? ringView(input.ring) : null,
    hosts: { ...mergeBoards(frontiers, rows), addresses: mergeAddresses(input.members, rows) },
    politeness: {
      ...politeness(frontiers, merged[GAP_WAIT_HISTOGRAM]),
      // `crawl` counts under fetch., a fetch node under fetcher. (its frontier counts nothing of the kind).
      waitedForServer: (counters["fetch.address.waits"] ?? 0) + (counters["fetcher.address.waits"] ?? 0),
      givenBackForServer: (counters["fetch.address.given-back"] ?? 0) + (counters["fetcher.address.given-back"] ?? 0),
    },
    jobs: jobRows(input.jobs ?? []),
    feeds: { read: counters["feed.read"] ?? 0, items: counters["feed.items"] ?? 0, notModified: counters["feed.not-modified"] ?? 0 },
    rendering: rendering(input.members, counters),
    histograms: Object.fromEntries(Object.entries(merged).map(([name, h]) => [name, summarize(h)])),
    distributions: merged,
  };
}

function nodeRow(m: DashboardMember): NodeRow {
  const r = m.record;
  const g = r.gauges ?? {};
  return {
    id: r.id,
    role: m.roleLabel ?? r.role,
    region: r.region,
    state: m.state,
    runtime: r.runtime,
    partitions: r.partitions?.length ?? 0,
    inFlight: g.inFlight ?? 0,
    queued: g.queued ?? 0,
    scheduled: g.scheduled ?? 0,
    activeHosts: g.activeHosts ?? 0,
    heartbeatAgeMs: Math.max(0, m.heartbeatAgeMs),
    pages: (r.counters?.[PAGES_COUNTER] ?? 0) + (r.counters?.["fetcher.pages"] ?? 0),
  };
}

const ROLE_ORDER: Record<string, number> = { coordinator: 0, crawl: 1, frontier: 2, fetcher: 3 };

function byRegionRoleId(a: NodeRow, b: NodeRow): number {
  return (
    a.region.localeCompare(b.region) || (ROLE_ORDER[a.role] ?? 9) - (ROLE_ORDER[b.role] ?? 9) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function ringView(ring: RingRecord): NonNullable<Dashboard["ring"]> {
  const regions: RingRegion[] = Object.entries(ring.regions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([region, a]) => ({
      region,
      owners: [...a.owners],
      moves: a.previous.flatMap((from, partition) =>
        from && from !== a.owners[partition] ? [{ partition, from, to: a.owners[partition] ?? "" }] : [],
      ),
    }));
  return { epoch: ring.epoch, partitions: ring.partitions, regions };
}

function mergeBoards(frontiers: readonly DashboardMember[], rows: number): HostBoard {
  const all = (pick: (b: HostBoard) => HostRow[]) =>
    frontiers.flatMap((m) =>
      m.record.hosts ? pick(m.record.hosts.board).map((h) => ({ ...h, node: m.record.id, region: m.record.region })) : [],
    );
  return {
    slowest: all((b) => b.slowest)
      .sort((a, b) => b.fetchMs - a.fetchMs)
      .slice(0, rows),
    throttled: all((b) => b.throttled)
      .sort((a, b) => b.throttleMs - a.throttleMs || b.throttles - a.throttles)
      .slice(0, rows),
    parked: all((b) => b.parked)
      .sort((a, b) => a.robotsExpiresAt - b.robotsExpiresAt)
      .slice(0, rows),
  };
}

/**
 * The busiest servers over every process that reports its address board (fetch nodes of every region, or
 * `crawl`): one server's rows summed (the fetch nodes of a region share its cap), its longest wait the
 * longest of any, most waits first. Dead or departed nodes' rows are left out.
 */
function mergeAddresses(members: readonly DashboardMember[], rows: number): AddressRow[] {
  const byServer = new Map<string, AddressRow>();
  for (const m of members) {
    if (!SERVING.has(m.state)) continue;
    for (const r of m.record.addresses ?? []) {
      const seen = byServer.get(r.server);
      if (!seen) byServer.set(r.server, { ...r });
      else {
        seen.passes += r.passes;
        seen.waits += r.waits;
        seen.givenBack += r.givenBack;
        seen.longestWaitMs = Math.max(seen.longestWaitMs, r.longestWaitMs);
        seen.since = Math.min(seen.since, r.since);
        seen.lastAt = Math.max(seen.lastAt, r.lastAt);
      }
    }
  }
  return [...byServer.values()]
    .sort((a, b) => b.waits - a.waits || b.givenBack - a.givenBack || b.passes - a.passes || (a.server < b.server ? -1 : 1))
    .slice(0, rows);
}

/** The pools' size (the `renderPool` gauge of every record) and the frontiers' render counters. */
function rendering(members: readonly DashboardMember[], counters: Record<string, number>): RenderingSummary {
  let failed = 0;
  for (const [name, n] of Object.entries(counters)) if (name.startsWith("render.failed")) failed += n;
  return {
    poolSize: members.filter((m) => SERVING.has(m.state)).reduce((sum, m) => sum + (m.record.gauges?.renderPool ?? 0), 0),
    rendered: counters["render.rendered"] ?? 0,
    failed,
    asReceived: counters["render.as-received"] ?? 0,
    linksFound: counters["render.links-found"] ?? 0,
    browserRestarts: counters["render.browser-restarts"] ?? 0,
  };
}

function politeness(
  frontiers: readonly DashboardMember[],
  gapWait: HistogramSnapshot | undefined,
): Omit<PolitenessSummary, "waitedForServer" | "givenBackForServer"> {
  const out: Omit<PolitenessSummary, "waitedForServer" | "givenBackForServer"> = {
    activeHosts: 0,
    throttledHosts: 0,
    parkedHosts: 0,
    largestGapMs: 0,
    largestGapHost: "",
    waitedForGap: gapWait?.count ?? 0,
  };
  for (const m of frontiers) {
    const p = m.record.hosts?.politeness;
    if (!p) continue;
    out.activeHosts += p.activeHosts;
    out.throttledHosts += p.throttledHosts;
    out.parkedHosts += p.parkedHosts;
    if (p.largestGapMs > out.largestGapMs) {
      out.largestGapMs = p.largestGapMs;
      out.largestGapHost = p.largestGapHost;
    }
  }
  return out;
}

function summarize(h: HistogramSnapshot): HistogramSummary {
  const q = (p: number) => {
    const v = quantile(h, p);
    return Number.isNaN(v) ? 0 : Math.round(v * 1000) / 1000;
  };
  return { count: h.count, sum: Math.round(h.sum * 1000) / 1000, p50: q(0.5), p90: q(0.9), p99: q(0.99) };
}

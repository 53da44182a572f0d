/**
 * The cluster run's cost per page by role (issue 26, item 1): the process tree's per-process figures
 * grouped into roles (frontier nodes, fetch nodes, coordinators, nats-server, redis-server, the launcher),
 * with what the servers themselves say (cluster-stats.ts): Redis commands, AOF bytes and memory per page,
 * NATS messages and bytes per page, and the test web's connections per host. `roleTable` prints it;
 * `roleCosts` is the same as data, for the JSON line and for `--costs-out` (the fleet model's input,
 * bench/fleet/measured-costs.json).
 */
import { connectionsMeaning } from "./direct.ts";
import type { KeyFamily, ServerDelta } from "./cluster-stats.ts";
import { type IdleCost, idleLine } from "./idle-cost.ts";
import type { CrawlResult } from "./run.ts";
import type { ProcessUsage } from "./tree.ts";

/** What the servers said over the run, and the pages each span is divided by. */
export interface ServerReport {
  /** Pages (test-web log) from the cluster being ready and seeded to the window's end, and in the steady half. */
  pages: { fromReady: number; steady: number };
  fromReady: ServerDelta;
  steady: ServerDelta;
  /** Redis keys by family at the window's end (sizes sampled with MEMORY USAGE). */
  keyFamilies: KeyFamily[];
  redisUsedMemoryBytes: number;
  redisKeys: number;
  /** The cluster with no work, before seeding (when the run measured it). */
  idle?: IdleCost;
}

export const ROLES = ["frontier", "fetch", "coordinator", "nats-server", "redis-server", "launcher"] as const;
export type Role = (typeof ROLES)[number];

/** `frontier-2 (bun)` -> frontier, `fetch-1 (deno)` -> fetch, `nats-server` -> nats-server; the rest is the launcher. */
export function roleOf(processName: string): Role {
  if (processName.startsWith("frontier-")) return "frontier";
  if (processName.startsWith("fetch-")) return "fetch";
  if (processName.startsWith("coordinator-")) return "coordinator";
  if (processName.startsWith("nats-server")) return "nats-server";
  // redis-server forks `redis-aof-rewrite` (and `redis-rdb-bgsave`) children: their CPU is Redis's.
  if (processName.startsWith("redis-")) return "redis-server";
  return "launcher";
}

export interface RoleCost {
  role: Role;
  processes: number;
  /** CPU (all threads) over the whole window, per page of the window. */
  cpuMsPerPage: number;
  /** CPU in the steady half, per page of the steady half. */
  steadyCpuMsPerPage: number;
  /**
   * Main-thread CPU (tid = pid: a Bun or Deno process's JavaScript thread, which one core caps) over the
   * window, per page of the window: one process of the role handles at most 1000 / this pages a second.
   */
  mainThreadMsPerPage: number;
  /** The busiest process's main thread, as a share of one core over the window. */
  maxMainThreadShare: number;
  /** The largest peak RSS of one process of the role, and the sum of the role's peaks. */
  peakRssBytesMax: number;
  peakRssBytesSum: number;
  /** Bytes sent to storage (write_bytes) per page over the window: WAL and store, WARC files, AOF, JetStream files. */
  diskBytesPerPage: number;
  /**
   * Steady half, per page: the main threads' voluntary context switches (an event loop's wake-ups: fewer
   * when each wake-up handles more) and involuntary ones (preempted: the box crowded, not the code).
   */
  steadyWakeupsPerPage: number;
  steadyPreemptionsPerPage: number;
  /**
   * Steady CPU per page of the runtime's helper threads (all but the main one: JIT compilers, GC helpers,
   * I/O pools). Each process warms up on its own, so more processes for the same pages means more of it.
   */
  steadyHelperThreadsMsPerPage: number;
}

export function roleCosts(r: CrawlResult): RoleCost[] {
  const by = new Map<Role, ProcessUsage[]>();
  for (const p of r.processes ?? []) {
    const role = roleOf(p.name);
    let list = by.get(role);
    if (!list) by.set(role, (list = []));
    list.push(p);
  }
  const perPage = (x: number, pages: number) => (pages > 0 ? x / pages : 0);
  return ROLES.filter((role) => by.has(role)).map((role) => {
    const ps = by.get(role)!;
    const sum = (f: (p: ProcessUsage) => number) => ps.reduce((a, p) => a + f(p), 0);
    return {
      role,
      processes: ps.filter((p) => p.cpuSeconds > 0 || p.peakRssBytes > 0).length,
      cpuMsPerPage: perPage(sum((p) => p.cpuSeconds) * 1000, r.pages),
      steadyCpuMsPerPage: perPage(sum((p) => p.steadyCpuSeconds) * 1000, r.steady.pages),
      mainThreadMsPerPage: perPage(sum((p) => p.mainThreadCpuSeconds) * 1000, r.pages),
      maxMainThreadShare: ps.reduce((a, p) => Math.max(a, p.mainThreadCpuSeconds / r.seconds), 0),
      peakRssBytesMax: ps.reduce((a, p) => Math.max(a, p.peakRssBytes), 0),
      peakRssBytesSum: sum((p) => p.peakRssBytes),
      diskBytesPerPage: perPage(
        sum((p) => p.diskWrittenBytes),
        r.pages,
      ),
      steadyWakeupsPerPage: perPage(
        sum((p) => p.steadyMainSwitches?.voluntary ?? 0),
        r.steady.pages,
      ),
      steadyPreemptionsPerPage: perPage(
        sum((p) => p.steadyMainSwitches?.involuntary ?? 0),
        r.steady.pages,
      ),
      steadyHelperThreadsMsPerPage: perPage(
        sum((p) => Math.max(0, p.steadyCpuSeconds - (p.steadyMainThreadCpuSeconds ?? 0))) * 1000,
        r.steady.pages,
      ),
    };
  });
}

/** Per-page figures of the servers, steady half and from ready, as data. */
export function serverCosts(r: CrawlResult) {
  const s = r.servers;
  if (!s) return undefined;
  const per = (x: number, pages: number) => (pages > 0 ? x / pages : 0);
  const span = (d: ServerDelta, pages: number) => ({
    pages,
    redisCommandsPerPage: per(d.redisCommandsTotal, pages),
    redisTopCommandsPerPage: Object.fromEntries(
      Object.entries(d.redisCommands)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([k, v]) => [k, round(per(v, pages), 2)]),
    ),
    redisAofBytesPerPage: per(d.redisAofBytes, pages),
    redisAofRewrites: d.redisAofRewrites,
    redisMemoryBytesPerPage: per(d.redisUsedMemoryBytes, pages),
    redisKeysPerPage: per(d.redisKeys, pages),
    natsPublishedMsgsPerPage: per(d.natsInMsgs, pages),
    natsPublishedBytesPerPage: per(d.natsInBytes, pages),
    natsDeliveredMsgsPerPage: per(d.natsOutMsgs, pages),
    natsDeliveredBytesPerPage: per(d.natsOutBytes, pages),
    streamMessagesPerPage: per(d.streamMessagesTotal, pages),
    streamMessagesByStreamPerPage: Object.fromEntries(Object.entries(d.streamMessages).map(([k, v]) => [k, round(per(v, pages), 2)])),
  });
  const nats = (r.processes ?? []).filter((p) => roleOf(p.name) === "nats-server");
  return {
    fromReady: span(s.fromReady, s.pages.fromReady),
    steady: span(s.steady, s.pages.steady),
    natsDiskBytesPerPage: per(
      nats.reduce((a, p) => a + p.diskWrittenBytes, 0),
      r.pages,
    ),
    redisUsedMemoryBytes: s.redisUsedMemoryBytes,
    redisKeys: s.redisKeys,
    /** Every key family's bytes divided by the pages of the whole window (what a page leaves in Redis). */
    redisBytesPerPageByFamily: Object.fromEntries(s.keyFamilies.map((f) => [f.family, round(per(f.bytes, r.pages), 1)])),
    redisKeysByFamily: Object.fromEntries(s.keyFamilies.map((f) => [f.family, f.keys])),
    connectionsPerHost: r.connectionsPerHost,
    processesPerHost: r.hostAffinity.processesPerHost,
    processesPerHostPlacedShare: r.hostAffinity.placedShare,
    proxyConnections: r.connections,
    ...(s.idle ? { idle: s.idle } : {}),
  };
}

export function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

const MB = 2 ** 20;

/** The per-role table and the servers' lines, for the cluster's row of the report. */
export function roleTable(r: CrawlResult): string[] {
  const costs = roleCosts(r);
  const head = [
    "role",
    "procs",
    "CPU ms/page",
    "steady ms/page",
    "main thread ms/page",
    "busiest main thread %",
    "peak RSS MB (max / sum)",
    "disk KB/page",
    "steady helper threads ms/page",
    "steady wake-ups/page",
    "steady preempted/page",
  ];
  const rows = costs.map((c) => [
    c.role,
    String(c.processes),
    c.cpuMsPerPage.toFixed(3),
    c.steadyCpuMsPerPage.toFixed(3),
    c.mainThreadMsPerPage.toFixed(3),
    (100 * c.maxMainThreadShare).toFixed(0),
    `${(c.peakRssBytesMax / MB).toFixed(0)} / ${(c.peakRssBytesSum / MB).toFixed(0)}`,
    (c.diskBytesPerPage / 1024).toFixed(2),
    c.steadyHelperThreadsMsPerPage.toFixed(3),
    c.steadyWakeupsPerPage.toFixed(2),
    c.steadyPreemptionsPerPage.toFixed(2),
  ]);
  const total = costs.filter((c) => c.role !== "launcher");
  rows.push([
    "cluster (no launcher)",
    String(total.reduce((a, c) => a + c.processes, 0)),
    total.reduce((a, c) => a + c.cpuMsPerPage, 0).toFixed(3),
    total.reduce((a, c) => a + c.steadyCpuMsPerPage, 0).toFixed(3),
    "",
    "",
    `- / ${(total.reduce((a, c) => a + c.peakRssBytesSum, 0) / MB).toFixed(0)}`,
    (total.reduce((a, c) => a + c.diskBytesPerPage, 0) / 1024).toFixed(2),
    total.reduce((a, c) => a + c.steadyHelperThreadsMsPerPage, 0).toFixed(3),
    total.reduce((a, c) => a + c.steadyWakeupsPerPage, 0).toFixed(2),
    total.reduce((a, c) => a + c.steadyPreemptionsPerPage, 0).toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    `    ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`;
  const out = ["  cost per page by role (issue 26):", line(head), ...rows.map(line)];
  const s = serverCosts(r);
  if (s) {
    const top = (o: Record<string, number>) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");
    const kb = (x: number) => (x / 1024).toFixed(2);
    out.push(
      `    redis: ${s.steady.redisCommandsPerPage.toFixed(1)} commands/page steady (${top(s.steady.redisTopCommandsPerPage)}), ` +
        `${s.fromReady.redisCommandsPerPage.toFixed(1)} from ready; AOF ${kb(s.steady.redisAofBytesPerPage)} KB/page steady, ` +
        `${kb(s.fromReady.redisAofBytesPerPage)} from ready (${s.fromReady.redisAofRewrites} rewrites); ` +
        `used_memory ${(s.redisUsedMemoryBytes / MB).toFixed(1)} MB, ${s.redisKeys} keys at the end`,
    );
    out.push(`    redis bytes per page by key family (MEMORY USAGE, sampled): ${top(s.redisBytesPerPageByFamily)}`);
    out.push(
      `    nats: published ${s.steady.natsPublishedMsgsPerPage.toFixed(1)} msgs / ${kb(s.steady.natsPublishedBytesPerPage)} KB per page steady, ` +
        `delivered ${s.steady.natsDeliveredMsgsPerPage.toFixed(1)} msgs / ${kb(s.steady.natsDeliveredBytesPerPage)} KB; ` +
        `stored ${s.steady.streamMessagesPerPage.toFixed(2)} stream msgs/page (${top(s.steady.streamMessagesByStreamPerPage)}), ` +
        `nats-server wrote ${kb(s.natsDiskBytesPerPage)} KB/page to disk`,
    );
    if (r.servers?.idle) out.push(idleLine(r.servers.idle));
    out.push(
      `    test web: ${r.hostAffinity.processesPerHost.toFixed(2)} fetch processes per host (${(100 * r.hostAffinity.placedShare).toFixed(0)} % of requests placed by their connection's port); ${s.connectionsPerHost.toFixed(2)} connections per host (${connectionsMeaning(r.direct)}; ${r.hostsRequested} hosts); ${r.connections} connections accepted in all`,
    );
  }
  return out;
}

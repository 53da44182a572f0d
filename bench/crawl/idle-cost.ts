/**
 * What the local cluster costs with no work (issue 26, item 3): measured once the cluster is ready and
 * before it is seeded, so nothing is queued and every CPU tick, NATS message and Redis command is the
 * cluster keeping itself alive: heartbeats, ring and KV watches, consumer pulls waiting on empty streams,
 * per-node timers. This is the part of the fleet's cost that grows with the number of nodes whatever the
 * crawl rate, so it is reported per role and per process (CPU ms per second, i.e. thousandths of a core),
 * and as NATS messages and Redis commands per second.
 *
 * Read from outside: each process's CPU from /proc (pids from DIR/cluster.json), the servers' counters from
 * ClusterStats. The benchmark's own INFO calls to Redis are left out of the command counts.
 */
import type { ClusterProcess, ClusterStats, ServerDelta } from "./cluster-stats.ts";
import { delta } from "./cluster-stats.ts";
import { cpuSeconds } from "./proc.ts";

/** cluster.json's roles, named as the role table names them (roles.ts). */
const ROLE_NAMES: Record<string, string> = {
  frontier: "frontier",
  fetch: "fetch",
  coordinator: "coordinator",
  nats: "nats-server",
  redis: "redis-server",
};

/** Commands the benchmark itself sends to Redis (ClusterStats), not the cluster's. */
const OWN_COMMANDS = new Set(["info", "scan", "memory|usage", "memory"]);

export interface IdleRole {
  role: string;
  processes: number;
  /** CPU ms per second of the role's processes together (1000 = one core busy). */
  cpuMsPerSecond: number;
  /** The same, per process of the role. */
  cpuMsPerSecondPerProcess: number;
}

export interface IdleCost {
  seconds: number;
  roles: IdleRole[];
  /** Every role together. */
  cpuMsPerSecond: number;
  natsPublishedPerSecond: number;
  natsDeliveredPerSecond: number;
  redisCommandsPerSecond: number;
  /** The busiest Redis commands, per second. */
  redisTopCommandsPerSecond: Record<string, number>;
}

/**
 * Waits `settleMs` (the start's last replies and timers), then measures `seconds` of the idle cluster.
 * `processes` are cluster.json's entries; one without a pid (waiting for a restart) is skipped.
 */
export async function measureIdle(
  processes: readonly ClusterProcess[],
  stats: ClusterStats,
  seconds: number,
  ticks: number,
  settleMs = 1_000,
): Promise<IdleCost> {
  await Bun.sleep(settleMs);
  const live = processes.filter((p): p is ClusterProcess & { pid: number } => typeof p.pid === "number");
  const before = await stats.snapshot();
  const cpu0 = live.map((p) => cpuSeconds(p.pid, ticks));
  const t0 = performance.now();
  await Bun.sleep(seconds * 1000);
  const cpu1 = live.map((p) => cpuSeconds(p.pid, ticks));
  const elapsed = (performance.now() - t0) / 1000;
  const after = await stats.snapshot();
  const byRole = new Map<string, { processes: number; cpu: number }>();
  live.forEach((p, i) => {
    const role = ROLE_NAMES[p.role] ?? p.role;
    const r = byRole.get(role) ?? { processes: 0, cpu: 0 };
    r.processes++;
    r.cpu += Math.max(0, (cpu1[i] ?? cpu0[i] ?? 0) - (cpu0[i] ?? 0));
    byRole.set(role, r);
  });
  return idleCost(delta(before, after), byRole, elapsed);
}

/** The figures from what was read (pure: tested on its own). */
export function idleCost(d: ServerDelta, byRole: ReadonlyMap<string, { processes: number; cpu: number }>, seconds: number): IdleCost {
  const per = (x: number) => (seconds > 0 ? x / seconds : 0);
  const roles = [...byRole.entries()].map(([role, r]) => ({
    role,
    processes: r.processes,
    cpuMsPerSecond: per(r.cpu * 1000),
    cpuMsPerSecondPerProcess: r.processes > 0 ? per(r.cpu * 1000) / r.processes : 0,
  }));
  const commands = Object.entries(d.redisCommands).filter(([k]) => !OWN_COMMANDS.has(k));
  return {
    seconds,
    roles,
    cpuMsPerSecond: roles.reduce((a, r) => a + r.cpuMsPerSecond, 0),
    natsPublishedPerSecond: per(d.natsInMsgs),
    natsDeliveredPerSecond: per(d.natsOutMsgs),
    redisCommandsPerSecond: per(commands.reduce((a, [, v]) => a + v, 0)),
    redisTopCommandsPerSecond: Object.fromEntries(
      commands
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([k, v]) => [k, Number(per(v).toFixed(1))]),
    ),
  };
}

/** One line for the report. */
export function idleLine(idle: IdleCost): string {
  const roles = idle.roles
    .map((r) => `${r.role} ${r.cpuMsPerSecond.toFixed(1)}${r.processes > 1 ? ` (${r.cpuMsPerSecondPerProcess.toFixed(1)} each)` : ""}`)
    .join(", ");
  const top = Object.entries(idle.redisTopCommandsPerSecond)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return (
    `    idle (ready, before seeding, ${idle.seconds.toFixed(1)} s): CPU ms/s ${idle.cpuMsPerSecond.toFixed(1)} in all (${roles}); ` +
    `nats ${idle.natsPublishedPerSecond.toFixed(1)} msgs/s published, ${idle.natsDeliveredPerSecond.toFixed(1)} delivered; ` +
    `redis ${idle.redisCommandsPerSecond.toFixed(1)} commands/s${top ? ` (${top})` : ""}`
  );
}

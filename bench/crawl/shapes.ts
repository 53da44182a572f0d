/**
 * `--cluster-shapes 2+2,2+6,4+2` (issue 26, item 3): the local cluster run in each shape (frontier + fetch
 * nodes) on the same scenario, back to back in one run, and one table comparing them, so what grows with the
 * number of nodes shows from one command: pages/s, CPU per page by role in the steady half, NATS messages
 * and Redis commands per page, and what the cluster costs with no work (idle-cost.ts). The first shape is
 * the yardstick: each row's steady CPU per page is also given as a ratio of it, and issue 26 asks for 1.10
 * at most.
 */
import { roleCosts, serverCosts } from "./roles.ts";
import type { ClusterShape, CrawlResult } from "./run.ts";

/** Issue 26: the cost per page of a bigger fleet within 10 % of the first shape's. */
export const FLAT_COST_LIMIT = 1.1;

/** `2+2,2+6,4+2` -> shapes; throws with the bad part named. */
export function parseShapes(text: string): ClusterShape[] {
  const shapes = text.split(",").map((part) => {
    const m = /^\s*(\d+)\s*\+\s*(\d+)\s*$/.exec(part);
    const frontiers = Number(m?.[1]);
    const fetchers = Number(m?.[2]);
    if (!m || frontiers < 1 || fetchers < 1)
      throw new Error(`--cluster-shapes: "${part}" is not FRONTIERS+FETCHERS (e.g. 2+6), each at least 1`);
    return { frontiers, fetchers };
  });
  if (shapes.length === 0) throw new Error("--cluster-shapes needs at least one shape, e.g. 2+2,2+6");
  return shapes;
}

export interface ShapeRow {
  shape: string;
  pagesPerSecond: number;
  steadyPagesPerSecond: number;
  /** Steady half, every cluster role (launcher left out). */
  steadyCpuMsPerPage: number;
  steadyCpuMsPerPageByRole: Record<string, number>;
  /** Steady CPU per page over the first shape's. */
  vsFirst: number;
  natsPublishedPerPage: number;
  natsDeliveredPerPage: number;
  redisCommandsPerPage: number;
  /** Main threads' voluntary context switches per page (event-loop wake-ups) and involuntary ones (the box crowded). */
  wakeupsPerPage: number;
  preemptionsPerPage: number;
  /** Steady CPU per page of the runtimes' helper threads (JIT, GC), every role. */
  helperThreadsMsPerPage: number;
  idleCpuMsPerSecond?: number;
  idleNatsPublishedPerSecond?: number;
  idleRedisCommandsPerSecond?: number;
  violations: number;
  otherLoadCpuSeconds: number;
}

export function shapeRows(results: readonly CrawlResult[]): ShapeRow[] {
  const clusters = results.filter((r) => r.kind === "cluster" && r.shape);
  const rows = clusters.map((r) => {
    const roles = roleCosts(r).filter((c) => c.role !== "launcher");
    const servers = serverCosts(r);
    const idle = r.servers?.idle;
    return {
      shape: `${r.shape!.frontiers}+${r.shape!.fetchers}`,
      pagesPerSecond: r.pagesPerSecond,
      steadyPagesPerSecond: r.steady.pagesPerSecond,
      steadyCpuMsPerPage: roles.reduce((a, c) => a + c.steadyCpuMsPerPage, 0),
      steadyCpuMsPerPageByRole: Object.fromEntries(roles.map((c) => [c.role, c.steadyCpuMsPerPage])),
      vsFirst: 1,
      natsPublishedPerPage: servers?.steady.natsPublishedMsgsPerPage ?? 0,
      natsDeliveredPerPage: servers?.steady.natsDeliveredMsgsPerPage ?? 0,
      redisCommandsPerPage: servers?.steady.redisCommandsPerPage ?? 0,
      wakeupsPerPage: roles.reduce((a, c) => a + c.steadyWakeupsPerPage, 0),
      preemptionsPerPage: roles.reduce((a, c) => a + c.steadyPreemptionsPerPage, 0),
      helperThreadsMsPerPage: roles.reduce((a, c) => a + c.steadyHelperThreadsMsPerPage, 0),
      ...(idle
        ? {
            idleCpuMsPerSecond: idle.cpuMsPerSecond,
            idleNatsPublishedPerSecond: idle.natsPublishedPerSecond,
            idleRedisCommandsPerSecond: idle.redisCommandsPerSecond,
          }
        : {}),
      violations: r.violations + (r.ownPolicyViolations ?? 0),
      otherLoadCpuSeconds: r.otherLoadCpuSeconds,
    };
  });
  const first = rows[0]?.steadyCpuMsPerPage ?? 0;
  for (const row of rows) row.vsFirst = first > 0 ? row.steadyCpuMsPerPage / first : 0;
  return rows;
}

const ROLE_COLUMNS = ["frontier", "fetch", "coordinator", "nats-server", "redis-server"] as const;

/** The comparison table and its verdict line; empty with fewer than two shapes. */
export function shapesTable(results: readonly CrawlResult[]): string {
  const rows = shapeRows(results);
  if (rows.length < 2) return "";
  const head = [
    "shape",
    "pages/s",
    "steady pages/s",
    "steady ms/page",
    "vs first",
    ...ROLE_COLUMNS,
    "nats pub/page",
    "nats deliv/page",
    "redis cmds/page",
    "helper threads ms/page",
    "wake-ups/page",
    "preempted/page",
    "idle CPU ms/s",
    "idle nats msgs/s",
    "idle redis cmds/s",
    "other load CPU s",
    "violations",
  ];
  const opt = (x: number | undefined, digits: number) => (x === undefined ? "-" : x.toFixed(digits));
  const cells = rows.map((r) => [
    r.shape,
    r.pagesPerSecond.toFixed(1),
    r.steadyPagesPerSecond.toFixed(1),
    r.steadyCpuMsPerPage.toFixed(3),
    r.vsFirst.toFixed(2),
    ...ROLE_COLUMNS.map((role) => opt(r.steadyCpuMsPerPageByRole[role], 3)),
    r.natsPublishedPerPage.toFixed(2),
    r.natsDeliveredPerPage.toFixed(2),
    r.redisCommandsPerPage.toFixed(1),
    r.helperThreadsMsPerPage.toFixed(3),
    r.wakeupsPerPage.toFixed(2),
    r.preemptionsPerPage.toFixed(2),
    opt(r.idleCpuMsPerSecond, 1),
    opt(r.idleNatsPublishedPerSecond, 1),
    opt(r.idleRedisCommandsPerSecond, 1),
    r.otherLoadCpuSeconds.toFixed(1),
    String(r.violations),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join("  ");
  const worst = rows.slice(1).reduce((a, r) => (r.vsFirst > a.vsFirst ? r : a), rows[1]!);
  const flat = rows.every((r) => r.vsFirst <= FLAT_COST_LIMIT);
  return [
    "cluster shapes (issue 26, item 3): steady half; CPU ms/page by role; idle = ready, before seeding",
    line(head),
    ...cells.map(line),
    `flat cost: the costliest shape ${worst.shape} pays ${worst.vsFirst.toFixed(2)}x the CPU per page of ${rows[0]!.shape} ` +
      `(target <= ${FLAT_COST_LIMIT}): ${flat ? "met" : "NOT met"}`,
    "",
  ].join("\n");
}

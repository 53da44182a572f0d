/**
 * Our local cluster as the benchmark runs it (issue 4, "Done means"): `bun run cluster up --proxy <test
 * web> (with --direct: --hosts-file <file> --allow-private-addresses, direct.ts) --dir <scratch> --frontiers N --fetchers M -- --min-gap <gap>` as one child in a process group of
 * its own (nats-server, redis-server, the coordinator, N frontier nodes and M fetch nodes, the first on
 * Deno when Deno is installed, all its descendants), measured over the whole process tree. Once the
 * launcher has written DIR/cluster.json, every home page is seeded with `crawlctl seed add --file`. The
 * window opens at the spawn, as for every crawler (run.ts): the cluster's start-up and seeding count.
 * Every policy but the gap keeps its default, including gap ≥ 10 × fetch time, checked as its own rule. The benchmark
 * stops the cluster with SIGTERM to the launcher (which stops its children in order) and checks by pid
 * that every process of the tree has gone.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterStats, delta, type ServerSnapshot } from "./cluster-stats.ts";
import { type IdleCost, measureIdle } from "./idle-cost.ts";
import { clockTicksPerSecond } from "./proc.ts";
import type { ClusterFile } from "../../scripts/cluster/cluster-file.ts";
import { directCrawlArgs } from "./direct.ts";
import type { CrawlerUnderTest, PrepareContext } from "./run.ts";

const REPO_ROOT = new URL("../..", import.meta.url).pathname;
/** `cluster up` gives up after 60 s by default; this is only a bound on our wait for its cluster.json. */
const READY_LIMIT_MS = 120_000;
/**
 * `cluster up` stops its children one after the other, each with up to 15 s before SIGKILL (frontier
 * nodes first: they wait up to --stop-grace 10 s for results of tasks in flight; fetch nodes up to 25 s,
 * cut at 15 s), then redis-server and nats-server.
 */
const STOP_GRACE_MS = 120_000;

export interface ClusterOptions {
  frontiers: number;
  fetchers: number;
  /** More `cluster up` flags (before `--`), e.g. `--no-deno`. */
  upArgs?: readonly string[];
  /** More frontier-node flags (after `--`), e.g. `--credit 1024`. */
  frontierArgs?: readonly string[];
  /**
   * Seconds to measure the ready cluster with no work before seeding it (idle-cost.ts); 0 or absent: none.
   * They count in the window (which opens at the spawn), so its steady half is the figure to compare.
   */
  idleSeconds?: number;
}

export function clusterCrawler(opts: ClusterOptions): CrawlerUnderTest {
  // The servers' own figures (issue 26): read at ready, the window's middle and its end.
  let stats: ClusterStats | undefined;
  const snaps: Partial<Record<"ready" | "mid" | "end", ServerSnapshot>> = {};
  let idle: IdleCost | undefined;
  const hasDeno =
    !(opts.upArgs ?? []).includes("--no-deno") &&
    Bun.spawnSync(["deno", "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  return {
    name: `cluster ${opts.frontiers}+${opts.fetchers} (bun${hasDeno ? "+deno" : ""})`,
    shape: { frontiers: opts.frontiers, fetchers: opts.fetchers },
    kind: "cluster",
    processTree: true,
    stopGraceMs: STOP_GRACE_MS,
    launch: ({ proxyUrl, hostsFile, dir, scenario }) => ({
      cmd: [
        process.execPath,
        "run",
        "cluster",
        "up",
        // Direct: `cluster up` gives both switches to the roles that resolve names (direct.ts).
        ...(hostsFile ? directCrawlArgs(hostsFile) : ["--proxy", proxyUrl]),
        "--dir",
        join(dir, "cluster"),
        "--frontiers",
        String(opts.frontiers),
        "--fetchers",
        String(opts.fetchers),
        ...(opts.upArgs ?? []),
        "--",
        "--min-gap",
        `${scenario.minGapMs}ms`,
        ...(opts.frontierArgs ?? []),
      ],
      cwd: REPO_ROOT,
    }),
    prepare: async (ctx) => {
      const t0 = performance.now(); // right after the spawn
      const info = await waitForClusterJson(ctx);
      ctx.log(
        `  cluster ready after ${((performance.now() - t0) / 1000).toFixed(1)} s (gRPC ${info.grpcAddress}); seeding ${ctx.seedsFile}`,
      );
      stats = new ClusterStats(info.processes ?? []);
      if ((opts.idleSeconds ?? 0) > 0) {
        idle = await measureIdle(info.processes ?? [], stats, opts.idleSeconds!, clockTicksPerSecond());
        ctx.log(`  idle: ${idle.cpuMsPerSecond.toFixed(1)} CPU ms/s over ${idle.seconds.toFixed(1)} s; seeding now`);
      }
      await seed(ctx, info);
      await stats.start();
    },
    observe: async (point) => {
      if (!stats) return;
      try {
        snaps[point] = await stats.snapshot();
      } catch (e) {
        process.stderr.write(`  note: the cluster's servers could not be read at ${point}: ${(e as Error).message}\n`);
      }
    },
    observed: async () => {
      const { ready, mid, end } = snaps;
      if (!stats || !ready || !mid || !end) {
        stats?.close();
        return undefined;
      }
      try {
        const families = await stats.keyFamilies();
        // The scan runs after the window: scale its counts to the keys Redis held at the window's end.
        const scanned = families.reduce((a, f) => a + f.keys, 0);
        const scale = scanned > 0 ? end.redis.keys / scanned : 1;
        return {
          fromReady: delta(ready, end),
          steady: delta(mid, end),
          keyFamilies: families.map((f) => ({ ...f, keys: Math.round(f.keys * scale), bytes: Math.round(f.bytes * scale) })),
          redisUsedMemoryBytes: end.redis.usedMemoryBytes,
          redisKeys: end.redis.keys,
          ...(idle ? { idle } : {}),
        };
      } finally {
        stats.close();
      }
    },
    ownPolicy: { gapMultiplier: 10 },
  };
}

function waitForClusterJson(ctx: PrepareContext): Promise<ClusterFile> {
  return waitForClusterFile(join(ctx.dir, "cluster", "cluster.json"), ctx.exited, () => logTails(ctx.dir));
}

/**
 * DIR/cluster.json (`file`) once `cluster up` has written it, which it does once the cluster is ready.
 * Throws when `exited()` says the launcher is gone first, or after READY_LIMIT_MS, with `why()` appended.
 */
export async function waitForClusterFile(file: string, exited: () => boolean, why: () => string = () => ""): Promise<ClusterFile> {
  const giveUpAt = performance.now() + READY_LIMIT_MS;
  for (;;) {
    if (exited()) throw new Error(`cluster up exited before it was ready\n${why()}`);
    if (existsSync(file)) {
      try {
        const info = JSON.parse(readFileSync(file, "utf8")) as ClusterFile;
        if (info.grpcAddress && info.token) return info;
      } catch {
        // being written: read it again
      }
    }
    if (performance.now() > giveUpAt) throw new Error(`no ${file} after ${READY_LIMIT_MS / 1000} s\n${why()}`);
    await Bun.sleep(50);
  }
}

/** `crawlctl seed add --file` against the coordinator, as an SRE would seed the cluster. */
async function seed(ctx: PrepareContext, info: ClusterFile): Promise<void> {
  const t0 = performance.now();
  const p = Bun.spawn(
    [process.execPath, "run", "crawlctl", "seed", "add", "--file", ctx.seedsFile, "--coordinator", info.grpcAddress, "--token", info.token],
    { cwd: REPO_ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`crawlctl seed add exited ${code}: ${out}${err}`);
  ctx.log(`  crawlctl: ${out.trim().split("\n")[0]} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** The end of the launcher's output and of every role's log, for an error message (the scratch directory may not be kept). */
function logTails(dir: string, lines = 4): string {
  const tail = (file: string) => {
    try {
      return readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .slice(-lines)
        .map((l) => `    ${l.slice(0, 300)}`)
        .join("\n");
    } catch {
      return "    (no log)";
    }
  };
  const out = [`  cluster up:\n${tail(join(dir, "crawler.log"))}`];
  const logs = join(dir, "cluster", "logs");
  let names: string[] = [];
  try {
    names = readdirSync(logs)
      .filter((f) => f.endsWith(".log"))
      .sort();
  } catch {
    // not created yet
  }
  for (const name of names) {
    const t = tail(join(logs, name));
    if (t.trim()) out.push(`  ${name}:\n${t}`);
  }
  return out.join("\n");
}

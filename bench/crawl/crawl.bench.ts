/**
 * The crawl benchmark (issues 3 and 8): the test web with 2,000 hosts, 25 KB pages, ~30 links per page
 * and a 1 s per-host gap, crawled for 45 s (counted from the command's start) from the home pages of all
 * hosts, first by our embedded crawler, then by Crawlee's CheerioCrawler with the same gap and robots.txt
 * on, one after the other in the same run so the ratio is measured on the same box at the same time.
 * Reports pages/s (whole window and its second half, the steady state), crawler CPU (user + sys) per page,
 * peak RSS and politeness violations per crawler (and, for a single process, its CPU by thread name: main,
 * Worker, JITWorker, HeapHelper), a table and a final JSON line. Target (issue 8): ≥ 1,157
 * pages/s (100 million a day) with zero violations and ≤ 0.9 ms of CPU per page in the steady state, on a
 * 2-core box that also runs the test web. Exits 1 when our crawler broke politeness (a correctness
 * failure), 0 otherwise (throughput depends on the box; see the JSON).
 *
 * Between the two runs our local cluster (issues 4 and 8; --skip-cluster leaves it out): `bun run cluster
 * up` with N frontier and M fetch nodes on this box, seeded with `crawlctl seed add --file`, measured over
 * its whole process tree (cluster.ts); its row
 * sits between ours and Crawlee's, with its rate as a ratio of the embedded one (target ≥ 0.6). Exits 1 too
 * when the cluster broke politeness or left a process running.
 *
 *   bun bench/crawl/crawl.bench.ts [--seconds 45] [--hosts 2000] [--skip-crawlee]
 *     [--pages-per-host 1000] [--links 30] [--bytes 25000] [--gap-ms 1000]
 *     [--skip-ours] [--crawlee-storage disk|memory] [--crawlee-max-concurrency N] [--keep]
 *     [--profile DIR] [--crawl-arg ARG]...
 *     [--skip-cluster] [--frontiers 2] [--fetchers 2] [--no-deno] [--frontier-arg ARG]... [--direct]
 *
 * --direct (issue 26, item 1) crawls with no proxy: every host on a loopback address of its own, named in a
 * hosts file our crawlers read (--hosts-file, --allow-private-addresses), so the connections per host the
 * test web counts are what a host would see (direct.ts). Crawlee is left out then.
 * --profile DIR runs our crawler under `bun --cpu-prof` (writing DIR/*.cpuprofile) and prints where its CPU
 * went by component (profile.ts); sampling costs some throughput, so use it to find costs, not to score.
 * --crawl-arg passes one more argument to our `crawl` (repeatable), e.g. --crawl-arg --max-in-flight=1024.
 * --costs-out FILE writes the cluster's cost per page by role (and the embedded crawler's figures of the same
 * run) as JSON with the date and the command: the measured input of the fleet model (bench/fleet/).
 * --frontier-arg passes one more argument to every frontier node of the cluster (repeatable), e.g.
 * --frontier-arg --credit --frontier-arg 1024; --no-deno runs every fetch node on Bun.
 * --cluster-shapes 2+2,2+6,4+2 (issue 26, item 3) runs only the cluster, once per shape (frontier + fetch nodes),
 * back to back, and ends with a table comparing them (shapes.ts); each is first measured idle for
 * --idle-seconds (5 by default here, 0 otherwise), ready and not yet seeded (idle-cost.ts). --partitions P gives
 * the cluster P partitions; with --cluster-shapes every shape gets the first shape's default P unless given
 * (`cluster up` gives 8 per frontier node, at least 16), since a fleet keeps its P for life as it grows:
 * a shape with more frontier nodes and more partitions would measure the partition count as well.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterCrawler } from "./cluster.ts";
import { crawleeCacheDir, crawleeCrawler, installCrawlee } from "./crawlee.ts";
import { ourCrawler } from "./ours.ts";
import { clockTicksPerSecond } from "./proc.ts";
import { formatSummary, summarize } from "./profile.ts";
import { jsonLine, table } from "./report.ts";
import { measuredCosts } from "./costs-file.ts";
import { measureCrawl, type ClusterShape, type CrawlerUnderTest, type CrawlResult, type Scenario } from "./run.ts";
import { parseShapes, shapesTable } from "./shapes.ts";
import { clusterPartitions } from "../../scripts/cluster/partition-count.ts";

interface BenchArgs {
  scenario: Scenario;
  skipOurs: boolean;
  skipCrawlee: boolean;
  crawleeStorage: "disk" | "memory";
  crawleeMaxConcurrency?: number;
  keep: boolean;
  profileDir?: string;
  crawlArgs: string[];
  cluster: boolean;
  frontiers: number;
  fetchers: number;
  noDeno: boolean;
  frontierArgs: string[];
  costsOut?: string;
  /** Several cluster shapes, one run each (the embedded crawler and Crawlee then left out). */
  shapes?: ClusterShape[];
  idleSeconds?: number;
  partitions?: number;
}

function parseArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = {
    scenario: { hosts: 2000, pagesPerHost: 1000, linksPerPage: 30, pageBytes: 25_000, minGapMs: 1000, seconds: 45 },
    skipOurs: false,
    skipCrawlee: false,
    crawleeStorage: "disk",
    keep: false,
    crawlArgs: [],
    cluster: true,
    frontiers: 2,
    fetchers: 2,
    noDeno: false,
    frontierArgs: [],
  };
  const num = (i: number): number => {
    const v = Number(argv[i + 1]);
    if (!Number.isFinite(v) || v <= 0) throw new Error(`${argv[i]} needs a positive number`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--seconds") args.scenario.seconds = num(i++);
    else if (a === "--hosts") args.scenario.hosts = num(i++);
    else if (a === "--pages-per-host") args.scenario.pagesPerHost = num(i++);
    else if (a === "--links") args.scenario.linksPerPage = num(i++);
    else if (a === "--bytes") args.scenario.pageBytes = num(i++);
    else if (a === "--gap-ms") args.scenario.minGapMs = num(i++);
    else if (a === "--skip-ours") args.skipOurs = true;
    else if (a === "--skip-crawlee") args.skipCrawlee = true;
    else if (a === "--crawlee-max-concurrency") args.crawleeMaxConcurrency = num(i++);
    else if (a === "--crawlee-storage") {
      const v = argv[++i];
      if (v !== "disk" && v !== "memory") throw new Error("--crawlee-storage is disk or memory");
      args.crawleeStorage = v;
    } else if (a === "--keep") args.keep = true;
    else if (a === "--profile") args.profileDir = argv[++i];
    else if (a === "--crawl-arg") args.crawlArgs.push(argv[++i]!);
    else if (a === "--cluster")
      args.cluster = true; // the default; kept for older command lines
    else if (a === "--skip-cluster") args.cluster = false;
    else if (a === "--frontiers") args.frontiers = num(i++);
    else if (a === "--fetchers") args.fetchers = num(i++);
    else if (a === "--no-deno") args.noDeno = true;
    else if (a === "--frontier-arg") args.frontierArgs.push(argv[++i]!);
    else if (a === "--costs-out") args.costsOut = argv[++i];
    else if (a === "--cluster-shapes") args.shapes = parseShapes(argv[++i] ?? "");
    else if (a === "--partitions") args.partitions = num(i++);
    else if (a === "--direct") args.scenario.direct = true;
    else if (a === "--idle-seconds") {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new Error("--idle-seconds needs a number of seconds (0: none)");
      args.idleSeconds = v;
    } else throw new Error(`unknown argument ${a} (see the comment at the top of bench/crawl/crawl.bench.ts)`);
  }
  // Crawlee is run through the proxy only: it has no hosts file of its own.
  if (args.scenario.direct) args.skipCrawlee = true;
  if (args.shapes) {
    args.skipOurs = true;
    args.skipCrawlee = true;
    args.cluster = true;
    const first = clusterPartitions({ given: undefined, layout: undefined, frontiers: args.shapes[0]!.frontiers });
    if ("partitions" in first) args.partitions ??= first.partitions;
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`${line}\n`);
const crawlers: CrawlerUnderTest[] = [];
if (!args.skipOurs) {
  if (args.profileDir) mkdirSync(args.profileDir, { recursive: true });
  const bunFlags = args.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${args.profileDir}`] : [];
  crawlers.push({ ...ourCrawler({ bunFlags, crawlArgs: args.crawlArgs }), kind: "embedded" });
}
if (args.cluster) {
  for (const shape of args.shapes ?? [{ frontiers: args.frontiers, fetchers: args.fetchers }]) {
    crawlers.push(
      clusterCrawler({
        ...shape,
        upArgs: [...(args.noDeno ? ["--no-deno"] : []), ...(args.partitions ? ["--partitions", String(args.partitions)] : [])],
        frontierArgs: args.frontierArgs,
        idleSeconds: args.idleSeconds ?? (args.shapes ? 5 : 0),
      }),
    );
  }
}
if (!args.skipCrawlee) {
  const cache = crawleeCacheDir();
  const { version } = installCrawlee(cache, log);
  crawlers.push({
    ...crawleeCrawler(cache, version, { storage: args.crawleeStorage, maxConcurrency: args.crawleeMaxConcurrency }),
    kind: "peer",
  });
}

const root = mkdtempSync(join(tmpdir(), "crawl-bench-"));
const ticks = clockTicksPerSecond();
const results: CrawlResult[] = [];
try {
  for (const [i, crawler] of crawlers.entries()) {
    log(`running ${crawler.name} for ${args.scenario.seconds} s against ${args.scenario.hosts} hosts...`);
    const result = await measureCrawl(crawler, args.scenario, join(root, `${i}-${crawler.name.split(" ")[0]}`), ticks);
    log(`  ${result.pagesPerSecond.toFixed(1)} pages/s, ${result.violations} violations${args.keep ? ` (log: ${result.logFile})` : ""}`);
    results.push(result);
  }
} finally {
  if (args.keep) log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}

if (args.profileDir && !args.skipOurs) {
  const newest = readdirSync(args.profileDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(args.profileDir!, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest) process.stdout.write(`${formatSummary(summarize(JSON.parse(readFileSync(newest, "utf8"))), 15, 3)}(${newest})\n`);
}
process.stdout.write(table(args.scenario, results));
process.stdout.write(shapesTable(results));
if (args.costsOut) {
  writeFileSync(args.costsOut, `${JSON.stringify(measuredCosts(args.scenario, results, process.argv.slice(2)), null, 2)}\n`);
  log(`wrote ${args.costsOut}`);
}
process.stdout.write(jsonLine(args.scenario, results));
const broken = results.filter(
  (r) =>
    r.kind !== "peer" &&
    (r.violations + (r.ownPolicyViolations ?? 0) > 0 || (r.leftRunning?.length ?? 0) + (r.stillRunning?.length ?? 0) > 0),
);
process.exitCode = broken.length > 0 ? 1 : 0;

/**
 * The politeness run (issue 8): does any request reach a host sooner than the policy allows, as the server
 * sees it? A test web of 300 hosts with trouble in it (25 KB pages, 30 links; 5 % of hosts answering
 * 500/429 on some pages, 2 % slow by 3 s, 3 % with a robots.txt answering 503: tests/testweb/faults.ts) is
 * crawled for 45 s by `crawl` with a 1 s gap, by `crawl` killed with SIGKILL half-way and started again
 * with the same command, and by the local cluster (2 frontier + 2 fetch nodes). Each log is judged by the
 * test web's strict checker (tolerance 0; gap ≥ max(1 s, 10 × the fetch's duration, Crawl-delay,
 * Retry-After) from the end of the previous response to the arrival of the next request, robots.txt
 * included). A small web is where dispatch is punctual, so a gap computed a little short shows.
 *
 *   bun bench/crawl/politeness.bench.ts [--seconds 45] [--hosts 300] [--gap-ms 1000]
 *     [--only embedded|kill|cluster]... [--frontiers 2] [--fetchers 2] [--keep]
 *
 * Prints one line per run (requests, short gaps, the largest shortfall, other violations) and a final JSON
 * line; exits 1 when any run broke the policy. Each line also says how often the test web itself (this
 * process) was stalled: its log can only be as exact as its own clock readings, and a stall between
 * writing a response and reading the clock logs that response's end late (on a box with far more runnable
 * work than cores, stalls of tens of milliseconds are common; then short gaps in the log need not be the
 * crawler's); the line also counts the short gaps that follow a response the test web was stalled in.
 * The crawler runs at normal priority, unlike in the e2e tests: on a busy box a crawler kept waiting for a
 * core is late for every host, which would hide a gap computed a little short (measure on a quiet box).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logClock, startTestWeb, type FaultShares, type TestWeb, type Violation } from "../../tests/testweb/index.ts";
import { clusterCrawler } from "./cluster.ts";
import { clockTicksPerSecond } from "./proc.ts";
import { measureCrawl, type Scenario } from "./run.ts";

const MAIN = new URL("../../embedded/main.ts", import.meta.url).pathname;
const FAULTS: FaultShares = { failing: 0.05, slow: 0.02, slowMs: 3000, robots503: 0.03 };
const TIMING = new Set(["gap", "crawl-delay", "retry-after"]);
const STALL_MS = 5;

/** Watches this process's event loop (the test web's) for stalls while `run` runs. */
async function watchingStalls(run: () => Promise<Outcome>): Promise<Outcome> {
  const stalls: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const t = performance.now();
    if (t - last > 1 + STALL_MS) stalls.push(t - last - 1);
    last = t;
  }, 1);
  try {
    const outcome = await run();
    return { ...outcome, judgeStalls: { count: stalls.length, longestMs: Math.max(0, ...stalls) } };
  } finally {
    clearInterval(timer);
  }
}

type RunKind = "embedded" | "kill" | "cluster";

interface Args {
  scenario: Scenario;
  only: RunKind[];
  frontiers: number;
  fetchers: number;
  keep: boolean;
}

interface Outcome {
  run: string;
  /** The test web's event loop late by more than STALL_MS: how many times, and the longest, in ms. */
  judgeStalls?: { count: number; longestMs: number };
  requests: number;
  shortGaps: number;
  maxShortByMs: number;
  hostsWithShortGaps: number;
  /**
   * Short gaps after a response that took the test web more than STALL_MS to write although its host
   * answers at once (a page of a host that is not slow): the judge was stalled in the middle of it, so its
   * end (and a 10 x duration rule on it) was logged late.
   */
  afterJudgeStall?: number;
  otherViolations: Record<string, number>;
  examples: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    scenario: { hosts: 300, pagesPerHost: 1000, linksPerPage: 30, pageBytes: 25_000, minGapMs: 1000, seconds: 45, faults: FAULTS },
    only: [],
    frontiers: 2,
    fetchers: 2,
    keep: false,
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
    else if (a === "--gap-ms") args.scenario.minGapMs = num(i++);
    else if (a === "--frontiers") args.frontiers = num(i++);
    else if (a === "--fetchers") args.fetchers = num(i++);
    else if (a === "--keep") args.keep = true;
    else if (a === "--only") {
      const v = argv[++i];
      if (v !== "embedded" && v !== "kill" && v !== "cluster") throw new Error("--only is embedded, kill or cluster");
      args.only.push(v);
    } else throw new Error(`unknown argument ${a} (see the comment at the top of bench/crawl/politeness.bench.ts)`);
  }
  if (args.only.length === 0) args.only = ["embedded", "kill", "cluster"];
  return args;
}

/** Judges a log with the crawler's own rule: gap ≥ max(min gap, 10 × fetch time, Crawl-delay, Retry-After). */
function judge(run: string, found: readonly Violation[], requests: number, slowHosts: ReadonlySet<string>): Outcome {
  const timing = found.filter((v) => TIMING.has(v.kind));
  const stalled = timing.filter((v) => v.previous && !slowHosts.has(v.host) && v.previous.endedAt - v.previous.startedAt > STALL_MS);
  const other: Record<string, number> = {};
  for (const v of found) if (!TIMING.has(v.kind)) other[v.kind] = (other[v.kind] ?? 0) + 1;
  return {
    run,
    requests,
    shortGaps: timing.length,
    maxShortByMs: Math.max(0, ...timing.map((v) => v.shortByMs ?? 0)),
    hostsWithShortGaps: new Set(timing.map((v) => v.host)).size,
    afterJudgeStall: stalled.length,
    otherViolations: other,
    examples: found.slice(0, 3).map((v) => v.message),
  };
}

/** `crawl` against a fresh troubled web for the window; with `killAt`, SIGKILL then the same command again. */
async function embeddedRun(args: Args, dir: string, killAtMs: number | undefined): Promise<Outcome> {
  const { scenario } = args;
  const web = await startTestWeb({ ...scenario, faults: scenario.faults });
  try {
    const seeds = join(dir, "seeds.txt");
    writeFileSync(seeds, web.hosts.map((h) => `${web.url(h)}\n`).join(""));
    const argv = [
      MAIN,
      "--seeds",
      seeds,
      "--out",
      join(dir, "out"),
      "--proxy",
      web.proxyUrl,
      "--min-gap",
      `${scenario.minGapMs}ms`,
      "--max-duration",
      `${scenario.seconds + 60}s`,
    ];
    const spawn = (n: number) =>
      Bun.spawn([process.execPath, ...argv], {
        stdin: "ignore",
        stdout: Bun.file(join(dir, `crawl-${n}.log`)),
        stderr: Bun.file(join(dir, `crawl-${n}.err`)),
      });
    let proc = spawn(1);
    const firstAt = await firstRequest(web, proc);
    const windowEnd = firstAt + scenario.seconds * 1000;
    const times: Record<string, number> = { firstAt };
    if (killAtMs !== undefined) {
      await Bun.sleep(Math.max(0, firstAt + killAtMs - logClock()));
      times.killAt = logClock();
      proc.kill("SIGKILL");
      await proc.exited;
      times.restartAt = logClock();
      proc = spawn(2);
    }
    await Bun.sleep(Math.max(0, windowEnd - logClock()));
    proc.kill("SIGTERM");
    const stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(30_000).then(() => false)]);
    if (!stopped) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    const name = killAtMs === undefined ? "crawl" : `crawl, kill -9 at ${killAtMs / 1000} s + resume`;
    const found = web.violations({ minGapMs: scenario.minGapMs, gapMultiplier: 10 });
    writeFileSync(join(dir, "violations.json"), JSON.stringify({ times, found }, null, 1));
    const slowHosts = new Set([...web.faulty].filter(([, kind]) => kind === "slow").map(([host]) => host));
    return judge(name, found, web.requests.length, slowHosts);
  } finally {
    await web.close();
  }
}

async function firstRequest(web: TestWeb, proc: Bun.Subprocess): Promise<number> {
  const giveUpAt = Date.now() + 120_000;
  while (web.requests.length === 0) {
    if (proc.exitCode !== null || Date.now() > giveUpAt) throw new Error(`the crawler made no request (exit ${proc.exitCode})`);
    await Bun.sleep(10);
  }
  return web.requests[0]!.startedAt;
}

async function clusterRun(args: Args, dir: string): Promise<Outcome> {
  const crawler = clusterCrawler({ frontiers: args.frontiers, fetchers: args.fetchers });
  const r = await measureCrawl(crawler, args.scenario, dir, clockTicksPerSecond());
  const other = { ...r.violationsByKind };
  for (const k of TIMING) delete other[k];
  return {
    run: crawler.name,
    requests: r.requests,
    shortGaps: r.ownPolicyViolations ?? 0,
    maxShortByMs: r.maxShortByMs,
    hostsWithShortGaps: Number.NaN,
    otherViolations: other,
    examples: r.violationExamples,
  };
}

const args = parseArgs(process.argv.slice(2));
const root = mkdtempSync(join(tmpdir(), "politeness-bench-"));
const outcomes: Outcome[] = [];
const log = (line: string) => process.stderr.write(`${line}\n`);
try {
  for (const kind of args.only) {
    const dir = join(root, kind);
    mkdirSync(dir, { recursive: true });
    log(`running ${kind} for ${args.scenario.seconds} s against ${args.scenario.hosts} troubled hosts...`);
    const o = await watchingStalls(() =>
      kind === "cluster" ? clusterRun(args, dir) : embeddedRun(args, dir, kind === "kill" ? (args.scenario.seconds * 1000) / 2 : undefined),
    );
    outcomes.push(o);
    log(`  ${o.run}: ${o.shortGaps} short gaps in ${o.requests} requests (max ${o.maxShortByMs.toFixed(2)} ms short)`);
  }
} finally {
  if (args.keep) log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
for (const o of outcomes) {
  const other =
    Object.entries(o.otherViolations)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  process.stdout.write(
    `${o.run.padEnd(36)} ${String(o.requests).padStart(6)} requests  ${String(o.shortGaps).padStart(4)} short gaps` +
      `${Number.isNaN(o.hostsWithShortGaps) ? "" : ` on ${o.hostsWithShortGaps} hosts`}` +
      `${o.afterJudgeStall ? ` (${o.afterJudgeStall} after a response the test web was stalled in)` : ""}  max ${o.maxShortByMs.toFixed(2)} ms short  other violations: ${other}` +
      `  (test web stalled > ${STALL_MS} ms ${o.judgeStalls?.count ?? 0} times, longest ${(o.judgeStalls?.longestMs ?? 0).toFixed(0)} ms)\n`,
  );
  for (const e of o.examples) process.stdout.write(`    ${e}\n`);
}
process.stdout.write(`${JSON.stringify({ bench: "politeness", scenario: args.scenario, outcomes })}\n`);
process.exitCode = outcomes.some((o) => o.shortGaps > 0 || Object.keys(o.otherViolations).length > 0) ? 1 : 0;

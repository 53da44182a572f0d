/**
 * One measured crawl: a fresh test web in this process, the crawler under test as a child process (so
 * their CPU is apart and each can be read from /proc), a window of `seconds` that opens when the command
 * is spawned (start-up, seeding and the robots.txt burst count, as a user's run would), then SIGTERM. The
 * window's second half is also reported on its own, as the steady state. Pages are counted from the test
 * web's log, not from what the crawler says, so every crawler is counted the same way; politeness is
 * judged from the same log, over the whole run including the shutdown.
 *
 * A crawler that is many processes (the local cluster) sets `processTree`: CPU, bytes written and peak RSS
 * are then summed over every descendant of the child (tree.ts), with a per-process breakdown, and after
 * the stop every process the tree ever had is checked gone by pid (anything left is killed and reported).
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  startTestWeb,
  type FaultShares,
  type PolitenessPolicy,
  type RequestRecord,
  type TestWeb,
  type Violation,
} from "../../tests/testweb/index.ts";
import { cpuSeconds, ioBytes, machineBusySeconds, mainThreadCpuSeconds, memory, threadCpuSeconds } from "./proc.ts";
import { logClock as webNow } from "../../tests/testweb/clock.ts";
import { groupMembers, isAlive, ProcessTree, type ProcessUsage, type TreeProcess } from "./tree.ts";
import type { ServerReport } from "./roles.ts";
import { type HostAffinity, hostAffinity, portOwners } from "./affinity.ts";
import { directAddress, directHostsFile } from "./direct.ts";
import { RAMP_SECONDS, type Ramp, rampOf } from "./ramp.ts";

export interface Scenario {
  hosts: number;
  pagesPerHost: number;
  linksPerPage: number;
  pageBytes: number;
  /** The per-host gap every crawler is configured with, and the rule its log is checked against. */
  minGapMs: number;
  seconds: number;
  /** Normal hosts that misbehave (slow, failing, robots.txt 503...); none by default. */
  faults?: FaultShares;
  /** No proxy: each host on a loopback address of its own, resolved from a hosts file (direct.ts). */
  direct?: boolean;
}

export interface LaunchContext {
  /** The test web as a forward proxy; not to be used when `hostsFile` is given. */
  proxyUrl: string;
  /** With `scenario.direct`: the hosts file naming each host's own address (direct.ts); use it instead of the proxy. */
  hostsFile?: string;
  /** One home page per line, `http://siteN.test/` for every host (`http://siteN.test:PORT/` when direct). */
  seedsFile: string;
  /** A scratch directory of the crawler's own (output, storage). */
  dir: string;
  scenario: Scenario;
}

/** Which row a crawler is: our embedded crawler, our local cluster, or the peer we compare with (Crawlee). */
export type CrawlerKind = "embedded" | "cluster" | "peer";

export interface PrepareContext extends LaunchContext {
  /** Pid of the spawned child. */
  pid: number;
  /** True once the child has exited. */
  exited(): boolean;
  log(line: string): void;
}

export interface CrawlerUnderTest {
  /** Row label, e.g. `ours (bun)`. */
  name: string;
  /** Default "peer". */
  kind?: CrawlerKind;
  /** A cluster's node counts (the shapes comparison groups its rows by them). */
  shape?: ClusterShape;
  launch(ctx: LaunchContext): { cmd: string[]; env?: Record<string, string>; cwd?: string };
  /** A stricter rule the crawler claims to follow (ours: gap ≥ 10 × fetch time too), checked besides the scenario's. */
  ownPolicy?: Omit<PolitenessPolicy, "minGapMs">;
  /**
   * Measure the child's whole process tree (summed, with a per-process breakdown), start it in a process
   * group of its own, and check after the stop that every process of the tree has exited.
   */
  processTree?: boolean;
  /**
   * Runs after the spawn and before the wait for the first request (which has its own limit): e.g. wait
   * until a cluster is ready and seed it. Throwing fails the run (the child is stopped).
   */
  prepare?(ctx: PrepareContext): Promise<void>;
  /** How long the child may take to exit after SIGTERM before it is killed. Default 20 s. */
  stopGraceMs?: number;
  /**
   * Reads the crawler's own servers (the cluster's Redis and NATS) at three points: right after `prepare`
   * (ready and seeded), at the window's middle and at its end. `observed` runs after the window, before the
   * stop, and returns what was read.
   */
  observe?(point: "ready" | "mid" | "end"): Promise<void>;
  observed?(): Promise<Omit<ServerReport, "pages"> | undefined>;
}

/** How many frontier and fetch nodes a local cluster runs. */
export interface ClusterShape {
  frontiers: number;
  fetchers: number;
}

export interface CrawlResult {
  name: string;
  /** The run was `scenario.direct` (no proxy; direct.ts). */
  direct?: true;
  kind: CrawlerKind;
  shape?: ClusterShape;
  seconds: number;
  /** Completed 200 responses to page requests (robots.txt not counted) started inside the window. */
  pages: number;
  /** Pages over the whole window, which opens at the spawn. */
  pagesPerSecond: number;
  /** The window's second half alone (the steady state, after start-up and the robots.txt burst). */
  steady: { pages: number; pagesPerSecond: number; cpuSeconds: number; cpuMsPerPage: number };
  /** CPU of the crawler's main thread (tid = pid) inside the window; for Bun the JavaScript event loop. */
  mainThreadCpuSeconds?: number;
  /** CPU of the crawler's threads inside the window, by thread name (proc.ts `threadCpuSeconds`); one process only. */
  threadCpuSeconds?: Record<string, number>;
  /** Distinct pages among them (host + path, query ignored: on the test web a query never changes a page). */
  uniquePages: number;
  robotsRequests: number;
  /** Page requests in the window that did not end in a completed 200. */
  otherResponses: number;
  /** Crawler process CPU (user + sys, every thread) inside the window. */
  cpuSeconds: number;
  cpuMsPerPage: number;
  /** Highest resident memory of the crawler process (VmHWM), start-up included. */
  peakRssBytes: number;
  /** Violations of the scenario rule (the gap, one request per host at a time, robots.txt). */
  violations: number;
  violationsByKind: Record<string, number>;
  /** Up to three violations, to show what went wrong. */
  violationExamples: string[];
  /** Violations of `ownPolicy`, when the crawler has one. */
  ownPolicyViolations?: number;
  /** Every request the test web logged, robots.txt and shutdown included (what the violations are counted over). */
  requests: number;
  /** The largest shortfall of any gap, Crawl-delay or Retry-After violation (of `ownPolicy` when there is one), ms. */
  maxShortByMs: number;
  /** Bytes the crawler wrote (files, WAL, sockets: /proc/<pid>/io wchar) inside the window. */
  writtenBytes: number;
  /** CPU of this process (the test web) inside the window. */
  testWebCpuSeconds: number;
  /**
   * CPU other processes used on the box inside the window (all cores busy, less the crawler and this
   * process). Near zero on a quiet box; large means the run competed with other work.
   */
  otherLoadCpuSeconds: number;
  /**
   * How long each host lay idle between two of its requests in the steady half, as the test web saw it:
   * from the end of a response to the arrival of the host's next request, median and 90th percentile, ms.
   * The policy's floor is the gap (1 s here, or 10 x the fetch's duration when that is longer); what lies
   * above it is the crawler's own overhead per host, which caps the rate when the CPU does not.
   */
  hostIdleMs: { p50: number; p90: number; samples: number };
  /**
   * The window in bins of `BIN_SECONDS` from the spawn: pages and robots.txt requests started in each, and
   * the crawler's CPU seconds spent in each. Shows how long start-up and the robots.txt burst hold the rate.
   */
  bins: { seconds: number; pages: number[]; robots: number[]; cpuSeconds: number[] };
  /** The first seconds from the spawn, second by second (ramp.ts). */
  ramp: Ramp;
  /** From spawning the crawler to the first request the test web saw. */
  startupSeconds: number;
  /** From SIGTERM to exit. */
  stopSeconds: number;
  exitCode: number | null;
  logFile: string;
  /** With `processTree`: every process of the tree, its CPU and bytes written inside the window, its peak RSS. */
  processes?: ProcessUsage[];
  /** With `processTree`: the highest sum of the tree's current RSS seen in one sample (`peakRssBytes` sums each one's own peak). */
  peakConcurrentRssBytes?: number;
  /** With `processTree`: from spawning to the end of `prepare` (cluster ready and seeded). */
  prepareSeconds?: number;
  /**
   * With `processTree`: processes of the tree still running when the stop grace ran out (then killed by
   * pid), and any still running after that. Empty when everything stopped on SIGTERM by itself.
   */
  leftRunning?: string[];
  /** With `processTree`: processes still running after everything (must be empty: checked by pid and process group). */
  stillRunning?: string[];
  /** TCP connections the test web accepted from the spawn to the window's end. */
  connections: number;
  /** Distinct hosts the test web saw a request for in the window. */
  hostsRequested: number;
  /**
   * Per host, the distinct TCP connections to the test web its requests in the window came on, averaged over
   * the hosts. Direct (`scenario.direct`), a connection goes to one host's own address, so this is what a
   * host sees: 1 when the crawler keeps one kept-alive connection to it, more when its requests are spread
   * over fetchers or connections are closed and opened again. Through the proxy it counts the proxy
   * connections that carried the host's requests, which the crawler pools over all hosts.
   */
  connectionsPerHost: number;
  /**
   * Per host, the distinct crawler processes its requests in the window came from (the client port of each
   * request's connection to the test web, placed by /proc at the window's end): 1 when a host stays with
   * one fetcher.
   */
  hostAffinity: HostAffinity;
  /** With `observe`: the servers' figures, with the pages they are divided by. */
  servers?: ServerReport;
}

const STARTUP_LIMIT_MS = 120_000;
const STOP_GRACE_MS = 20_000;
const SAMPLE_MS = 250;
/** Width of the timeline bins (`CrawlResult.bins`). */
const BIN_SECONDS = 5;

export async function measureCrawl(crawler: CrawlerUnderTest, scenario: Scenario, dir: string, ticks: number): Promise<CrawlResult> {
  mkdirSync(dir, { recursive: true });
  const web = await startTestWeb({
    hosts: scenario.hosts,
    pagesPerHost: scenario.pagesPerHost,
    linksPerPage: scenario.linksPerPage,
    pageBytes: scenario.pageBytes,
    faults: scenario.faults,
    ...(scenario.direct ? { addresses: Array.from({ length: scenario.hosts }, (_, i) => directAddress(i)), portInLinks: true } : {}),
  });
  let child: Bun.Subprocess | undefined; // killed on the way out if anything below throws
  let tree: ProcessTree | undefined; // likewise, the whole tree (SIGTERM, then SIGKILL by pid)
  let treeStopped = false;
  let onSignal: ((signal: NodeJS.Signals) => void) | undefined;
  let treeSampler: ReturnType<typeof setInterval> | undefined;
  try {
    const seedsFile = join(dir, "seeds.txt");
    writeFileSync(seedsFile, web.hosts.map((h) => `${web.url(h)}\n`).join(""));
    let hostsFile: string | undefined;
    if (scenario.direct) {
      hostsFile = join(dir, "hosts");
      writeFileSync(hostsFile, directHostsFile(web.hosts));
    }
    const launchContext: LaunchContext = { proxyUrl: web.proxyUrl, ...(hostsFile ? { hostsFile } : {}), seedsFile, dir, scenario };
    const spec = crawler.launch(launchContext);
    const logFile = join(dir, "crawler.log");
    const logFd = openSync(logFile, "w");
    const spawnedAt = performance.now();
    // The window opens here, on the test web's clock (its log's times), and its CPU readings start from zero.
    const windowStart = webNow();
    const busyStart = machineBusySeconds(ticks);
    const webCpuStart = process.cpuUsage();
    const proc = Bun.spawn(spec.cmd, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdin: "ignore",
      stdout: logFd,
      stderr: logFd,
      detached: crawler.processTree === true,
    });
    child = proc;
    closeSync(logFd);
    const exited = () => proc.exitCode !== null || proc.signalCode !== null;
    const processTree = crawler.processTree ? new ProcessTree(proc.pid, ticks) : undefined;
    tree = processTree;
    processTree?.openWindow();
    if (processTree) {
      // The tree has a process group of its own, so a Ctrl-C here does not reach it: stop it ourselves.
      onSignal = (signal) => {
        process.stderr.write(`${signal}: stopping ${crawler.name}...\n`);
        treeStopped = true;
        void stopTree(proc, processTree, 30_000).finally(() => process.exit(130));
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    }
    // The tree is sampled from the spawn on, so start-up peaks count and every process is known by pid.
    treeSampler = processTree ? setInterval(() => processTree.sample(), SAMPLE_MS) : undefined;

    let prepareSeconds: number | undefined;
    if (crawler.prepare) {
      await crawler.prepare({
        ...launchContext,
        pid: proc.pid,
        exited,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      prepareSeconds = (performance.now() - spawnedAt) / 1000;
    }
    const readyAt = webNow();
    await crawler.observe?.("ready");
    const firstAt = await firstRequest(web, exited);
    if (firstAt === undefined) throw new Error(`${crawler.name} made no request (exit ${proc.exitCode}); log:\n${tail(logFile)}`);
    const startupSeconds = (firstAt - windowStart) / 1000;
    let peakRssBytes = memory(proc.pid)?.peakRssBytes ?? 0;
    const sampler = processTree
      ? undefined
      : setInterval(() => {
          peakRssBytes = Math.max(peakRssBytes, memory(proc.pid)?.peakRssBytes ?? 0);
        }, SAMPLE_MS);
    const windowEnd = windowStart + scenario.seconds * 1000;
    const windowMid = windowStart + (scenario.seconds * 1000) / 2;
    const cpuNow = (): number | undefined => (processTree ? processTree.cpuSecondsSoFar() : cpuSeconds(proc.pid, ticks));
    // The crawler's CPU at the end of every bin and at the window's middle (the steady half's start), read in
    // time order.
    const binEnds = Array.from(
      { length: Math.floor(scenario.seconds / BIN_SECONDS) },
      (_, b) => windowStart + (b + 1) * BIN_SECONDS * 1000,
    );
    const cpuAtBinEnd: number[] = [];
    // And at the end of each of the first seconds (the ramp), when the first request came before it ended.
    const rampEnds = Array.from({ length: Math.min(RAMP_SECONDS, scenario.seconds) }, (_, s) => windowStart + (s + 1) * 1000);
    const cpuAtRampEnd: number[] = [];
    let cpuMid = 0;
    const readings = [
      ...binEnds.map((at) => ({ at, kind: "bin" as const })),
      ...rampEnds.map((at) => ({ at, kind: "ramp" as const })),
      { at: windowMid, kind: "mid" as const },
    ].sort((x, y) => x.at - y.at);
    for (const { at, kind } of readings) {
      await Bun.sleep(Math.max(0, at - webNow()));
      const cpu = cpuNow() ?? cpuAtBinEnd.at(-1) ?? 0;
      if (kind === "mid") {
        cpuMid = cpu;
        processTree?.markMiddle();
        await crawler.observe?.("mid");
      } else if (kind === "bin") cpuAtBinEnd.push(cpu);
      else cpuAtRampEnd.push(cpu);
    }
    await Bun.sleep(Math.max(0, windowEnd - webNow()));
    const connections = web.connections;
    const owners = portOwners(web.port, processTree ? processTree.processes().map((p) => p.pid) : [proc.pid]);
    const observing = crawler.observe?.("end");
    clearInterval(sampler);
    clearInterval(treeSampler);
    treeSampler = undefined;
    const cpuEnd = cpuNow();
    const mainThreadEnd = processTree ? undefined : mainThreadCpuSeconds(proc.pid, ticks);
    const threadsEnd = processTree ? undefined : threadCpuSeconds(proc.pid, ticks);
    const writtenEnd = ioBytes(proc.pid)?.written ?? 0;
    processTree?.closeWindow();
    await observing;
    const observed = await crawler.observed?.();
    const busy = machineBusySeconds(ticks) - busyStart;
    peakRssBytes = Math.max(peakRssBytes, memory(proc.pid)?.peakRssBytes ?? 0);
    const webCpu = process.cpuUsage(webCpuStart);
    if (cpuEnd === undefined) throw new Error(`${crawler.name} exited (code ${proc.exitCode}) inside the window; log:\n${tail(logFile)}`);
    const usage = processTree?.usage();
    if (processTree) {
      const dead = processTree.processes().filter((p) => !isAlive(p) && p.pid !== proc.pid);
      if (dead.length > 0)
        process.stderr.write(`  note: ${dead.map((p) => `${p.name} [${p.pid}]`).join(", ")} exited before the window closed\n`);
    }

    const stopAt = performance.now();
    const graceMs = crawler.stopGraceMs ?? STOP_GRACE_MS;
    let stopped: boolean;
    let leftRunning: string[] | undefined;
    let stillRunning: string[] | undefined;
    if (processTree) {
      treeStopped = true;
      ({ stopped, leftRunning, stillRunning } = await stopTree(proc, processTree, graceMs));
    } else {
      proc.kill("SIGTERM");
      stopped = await Promise.race([proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)]);
      if (!stopped) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    }
    const stopSeconds = (performance.now() - stopAt) / 1000;

    const counts = countWindow(web.requests, windowStart, windowEnd);
    const steadyPages = countWindow(web.requests, windowMid, windowEnd).pages;
    const hostIdleMs = hostIdle(web.requests, windowMid, windowEnd);
    const binCounts = binEnds.map((end) => countWindow(web.requests, end - BIN_SECONDS * 1000, end));
    const steadyCpu = cpuEnd - cpuMid;
    const found = web.violations({ minGapMs: scenario.minGapMs, gapMultiplier: 0 });
    const ownFound = crawler.ownPolicy ? web.violations({ minGapMs: scenario.minGapMs, ...crawler.ownPolicy }) : undefined;
    const own = ownFound?.length;
    const cpu = usage ? usage.reduce((sum, p) => sum + p.cpuSeconds, 0) : cpuEnd;
    const written = usage ? usage.reduce((sum, p) => sum + p.writtenBytes, 0) : writtenEnd;
    if (usage) peakRssBytes = usage.reduce((sum, p) => sum + p.peakRssBytes, 0);
    const webCpuSeconds = (webCpu.user + webCpu.system) / 1e6;
    const servers: ServerReport | undefined = observed
      ? {
          ...observed,
          pages: { fromReady: countWindow(web.requests, Math.max(readyAt, windowStart), windowEnd).pages, steady: steadyPages },
        }
      : undefined;
    return {
      name: crawler.name,
      kind: crawler.kind ?? "peer",
      ...(scenario.direct ? { direct: true as const } : {}),
      ...(crawler.shape ? { shape: crawler.shape } : {}),
      seconds: scenario.seconds,
      ...counts,
      pagesPerSecond: counts.pages / scenario.seconds,
      steady: {
        pages: steadyPages,
        pagesPerSecond: steadyPages / (scenario.seconds / 2),
        cpuSeconds: steadyCpu,
        cpuMsPerPage: steadyPages > 0 ? (steadyCpu * 1000) / steadyPages : 0,
      },
      mainThreadCpuSeconds: mainThreadEnd,
      ...(threadsEnd ? { threadCpuSeconds: threadsEnd } : {}),
      cpuSeconds: cpu,
      cpuMsPerPage: counts.pages > 0 ? (cpu * 1000) / counts.pages : 0,
      peakRssBytes,
      violations: found.length,
      violationsByKind: byKind(found),
      violationExamples: found.slice(0, 3).map((v) => `${v.kind} ${v.host}${v.path}: ${v.message}`),
      ownPolicyViolations: own,
      requests: web.requests.length,
      maxShortByMs: Math.max(0, ...(ownFound ?? found).map((v) => v.shortByMs ?? 0)),
      writtenBytes: written,
      testWebCpuSeconds: webCpuSeconds,
      otherLoadCpuSeconds: Math.max(0, busy - cpu - webCpuSeconds),
      startupSeconds,
      hostIdleMs,
      bins: {
        seconds: BIN_SECONDS,
        pages: binCounts.map((c) => c.pages),
        robots: binCounts.map((c) => c.robotsRequests),
        cpuSeconds: cpuAtBinEnd.map((c, i) => c - (i === 0 ? 0 : cpuAtBinEnd[i - 1]!)),
      },
      ramp: rampOf(
        web.requests,
        windowStart,
        cpuAtRampEnd.map((c, i) => c - (i === 0 ? 0 : cpuAtRampEnd[i - 1]!)),
      ),
      stopSeconds,
      connections,
      ...hostConnections(web.requests, windowStart, windowEnd),
      hostAffinity: hostAffinity(web.requests, windowStart, windowEnd, owners),
      ...(servers ? { servers } : {}),
      exitCode: stopped ? proc.exitCode : null,
      logFile,
      ...(processTree
        ? { processes: usage, peakConcurrentRssBytes: processTree.peakConcurrentRssBytes, prepareSeconds, leftRunning, stillRunning }
        : {}),
    };
  } finally {
    clearInterval(treeSampler);
    if (onSignal) {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    if (child && tree && !treeStopped) await stopTree(child, tree, 30_000);
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await web.close();
  }
}

function running(proc: Bun.Subprocess): boolean {
  return proc.exitCode === null && proc.signalCode === null;
}

/**
 * Stops a process tree: SIGTERM to its root (the launcher, which stops its children itself, in order),
 * then waits up to `graceMs` for the root and every process the tree ever had, by pid (an orphan is no
 * longer a descendant, but still ours). Whatever still runs then is killed (SIGKILL by pid), and at the
 * end the process group is checked too.
 */
async function stopTree(
  proc: Bun.Subprocess,
  tree: ProcessTree,
  graceMs: number,
): Promise<{ stopped: boolean; leftRunning: string[]; stillRunning: string[] }> {
  tree.sample(); // descendants born since the last sample
  if (running(proc)) proc.kill("SIGTERM");
  const allGone = () => !running(proc) && tree.processes().every((p) => !isAlive(p));
  const stopped = await waitUntil(allGone, graceMs);
  const leftRunning = tree
    .processes()
    .filter((p) => isAlive(p))
    .map((p) => `${p.name} [${p.pid}]`);
  if (!stopped) {
    tree.sample();
    if (running(proc)) proc.kill("SIGKILL");
    for (const p of tree.processes()) if (isAlive(p)) killPid(p);
    await waitUntil(allGone, 5_000);
  }
  await proc.exited;
  return { stopped, leftRunning, stillRunning: leftovers(proc.pid, tree) };
}

/** Polls `done` every 100 ms; true once it holds, false after `timeoutMs`. */
async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (done()) return true;
    if (performance.now() > deadline) return false;
    await Bun.sleep(100);
  }
}

function killPid(p: TreeProcess): void {
  try {
    process.kill(p.pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

/**
 * What still runs of a stopped tree: every process it ever had (by pid and start time) and anything else
 * in its process group (the launcher was started with its own, so the group id is its pid). Killed if found.
 */
function leftovers(rootPid: number, tree: ProcessTree): string[] {
  const left = [
    ...tree.processes().filter((p) => isAlive(p)),
    ...groupMembers(rootPid).filter((g) => !tree.processes().some((p) => p.pid === g.pid)),
  ];
  for (const p of left) killPid(p);
  return left.map((p) => `${p.name} [${p.pid}]`);
}

/** Resolves with the arrival time of the first request the web sees, or undefined if the crawler died first. */
async function firstRequest(web: TestWeb, exited: () => boolean): Promise<number | undefined> {
  const giveUpAt = performance.now() + STARTUP_LIMIT_MS;
  while (web.requests.length === 0) {
    if (exited() || performance.now() > giveUpAt) return undefined;
    await Bun.sleep(10);
  }
  return web.requests[0]!.startedAt;
}

function countWindow(log: readonly RequestRecord[], from: number, to: number) {
  let pages = 0;
  let robotsRequests = 0;
  let otherResponses = 0;
  const unique = new Set<string>();
  for (const r of log) {
    if (r.startedAt < from || r.startedAt >= to) continue;
    if (r.path === "/robots.txt") {
      robotsRequests++;
      continue;
    }
    if (r.status === 200 && r.completed) {
      pages++;
      const q = r.path.search(/[?#]/);
      unique.add(`${r.host}${q < 0 ? r.path : r.path.slice(0, q)}`);
    } else otherResponses++;
  }
  return { pages, uniquePages: unique.size, robotsRequests, otherResponses };
}

/** Per host, from the end of each response to the host's next request, for next requests inside [from, to). */
function hostIdle(log: readonly RequestRecord[], from: number, to: number): { p50: number; p90: number; samples: number } {
  const lastEnd = new Map<string, number>();
  const gaps: number[] = [];
  for (const r of log) {
    const end = lastEnd.get(r.host);
    if (end !== undefined && Number.isFinite(end) && r.startedAt >= from && r.startedAt < to) gaps.push(r.startedAt - end);
    lastEnd.set(r.host, r.endedAt);
  }
  gaps.sort((a, b) => a - b);
  const at = (q: number) => (gaps.length === 0 ? 0 : Math.round(gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]!));
  return { p50: at(0.5), p90: at(0.9), samples: gaps.length };
}

function hostConnections(log: readonly RequestRecord[], from: number, to: number): { hostsRequested: number; connectionsPerHost: number } {
  const byHost = new Map<string, Set<number>>();
  for (const r of log) {
    if (r.startedAt < from || r.startedAt >= to) continue;
    let conns = byHost.get(r.host);
    if (!conns) byHost.set(r.host, (conns = new Set()));
    if (r.connection !== undefined) conns.add(r.connection);
  }
  let sum = 0;
  for (const conns of byHost.values()) sum += conns.size;
  return { hostsRequested: byHost.size, connectionsPerHost: byHost.size > 0 ? sum / byHost.size : 0 };
}

function byKind(violations: readonly Violation[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of violations) out[v.kind] = (out[v.kind] ?? 0) + 1;
  return out;
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

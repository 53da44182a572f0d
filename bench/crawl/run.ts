/**
 * One measured crawl: a fresh test web in this process, the crawler under test as a child process (so
 * their CPU is apart and each can be read from /proc), a window of `seconds` that opens at the first
 * request the test web sees (start-up is not counted), then SIGTERM. Pages are counted from the test
 * web's log, not from what the crawler says, so every crawler is counted the same way; politeness is
 * judged from the same log, over the whole run including the shutdown.
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestWeb, type PolitenessPolicy, type RequestRecord, type TestWeb, type Violation } from "../../tests/testweb/index.ts";
import { cpuSeconds, ioBytes, machineBusySeconds, memory } from "./proc.ts";

export interface Scenario {
  hosts: number;
  pagesPerHost: number;
  linksPerPage: number;
  pageBytes: number;
  /** The per-host gap every crawler is configured with, and the rule its log is checked against. */
  minGapMs: number;
  seconds: number;
}

export interface LaunchContext {
  proxyUrl: string;
  /** One home page per line, `http://siteN.test/` for every host. */
  seedsFile: string;
  /** A scratch directory of the crawler's own (output, storage). */
  dir: string;
  scenario: Scenario;
}

export interface CrawlerUnderTest {
  /** Row label, e.g. `ours (bun)`. */
  name: string;
  launch(ctx: LaunchContext): { cmd: string[]; env?: Record<string, string>; cwd?: string };
  /** A stricter rule the crawler claims to follow (ours: gap ≥ 10 × fetch time too), checked besides the scenario's. */
  ownPolicy?: Omit<PolitenessPolicy, "minGapMs">;
}

export interface CrawlResult {
  name: string;
  seconds: number;
  /** Completed 200 responses to page requests (robots.txt not counted) started inside the window. */
  pages: number;
  pagesPerSecond: number;
  /** Distinct pages among them (host + path, query ignored: on the test web a query never changes a page). */
  uniquePages: number;
  robotsRequests: number;
  /** Page requests in the window that did not end in a completed 200. */
  otherResponses: number;
  /** Crawler process CPU (user + sys) inside the window. */
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
  /** Bytes the crawler wrote (files, WAL, sockets: /proc/<pid>/io wchar) inside the window. */
  writtenBytes: number;
  /** CPU of this process (the test web) inside the window. */
  testWebCpuSeconds: number;
  /**
   * CPU other processes used on the box inside the window (all cores busy, less the crawler and this
   * process). Near zero on a quiet box; large means the run competed with other work.
   */
  otherLoadCpuSeconds: number;
  /** From spawning the crawler to its first request. */
  startupSeconds: number;
  /** From SIGTERM to exit. */
  stopSeconds: number;
  exitCode: number | null;
  logFile: string;
}

const STARTUP_LIMIT_MS = 120_000;
const STOP_GRACE_MS = 20_000;

export async function measureCrawl(crawler: CrawlerUnderTest, scenario: Scenario, dir: string, ticks: number): Promise<CrawlResult> {
  mkdirSync(dir, { recursive: true });
  const web = await startTestWeb({
    hosts: scenario.hosts,
    pagesPerHost: scenario.pagesPerHost,
    linksPerPage: scenario.linksPerPage,
    pageBytes: scenario.pageBytes,
  });
  let child: Bun.Subprocess | undefined; // killed on the way out if anything below throws
  try {
    const seedsFile = join(dir, "seeds.txt");
    writeFileSync(seedsFile, web.hosts.map((h) => `${web.url(h)}\n`).join(""));
    const spec = crawler.launch({ proxyUrl: web.proxyUrl, seedsFile, dir, scenario });
    const logFile = join(dir, "crawler.log");
    const logFd = openSync(logFile, "w");
    const spawnedAt = performance.now();
    const proc = Bun.spawn(spec.cmd, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdin: "ignore",
      stdout: logFd,
      stderr: logFd,
    });
    child = proc;
    closeSync(logFd);

    const firstAt = await firstRequest(web, () => proc.exitCode !== null);
    if (firstAt === undefined) throw new Error(`${crawler.name} made no request (exit ${proc.exitCode}); log:\n${tail(logFile)}`);
    const startupSeconds = (performance.now() - spawnedAt) / 1000;
    const cpuStart = cpuSeconds(proc.pid, ticks) ?? 0;
    const writtenStart = ioBytes(proc.pid)?.written ?? 0;
    const busyStart = machineBusySeconds(ticks);
    const webCpuStart = process.cpuUsage();
    let peakRssBytes = memory(proc.pid)?.peakRssBytes ?? 0;
    const sampler = setInterval(() => {
      peakRssBytes = Math.max(peakRssBytes, memory(proc.pid)?.peakRssBytes ?? 0);
    }, 250);
    const windowEnd = firstAt + scenario.seconds * 1000;
    await Bun.sleep(Math.max(0, windowEnd - Date.now()));
    clearInterval(sampler);
    const cpuEnd = cpuSeconds(proc.pid, ticks);
    const writtenEnd = ioBytes(proc.pid)?.written ?? writtenStart;
    const busy = machineBusySeconds(ticks) - busyStart;
    peakRssBytes = Math.max(peakRssBytes, memory(proc.pid)?.peakRssBytes ?? 0);
    const webCpu = process.cpuUsage(webCpuStart);
    if (cpuEnd === undefined) throw new Error(`${crawler.name} exited (code ${proc.exitCode}) inside the window; log:\n${tail(logFile)}`);

    const stopAt = performance.now();
    proc.kill("SIGTERM");
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(false), STOP_GRACE_MS)));
    const stopped = await Promise.race([proc.exited.then(() => true), grace]);
    clearTimeout(graceTimer);
    if (!stopped) {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    const stopSeconds = (performance.now() - stopAt) / 1000;

    const counts = countWindow(web.requests, firstAt, windowEnd);
    const found = web.violations({ minGapMs: scenario.minGapMs });
    const own = crawler.ownPolicy ? web.violations({ minGapMs: scenario.minGapMs, ...crawler.ownPolicy }).length : undefined;
    const cpu = cpuEnd - cpuStart;
    const webCpuSeconds = (webCpu.user + webCpu.system) / 1e6;
    return {
      name: crawler.name,
      seconds: scenario.seconds,
      ...counts,
      pagesPerSecond: counts.pages / scenario.seconds,
      cpuSeconds: cpu,
      cpuMsPerPage: counts.pages > 0 ? (cpu * 1000) / counts.pages : 0,
      peakRssBytes,
      violations: found.length,
      violationsByKind: byKind(found),
      violationExamples: found.slice(0, 3).map((v) => `${v.kind} ${v.host}${v.path}: ${v.message}`),
      ownPolicyViolations: own,
      writtenBytes: writtenEnd - writtenStart,
      testWebCpuSeconds: webCpuSeconds,
      otherLoadCpuSeconds: Math.max(0, busy - cpu - webCpuSeconds),
      startupSeconds,
      stopSeconds,
      exitCode: stopped ? proc.exitCode : null,
      logFile,
    };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await web.close();
  }
}

/** Resolves with the start time of the first request the web sees, or undefined if the crawler died first. */
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

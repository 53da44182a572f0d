/**
 * The end-to-end harness for the cluster: real nats-server, redis-server, coordinator, frontier nodes and
 * fetch nodes on loopback, crawling the synthetic test web (started in the test process, reached through
 * its proxy). Two ways to start a cluster:
 *
 *   - `up()`: `bun run cluster up` as one child, the way a developer starts it; the harness reads
 *     DIR/cluster.json and talks to the coordinator through `crawlctl` and the admin API.
 *   - `services()` + `coordinator()` + `frontier()` + `fetcher()`: each role its own child, for tests that
 *     kill, restart or add one of them (`--node-id` and `--data-dir` are the test's, so a restart is the
 *     same node).
 *
 * Every wait is on a condition (the admin API, the test web's request log, a process's exit), bounded by
 * a timeout whose message names what was awaited. Everything a test starts is registered and torn down
 * after it (or after the file, for `useCluster("all")`): children stopped with SIGTERM, then SIGKILL; for
 * `cluster up` also every descendant it left (by pid), so a failing test leaves nothing running.
 *
 * Reused from the embedded harness: the request-log helpers (`pageRequests`, `fetchCounts`, `repeated`,
 * `missing`, `urlOf`) and, for the comparison with `crawl`, its `useHarness().crawl`.
 */
import { afterAll, afterEach } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectNats, JetStreamBus } from "../../../adapters/nats/index.ts";
import { partitionOf } from "../../../core/ring/index.ts";
import { startNats, type NatsServer } from "../../support/nats.ts";
import { startRedis, type RedisServer } from "../../support/redis.ts";
import { startTestWeb, type TestWeb, type TestWebOptions } from "../../testweb/index.ts";
import { fetchCounts, pageRequests } from "../embedded/harness.ts";

export { fetchCounts, missing, pageRequests, repeated, urlOf } from "../embedded/harness.ts";

export const REPO_ROOT = resolve(import.meta.dir, "../../..");
/** The per-host gap every test crawls with: seconds per test, and long enough to tell from timer noise. */
export const MIN_GAP_MS = 200;
/** Heartbeat of every role: node records (and so the cluster totals) lag the truth by at most this. */
export const HEARTBEAT_MS = 500;
export const PARTITIONS = 64;
export const REGION = "region-1";
/** Bound of one file's (or test's) teardown: every process stopped, SIGKILL after a grace period. */
const TEARDOWN_TIMEOUT_MS = 60_000;

/** Env vars that would change a child's behaviour behind the test's back (a proxy, a CRAWL_* default). */
const HERMETIC_DROP = /^(https?_proxy|no_proxy|all_proxy|CRAWL_.*|CRAWLCTL_.*)$/i;

export function denoAvailable(): boolean {
  return Bun.spawnSync(["deno", "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
}

// ---- processes ------------------------------------------------------------------------------------------

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** A child process with its output kept (the tail of it) for failure messages. */
export interface Proc {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  /** Undefined while it runs. */
  exit(): ExitInfo | undefined;
  output(): string;
  signal(sig: "SIGTERM" | "SIGINT" | "SIGKILL"): void;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** Waits for the exit, at most `timeoutMs`, failing with the output. */
  waitExit(timeoutMs: number): Promise<ExitInfo>;
}

const OUTPUT_KEEP = 256 * 1024;

export function hermeticEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !HERMETIC_DROP.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export function spawnProc(name: string, cmd: readonly string[], opts: { env?: Record<string, string> } = {}): Proc {
  const proc = Bun.spawn([...cmd], { cwd: REPO_ROOT, env: hermeticEnv(opts.env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let out = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      out += decoder.decode(chunk, { stream: true });
      if (out.length > OUTPUT_KEEP * 2) out = out.slice(-OUTPUT_KEEP);
    }
  };
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)]);
  let info: ExitInfo | undefined;
  const exited = (async () => {
    await proc.exited;
    await drained.catch(() => {});
    info = { code: proc.signalCode ? null : proc.exitCode, signal: proc.signalCode ? String(proc.signalCode) : null };
    return info;
  })();
  const p: Proc = {
    name,
    pid: proc.pid,
    exited,
    exit: () => info,
    output: () => out,
    signal(sig) {
      if (!info) proc.kill(sig);
    },
    async stop(graceMs = 15_000) {
      if (info) return info;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async waitExit(timeoutMs) {
      return withTimeout(exited, timeoutMs, () => `${name} (pid ${proc.pid}) did not exit within ${timeoutMs} ms\n${describe(p)}`);
    },
  };
  return p;
}

export function describe(p: Proc): string {
  const o = p.output();
  const tail = o.length > 6000 ? `${o.slice(0, 1500)}\n…\n${o.slice(-4500)}` : o;
  return `--- ${p.name} (pid ${p.pid}, ${p.exit() ? `exited ${JSON.stringify(p.exit())}` : "running"}):\n${tail}`;
}

/** Every descendant of `pid` alive now (from /proc), children before grandchildren. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 is the ppid; the command name (field 2) may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The command line of a live process, for messages. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "(gone)";
  }
}

// ---- waiting --------------------------------------------------------------------------------------------

export interface WaitOptions {
  timeoutMs: number;
  what: string;
  detail?: () => string | Promise<string>;
  intervalMs?: number;
  /** Fail at once if one of these exits first. */
  procs?: readonly Proc[];
}

/** Polls `cond` (sync or async; a throw counts as "not yet") until it holds, at most `timeoutMs`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await cond()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const dead = opts.procs?.find((p) => p.exit());
    const timedOut = Date.now() >= deadline;
    if (dead || timedOut) {
      const extra = opts.detail ? `\n${await opts.detail()}` : "";
      const err = lastError ? `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}` : "";
      const why = dead ? `${dead.name} exited before ${opts.what}\n${describe(dead)}` : `timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`;
      throw new Error(`${why}${extra}${err}`);
    }
    await Bun.sleep(opts.intervalMs ?? 100);
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message())), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- talking to the coordinator -------------------------------------------------------------------------

export interface ClusterInfo {
  adminUrl: string;
  grpcAddress: string;
  token: string;
}

/** GET /v1/stats (and crawlctl status --json, with int64 as numbers). */
export interface Stats {
  atMs: number;
  counters: Record<string, number>;
  pagesFetched: number;
  pagesPerSecond: number;
  queued: number;
  inFlight: number;
  errors: number;
  frontierNodes: number;
  fetchNodes: number;
}

/** One entry of GET /v1/nodes: the node record plus its state. */
export interface NodeView {
  id: string;
  role: "coordinator" | "frontier" | "fetcher";
  region: string;
  runtime: "bun" | "deno";
  state: "live" | "draining" | "dead" | "left";
  grpcAddress: string;
  httpAddress: string;
  startedAt: number;
  heartbeatAt: number;
  partitions: number[];
  counters: Record<string, number>;
  gauges: Record<string, number>;
}

/** GET /v1/ring. */
export interface RingView {
  epoch: number;
  partitions: number;
  revision: number;
  regions: Record<string, { owners: string[]; previous: string[] }>;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a test needs of a running coordinator, however the cluster was started. */
export class Coordinator {
  constructor(readonly info: ClusterInfo) {}

  /** An admin API request; `auth: false` leaves the token out. */
  admin(path: string, init: RequestInit & { auth?: boolean } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (init.auth !== false) headers.set("authorization", `Bearer ${this.info.token}`);
    return fetch(`${this.info.adminUrl}${path}`, { ...init, headers, signal: AbortSignal.timeout(10_000) });
  }

  async adminJson<T>(path: string): Promise<T> {
    const res = await this.admin(path);
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  stats = () => this.adminJson<Stats>("/v1/stats");
  nodes = async () => (await this.adminJson<{ nodes: NodeView[] }>("/v1/nodes")).nodes;
  ring = () => this.adminJson<RingView>("/v1/ring");

  /** `bun cli/main.ts ...args --coordinator ADDR --token TOKEN`, bounded. */
  crawlctl(args: readonly string[], opts: { timeoutMs?: number; coordinator?: string; token?: string } = {}): Promise<CliResult> {
    return runCrawlctl([...args, "--coordinator", opts.coordinator ?? this.info.grpcAddress, "--token", opts.token ?? this.info.token], opts.timeoutMs);
  }

  /** `crawlctl ... --json`, parsed; fails with its output on a non-zero exit. */
  async crawlctlJson<T>(args: readonly string[]): Promise<T> {
    const r = await this.crawlctl([...args, "--json"]);
    if (r.code !== 0) throw new Error(`crawlctl ${args.join(" ")} exited ${r.code}\n${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Seeds through `crawlctl seed add`, every URL accepted. */
  async seed(urls: readonly string[]): Promise<void> {
    const r = await this.crawlctlJson<{ accepted: number; rejected: unknown[] }>(["seed", "add", ...urls]);
    if (r.accepted !== urls.length) throw new Error(`seed add accepted ${r.accepted} of ${urls.length}: ${JSON.stringify(r.rejected)}`);
  }

  /** Waits until the node with `id` is live (and, with `since`, started at or after it). */
  async waitForNode(id: string, opts: { timeoutMs?: number; since?: number; procs?: readonly Proc[] } = {}): Promise<NodeView> {
    let found: NodeView | undefined;
    await waitUntil(
      async () => {
        found = (await this.nodes()).find((n) => n.id === id && n.state === "live" && n.startedAt >= (opts.since ?? 0));
        return found !== undefined;
      },
      { timeoutMs: opts.timeoutMs ?? 30_000, what: `node ${id} to join`, procs: opts.procs, detail: async () => JSON.stringify((await this.nodes().catch(() => [])).map((n) => [n.id, n.state])) },
    );
    return found!;
  }

  /** Waits until the ring has no pending handoff and gives each frontier node in `ids` at least one partition. */
  async waitForSettledRing(ids: readonly string[], timeoutMs = 30_000): Promise<RingView> {
    let ring: RingView | undefined;
    await waitUntil(
      async () => {
        ring = await this.ring();
        const r = ring.regions[REGION];
        return !!r && r.previous.every((p) => !p) && ids.every((id) => r.owners.includes(id)) && r.owners.every((o) => ids.includes(o));
      },
      { timeoutMs, what: `a settled ring owned by ${ids.join(", ")}`, detail: () => JSON.stringify(ring?.regions[REGION] ? ownerCounts(ring) : ring) },
    );
    return ring!;
  }
}

export async function runCrawlctl(args: readonly string[], timeoutMs = 20_000, env: Record<string, string> = {}): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, "cli/main.ts", ...args], { cwd: REPO_ROOT, env: hermeticEnv(env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    await proc.exited;
    if (proc.signalCode === "SIGKILL") throw new Error(`crawlctl ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stderr}${stdout}`);
    return { code: proc.exitCode, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Partitions per owner of the test region. */
export function ownerCounts(ring: RingView): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of ring.regions[REGION]?.owners ?? []) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** The frontier node that owns `host` on `ring`. */
export function ownerOf(ring: RingView, host: string): string {
  return ring.regions[REGION]!.owners[partitionOf(host, ring.partitions)]!;
}

export interface IdleOptions {
  timeoutMs: number;
  /** No request reached the test web for this long, with nothing queued or in flight. Default 4 heartbeats. */
  quietMs?: number;
  /**
   * Only these hosts must be idle: each asked through `GET /v1/hosts/:host` (nothing queued, nothing in
   * flight) instead of the cluster totals. For crawls with hosts that keep URLs parked forever (robots.txt
   * unreachable), which the totals count as queued.
   */
  hosts?: Iterable<string>;
  procs?: readonly Proc[];
}

interface HostView {
  queued: number;
  inFlight: boolean;
}

/**
 * Waits until the cluster is idle: nothing queued or in flight (the totals, or each of `hosts`), some page
 * fetched, and the test web has had no open request and no new one for `quietMs` (longer than a heartbeat,
 * so the totals are not stale, and longer than the gap, so a host with work left would have been asked
 * again). Returns the totals read at that moment.
 */
export async function waitForIdle(c: Coordinator, web: TestWeb, opts: IdleOptions): Promise<Stats> {
  const quietMs = opts.quietMs ?? 4 * HEARTBEAT_MS;
  const only = opts.hosts ? [...opts.hosts] : undefined;
  const lastActivity = () => {
    let last = 0;
    for (const r of web.requests) {
      if (only && !only.includes(r.host)) continue;
      last = Math.max(last, r.startedAt, r.endedAt);
    }
    return last; // Infinity while a request is open
  };
  const busyHosts = async () => {
    const busy: string[] = [];
    for (const host of only ?? []) {
      const { host: h } = await c.adminJson<{ host: HostView }>(`/v1/hosts/${encodeURIComponent(host)}`);
      if (h.queued > 0 || h.inFlight) busy.push(`${host} (${h.queued} queued${h.inFlight ? ", in flight" : ""})`);
    }
    return busy;
  };
  let stats: Stats | undefined;
  let busy: string[] = [];
  await waitUntil(
    async () => {
      stats = await c.stats();
      if (!(stats.pagesFetched > 0 && Date.now() - lastActivity() >= quietMs && stats.atMs - lastActivity() >= quietMs / 2)) return false;
      if (!only) return stats.queued === 0 && stats.inFlight === 0;
      busy = await busyHosts();
      return busy.length === 0;
    },
    {
      timeoutMs: opts.timeoutMs,
      what: "the cluster to be idle (nothing queued, nothing in flight, the test web quiet)",
      intervalMs: 250,
      procs: opts.procs,
      detail: () =>
        `last totals: ${JSON.stringify(stats && { pagesFetched: stats.pagesFetched, queued: stats.queued, inFlight: stats.inFlight })}; ` +
        `busy hosts: ${busy.join(", ") || "-"}; page requests seen: ${pageRequests(web).length}`,
    },
  );
  return stats!;
}

/** Waits until every URL of `urls` has been requested (page requests, robots.txt excluded). */
export async function waitForPages(web: TestWeb, urls: Iterable<string>, opts: { timeoutMs: number; what: string; procs?: readonly Proc[] }): Promise<void> {
  const want = [...urls];
  const left = () => {
    const got = fetchCounts(pageRequests(web));
    return want.filter((u) => !got.has(u));
  };
  await waitUntil(() => left().length === 0, { ...opts, detail: () => `missing: ${left().slice(0, 20).join(", ")}` });
}

// ---- starting clusters ----------------------------------------------------------------------------------

export interface UpOptions {
  web: TestWeb;
  frontiers?: number;
  fetchers?: number;
  noDeno?: boolean;
  /** Frontier-node policy flags (after `--`); `--min-gap` defaults to MIN_GAP_MS. */
  frontierArgs?: string[];
  env?: Record<string, string>;
}

export interface ClusterUp extends Coordinator {
  readonly proc: Proc;
  readonly dir: string;
}

export interface RoleOptions {
  nats: NatsServer;
  redis: RedisServer;
}

export interface FrontierOptions extends RoleOptions {
  id: string;
  dataDir: string;
  /** Policy and node flags beyond the usual ones. */
  args?: string[];
}

export interface FetcherOptions extends RoleOptions {
  id: string;
  web: TestWeb;
  runtime?: "bun" | "deno";
  args?: string[];
}

export interface Services {
  nats: NatsServer;
  redis: RedisServer;
}

export interface RolesOptions {
  web: TestWeb;
  frontiers: readonly string[];
  fetchers: readonly string[];
  /** Coordinator flags, e.g. `--death-timeout 60s`. */
  coordinatorArgs?: string[];
  /** Flags of every frontier node (policy flags); `--min-gap` defaults to MIN_GAP_MS. */
  frontierArgs?: string[];
  fetcherArgs?: string[];
}

/** A cluster whose roles were started one by one, so a test can kill, restart or add one. */
export interface Roles {
  services: Services;
  coordinator: Coordinator & { proc: Proc };
  /** The running process of each frontier node (the latest one after a restart). */
  frontiers: Map<string, Proc>;
  fetchers: Map<string, Proc>;
  /** Every process started so far, for waits that should fail when one of them dies. */
  procs(): Proc[];
  /** Starts frontier node `id` (again: same id, same data dir) and waits until it has joined. */
  startFrontier(id: string): Promise<Proc>;
  startFetcher(id: string, runtime?: "bun" | "deno"): Promise<Proc>;
}

export interface ClusterHarness {
  /** nats-server, redis-server, a coordinator, then the frontier and fetch nodes, each joined. */
  roles(opts: RolesOptions): Promise<Roles>;
  /** A test web closed at teardown. */
  web(opts: TestWebOptions): Promise<TestWeb>;
  /** A fresh directory removed at teardown. */
  tempDir(): string;
  /** `bun run cluster up` in a temp dir; resolves once DIR/cluster.json exists. */
  up(opts: UpOptions): Promise<ClusterUp>;
  /** nats-server (JetStream) and redis-server for roles started one by one. */
  services(): Promise<Services>;
  /** A coordinator on free ports with a fixed token; `args` e.g. `--death-timeout 60s`. */
  coordinator(s: RoleOptions, args?: string[]): Promise<Coordinator & { proc: Proc }>;
  /** A frontier node (not waited for: use `waitForNode`). */
  frontier(opts: FrontierOptions): Proc;
  /** A fetch node (not waited for: use `waitForNode`). */
  fetcher(opts: FetcherOptions): Proc;
  /** Sets the ack wait of the region's `fetchers` consumer (see the note in fetch-node-redelivery test). */
  setFetchAckWait(s: RoleOptions, ms: number): Promise<void>;
}

/**
 * Registers teardown in the calling test file (after each test, or with "all" after the file) and returns
 * the factory for its resources.
 */
export function useCluster(scope: "each" | "all" = "each"): ClusterHarness {
  const teardown: Array<() => Promise<unknown>> = [];
  const register = (fn: () => Promise<unknown>) => teardown.push(fn);
  (scope === "each" ? afterEach : afterAll)(
    async () => {
      for (const fn of teardown.splice(0).reverse()) {
        try {
          await fn();
        } catch (error) {
          console.error("cluster harness teardown:", error);
        }
      }
    },
    // A cluster stopped mid-crawl lets tasks in flight finish first (each role has a stop grace).
    { timeout: TEARDOWN_TIMEOUT_MS },
  );
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cluster-e2e-"));
    register(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const proc = (p: Proc) => {
    register(() => p.stop(10_000));
    return p;
  };
  const commonFlags = (s: RoleOptions) => ["--nats-url", s.nats.url, "--partitions", String(PARTITIONS), "--default-region", REGION];
  const roleEnv = { CRAWL_HEARTBEAT_INTERVAL: `${HEARTBEAT_MS}ms` };

  const harness: ClusterHarness = {
    async roles(opts) {
      const services = await harness.services();
      const coordinator = await harness.coordinator(services, opts.coordinatorArgs);
      const frontiers = new Map<string, Proc>();
      const fetchers = new Map<string, Proc>();
      const dataDirs = new Map<string, string>();
      const roles: Roles = {
        services,
        coordinator,
        frontiers,
        fetchers,
        procs: () => [coordinator.proc, ...frontiers.values(), ...fetchers.values()],
        async startFrontier(id) {
          if (!dataDirs.has(id)) dataDirs.set(id, tempDir());
          const since = Date.now();
          const p = harness.frontier({ ...services, id, dataDir: dataDirs.get(id)!, args: opts.frontierArgs });
          frontiers.set(id, p);
          await coordinator.waitForNode(id, { since, procs: [p] });
          return p;
        },
        async startFetcher(id, runtime = "bun") {
          const since = Date.now();
          const p = harness.fetcher({ ...services, id, web: opts.web, runtime, args: opts.fetcherArgs });
          fetchers.set(id, p);
          await coordinator.waitForNode(id, { since, procs: [p] });
          return p;
        },
      };
      await Promise.all([...opts.frontiers.map((id) => roles.startFrontier(id)), ...opts.fetchers.map((id) => roles.startFetcher(id))]);
      await coordinator.waitForSettledRing(opts.frontiers);
      return roles;
    },

    async web(opts) {
      const web = await startTestWeb(opts);
      register(() => web.close());
      return web;
    },
    tempDir,

    async up(opts) {
      const dir = tempDir();
      const args = ["--dir", dir, "--proxy", opts.web.proxyUrl, "--allow-private-addresses"];
      if (opts.frontiers) args.push("--frontiers", String(opts.frontiers));
      if (opts.fetchers) args.push("--fetchers", String(opts.fetchers));
      if (opts.noDeno) args.push("--no-deno");
      const policy = [...(opts.frontierArgs ?? [])];
      if (!policy.includes("--min-gap")) policy.push("--min-gap", `${MIN_GAP_MS}ms`);
      const p = spawnProc("cluster up", ["bun", "run", "cluster", "up", ...args, "--", ...policy], { env: { ...roleEnv, ...opts.env } });
      // SIGTERM stops the whole cluster; whatever it left behind (a bug, or a test that failed before the
      // stop) is killed by pid.
      register(async () => {
        const tree = descendants(p.pid);
        await p.stop(25_000);
        for (const pid of tree) if (isRunning(pid)) process.kill(pid, "SIGKILL");
      });
      const file = join(dir, "cluster.json");
      await waitUntil(() => existsSync(file), { timeoutMs: 60_000, what: `${file} to be written`, procs: [p] });
      // The launcher writes the file in one call; read it once it parses.
      let info: ClusterInfo | undefined;
      await waitUntil(
        () => {
          info = JSON.parse(readFileSync(file, "utf8")) as ClusterInfo;
          return true;
        },
        { timeoutMs: 5_000, what: "cluster.json to parse" },
      );
      return Object.assign(new Coordinator(info!), { proc: p, dir });
    },

    async services() {
      const nats = await startNats({ jetstream: true });
      register(() => nats.stop());
      const redis = await startRedis();
      register(() => redis.stop());
      return { nats, redis };
    },

    async coordinator(s, args = []) {
      const token = crypto.randomUUID().replace(/-/g, "");
      const p = proc(
        spawnProc(
          "coordinator",
          ["bun", "coordinator/main.ts", "--node-id", "coordinator-1", ...commonFlags(s), "--grpc-listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--admin-token", token, ...args],
          { env: roleEnv },
        ),
      );
      let line: { adminUrl: string; grpcAddress: string } | undefined;
      await waitUntil(
        () => {
          const m = /^\{.*"adminUrl".*\}$/m.exec(p.output());
          if (m) line = JSON.parse(m[0]) as { adminUrl: string; grpcAddress: string };
          return line !== undefined;
        },
        { timeoutMs: 20_000, what: "the coordinator to print its addresses", procs: [p] },
      );
      const c = Object.assign(new Coordinator({ adminUrl: line!.adminUrl, grpcAddress: line!.grpcAddress, token }), { proc: p });
      await waitUntil(async () => (await c.admin("/readyz")).ok, { timeoutMs: 20_000, what: "the coordinator to be ready", procs: [p] });
      return c;
    },

    frontier(opts) {
      const policy = [...(opts.args ?? [])];
      if (!policy.includes("--min-gap")) policy.push("--min-gap", `${MIN_GAP_MS}ms`);
      return proc(
        spawnProc(
          opts.id,
          ["bun", "frontier-node/main.ts", "--node-id", opts.id, "--region", REGION, ...commonFlags(opts), "--redis-url", opts.redis.url, "--data-dir", opts.dataDir, ...policy],
          { env: roleEnv },
        ),
      );
    },

    fetcher(opts) {
      const warc = join(tempDir(), "warc");
      const flags = [
        "fetch-node/main.ts", "--node-id", opts.id, "--region", REGION, ...commonFlags(opts), "--redis-url", opts.redis.url,
        "--warc-dir", warc, "--proxy", opts.web.proxyUrl, "--allow-private-addresses", ...(opts.args ?? []),
      ];
      const cmd =
        opts.runtime === "deno"
          ? ["deno", "run", "--node-modules-dir=manual", "--no-lock", "--allow-net", "--allow-env", `--allow-read=${warc}`, `--allow-write=${warc}`, ...flags]
          : ["bun", ...flags];
      mkdirSync(warc, { recursive: true });
      return proc(spawnProc(opts.id, cmd, { env: roleEnv }));
    },

    async setFetchAckWait(s, ms) {
      const nc = await connectNats([s.nats.url], "cluster-e2e");
      try {
        // The bus's own region setup, as every role runs it at start, with another ack wait: it updates the
        // existing `fetchers` consumer in place (pending deliveries included).
        const bus = new JetStreamBus(nc, { fetchAckWaitMs: ms, onError: () => {} });
        await bus.ensureRegion(REGION, PARTITIONS);
        await bus.close();
      } finally {
        await nc.close();
      }
    },
  };
  return harness;
}

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
 * Beside it: `processes.ts` (children, the process tree, `waitUntil`) and `coordinator.ts` (the admin API,
 * `crawlctl`, the shapes of their answers); this file re-exports both. Reused from the embedded harness:
 * the request-log helpers (`pageRequests`, `fetchCounts`, `repeated`, `missing`, `urlOf`) and, for the
 * comparison with `crawl`, its `useHarness().crawl`.
 */
import { afterAll, afterEach } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectNats, JetStreamBus } from "../../../adapters/nats/index.ts";
import type { NatsCluster, NatsServer } from "../../support/nats.ts";
import { startNetLab, type NetLab, type Netns } from "../../support/netns.ts";
import { startRedis, type RedisServer } from "../../support/redis.ts";
import { startTestWeb, type TestWeb, type TestWebOptions } from "../../testweb/index.ts";
import type { ClusterFile, ProcessEntry } from "../../../scripts/cluster/cluster-file.ts";
import { fetchCounts, pageRequests } from "../embedded/harness.ts";
import { assertPolite, gapPolicyOf, KEEP_FOR_DEBUGGING, keptDir, type GapPolicy } from "../politeness.ts";
import { Coordinator, REGION, type Stats } from "./coordinator.ts";
import { startServices, type Services, type ServicesOptions } from "./services.ts";
import { commandOf, descendants, isRunning, spawnProc, waitUntil, type Proc } from "./processes.ts";
import { logClock, onLogClock } from "../../testweb/index.ts";

export { fetchCounts, missing, pageRequests, probeRequests, repeated, urlOf } from "../embedded/harness.ts";
export * from "./coordinator.ts";
export * from "./processes.ts";
export type { ClusterFile, ProcessEntry } from "../../../scripts/cluster/cluster-file.ts";
export type { Services, ServicesOptions } from "./services.ts";

/** The per-host gap every test crawls with: seconds per test, and long enough to tell from timer noise. */
export const MIN_GAP_MS = 200;
/** Heartbeat of every role: node records (and so the cluster totals) lag the truth by at most this. */
export const HEARTBEAT_MS = 500;
export const PARTITIONS = 64;
/** Bound of one file's (or test's) teardown: every process stopped, SIGKILL after a grace period. */
const TEARDOWN_TIMEOUT_MS = 60_000;

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
      if (!(stats.pagesFetched > 0 && logClock() - lastActivity() >= quietMs && onLogClock(stats.atMs) - lastActivity() >= quietMs / 2))
        return false;
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
export async function waitForPages(
  web: TestWeb,
  urls: Iterable<string>,
  opts: { timeoutMs: number; what: string; procs?: readonly Proc[] },
): Promise<void> {
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
  coordinators?: number;
  frontiers?: number;
  fetchers?: number;
  regions?: number;
  regionRules?: string;
  noDeno?: boolean;
  /** Run in this directory (a second cluster up on the same one resumes it); default a fresh one. */
  dir?: string;
  /** Frontier-node policy flags (after `--`); `--min-gap` defaults to MIN_GAP_MS. */
  frontierArgs?: string[];
  env?: Record<string, string>;
  /** `cluster up --secure`: TLS and authentication on every link (the Coordinator view takes the CA from cluster.json). */
  secure?: boolean;
}

export interface ClusterUp extends Coordinator {
  readonly proc: Proc;
  readonly dir: string;
  /** DIR/cluster.json as it was when it appeared. */
  readonly file: ClusterFile;
  /** DIR/cluster.json now (it is rewritten as processes restart). */
  readFile(): ClusterFile;
  /** SIGKILL to process `id` of cluster.json; resolves with the pid killed and when. */
  kill(id: string): { pid: number; at: number };
  /** Waits until cluster.json lists `id` running again under another pid than `oldPid` (the supervisor's restart). */
  waitRestarted(id: string, oldPid: number, timeoutMs?: number): Promise<ProcessEntry>;
}

export interface RoleOptions {
  nats: NatsServer;
  redis: RedisServer;
  /** The role's region (default REGION): `nats` and `redis` are that region's. */
  region?: string;
  /** A region's 3-server NATS cluster: the roles get every server's URL and 3 stream replicas. */
  natsCluster?: NatsCluster;
}

export interface FrontierOptions extends RoleOptions {
  id: string;
  dataDir: string;
  /** Policy and node flags beyond the usual ones. */
  args?: string[];
  /** Run inside this network namespace, its APIs on the namespace's address. */
  netns?: Netns;
  /** Outside a namespace, the address its APIs listen on (default 127.0.0.1). */
  listenHost?: string;
}

export interface FetcherOptions extends RoleOptions {
  id: string;
  web: TestWeb;
  /** Reach the test web without its proxy, resolving names itself (with `--hosts-file` in `args`). */
  direct?: boolean;
  runtime?: "bun" | "deno";
  args?: string[];
  /** Run inside this network namespace. */
  netns?: Netns;
  /** Outside a namespace, the address its /healthz and /metrics listen on (default 127.0.0.1). */
  listenHost?: string;
}

export interface RolesOptions {
  web: TestWeb;
  frontiers: readonly string[];
  fetchers: readonly string[];
  /** Coordinator flags, e.g. `--death-timeout 60s`. */
  coordinatorArgs?: string[];
  /**
   * Also start `coordinator-2` with the same flags and token once `coordinator-1` holds the lease: a
   * standby (`Roles.standby`), and `Roles.coordinators` asks whichever of the two holds the lease.
   */
  standbyCoordinator?: boolean;
  /** Flags of every frontier node (policy flags); `--min-gap` defaults to MIN_GAP_MS. */
  frontierArgs?: string[];
  fetcherArgs?: string[];
  /** The region of frontier or fetch node `id` (default REGION): one of `services.otherRegions`, or REGION. */
  regionOf?: (id: string) => string;
  /** `--region-rules` of every role (which hosts belong to which region), with `services.otherRegions`. */
  regionRules?: string;
  /** Fetch nodes reach the test web without its proxy, resolving names themselves (`--hosts-file` in `fetcherArgs`). */
  directFetch?: boolean;
  /** More flags of one fetch node, after `fetcherArgs` (e.g. its own `--user-agent`, to tell its requests apart). */
  fetcherArgsOf?: (id: string) => string[];
  services?: ServicesOptions;
  /**
   * The network namespace a role runs in (by id: `coordinator-1`, a frontier or fetch node's id), or
   * undefined for the host's. Its servers listen on the namespace's address; what it dials (NATS, Redis,
   * the test web) must listen where the namespace reaches it (`ServicesOptions.listenOn`, the web's
   * `hostname`: a lab's server addresses). See tests/support/netns.ts.
   */
  netnsOf?: (id: string) => Netns | undefined;
  /**
   * The address the APIs of roles outside a namespace listen on (default 127.0.0.1): with roles in
   * namespaces, one they reach too (a lab's server address), since nodes dial each other (handoffs between
   * frontier nodes, the coordinator's calls).
   */
  listenHost?: string;
}

/** A cluster whose roles were started one by one, so a test can kill, restart or add one. */
export interface Roles {
  services: Services;
  coordinator: Coordinator & { proc: Proc };
  /** With `standbyCoordinator`: coordinator-2, started as the standby. */
  standby?: Coordinator & { proc: Proc };
  /** With `standbyCoordinator`: a client of both coordinators' APIs, answered by the one holding the lease. */
  coordinators?: Coordinator;
  /** The running process of each frontier node (the latest one after a restart). */
  frontiers: Map<string, Proc>;
  fetchers: Map<string, Proc>;
  /** Every process started so far, for waits that should fail when one of them dies. */
  procs(): Proc[];
  /** Starts frontier node `id` (again: same id, same data dir) and waits until it has joined. */
  startFrontier(id: string): Promise<Proc>;
  /**
   * Starts the coordinator again (same node id and flags, new ports and token: nodes find each other
   * through the cluster state, not through it) and makes it `coordinator`; after a kill, a restart.
   */
  startCoordinator(): Promise<Coordinator & { proc: Proc }>;
  /** The data directory of frontier node `id` (e.g. to delete it: a lost disk). */
  dataDirOf(id: string): string | undefined;
  startFetcher(id: string, runtime?: "bun" | "deno"): Promise<Proc>;
  /** The network namespace role `id` runs in (`RolesOptions.netnsOf`), if any. */
  netnsOf(id: string): Netns | undefined;
}

export interface ClusterHarness {
  /** nats-server, redis-server, a coordinator, then the frontier and fetch nodes, each joined. */
  roles(opts: RolesOptions): Promise<Roles>;
  /** A test web closed at teardown. */
  web(opts: TestWebOptions): Promise<TestWeb>;
  /** A fresh directory removed at teardown. */
  tempDir(): string;
  /** A network lab (tests/support/netns.ts) removed at teardown, after every process started before it. */
  netLab(): NetLab;
  /** `bun run cluster up` in a temp dir; resolves once DIR/cluster.json exists. */
  up(opts: UpOptions): Promise<ClusterUp>;
  /** nats-server (JetStream) and redis-server for roles started one by one. */
  services(opts?: ServicesOptions): Promise<Services>;
  /** A coordinator on free ports with a fixed token; `args` e.g. `--death-timeout 60s`. */
  coordinator(
    s: RoleOptions,
    args?: string[],
    who?: { id?: string; token?: string; standby?: boolean; netns?: Netns; listenHost?: string },
  ): Promise<Coordinator & { proc: Proc }>;
  /** A frontier node (not waited for: use `waitForNode`). */
  frontier(opts: FrontierOptions): Proc;
  /** A fetch node (not waited for: use `waitForNode`). */
  fetcher(opts: FetcherOptions): Proc;
  /** Sets the ack wait of the region's `fetchers` consumer (see the note in fetch-node-redelivery test). */
  setFetchAckWait(s: { nats: { url: string } }, ms: number, region?: string): Promise<void>;
}

/**
 * Registers teardown in the calling test file (after each test, or with "all" after the file) and returns
 * the factory for its resources. Once everything is stopped, every test web a cluster crawled is judged
 * for politeness (../politeness.ts) with the gap rule its frontier nodes were given, and a violation fails
 * the test.
 */
export function useCluster(scope: "each" | "all" = "each"): ClusterHarness {
  const teardown: Array<() => Promise<unknown>> = [];
  const register = (fn: () => Promise<unknown>) => teardown.push(fn);
  const crawled = new Map<TestWeb, GapPolicy[]>();
  const crawls = (web: TestWeb, frontierArgs: readonly string[]) => {
    const args = frontierArgs.includes("--min-gap") ? frontierArgs : [...frontierArgs, "--min-gap", `${MIN_GAP_MS}ms`];
    crawled.set(web, [...(crawled.get(web) ?? []), gapPolicyOf(args)]);
  };
  (scope === "each" ? afterEach : afterAll)(
    async () => {
      for (const fn of teardown.splice(0).reverse()) {
        try {
          await fn();
        } catch (error) {
          console.error("cluster harness teardown:", error);
        }
      }
      const judged = [...crawled];
      crawled.clear();
      for (const [web, policies] of judged) assertPolite(web, policies);
    },
    // A cluster stopped mid-crawl lets tasks in flight finish first (each role has a stop grace).
    { timeout: TEARDOWN_TIMEOUT_MS },
  );
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cluster-e2e-"));
    register(async () => (KEEP_FOR_DEBUGGING ? keptDir("a cluster's temp dir", dir) : rmSync(dir, { recursive: true, force: true })));
    return dir;
  };
  // Roles started one by one are the test's own: no need to wait out their stop grace at teardown.
  const proc = (p: Proc) => {
    register(async () => {
      await p.stop(2_000);
      if (KEEP_FOR_DEBUGGING) {
        const file = join(mkdtempSync(join(tmpdir(), "cluster-e2e-log-")), `${p.name}.log`);
        writeFileSync(file, p.output());
        keptDir(`${p.name}'s output`, file);
      }
    });
    return p;
  };
  const commonFlags = (s: RoleOptions) => [
    "--nats-url",
    s.natsCluster ? s.natsCluster.urls.join(",") : s.nats.url,
    ...(s.natsCluster ? ["--nats-replicas", String(s.natsCluster.servers.length)] : []),
    "--partitions",
    String(PARTITIONS),
    "--default-region",
    REGION,
  ];
  // A frontier or fetch node's identity and servers: its region's NATS and Redis.
  const nodeFlags = (opts: RoleOptions & { id: string }) => [
    "--node-id",
    opts.id,
    "--region",
    opts.region ?? REGION,
    ...commonFlags(opts),
    "--redis-url",
    opts.redis.url,
  ];
  const roleEnv = { CRAWL_HEARTBEAT_INTERVAL: `${HEARTBEAT_MS}ms` };

  const harness: ClusterHarness = {
    async roles(opts) {
      crawls(opts.web, opts.frontierArgs ?? []);
      const services = await harness.services(opts.services);
      const netnsOf = opts.netnsOf ?? (() => undefined);
      const rules = opts.regionRules ? ["--region-rules", opts.regionRules] : [];
      opts = {
        ...opts,
        coordinatorArgs: [...(opts.coordinatorArgs ?? []), ...rules],
        frontierArgs: [...(opts.frontierArgs ?? []), ...rules],
        fetcherArgs: [...(opts.fetcherArgs ?? []), ...rules],
      };
      const regionOf = opts.regionOf ?? (() => REGION);
      // The servers of a role's region: REGION's, or another region's of `services.otherRegions`.
      const servicesOf = (id: string): RoleOptions => {
        const region = regionOf(id);
        if (region === REGION) return services;
        const other = services.regions[region];
        if (!other) throw new Error(`${id} is in ${region}, which has no servers (ServicesOptions.otherRegions)`);
        return { nats: other.nats, redis: other.redis, region };
      };
      const coordinator = await harness.coordinator(services, opts.coordinatorArgs, {
        netns: netnsOf("coordinator-1"),
        listenHost: opts.listenHost,
      });
      const frontiers = new Map<string, Proc>();
      const fetchers = new Map<string, Proc>();
      const dataDirs = new Map<string, string>();
      const roles: Roles = {
        services,
        coordinator,
        frontiers,
        fetchers,
        procs: () => [roles.coordinator.proc, ...(roles.standby ? [roles.standby.proc] : []), ...frontiers.values(), ...fetchers.values()],
        dataDirOf: (id) => dataDirs.get(id),
        netnsOf,
        async startCoordinator() {
          roles.coordinator = await harness.coordinator(services, opts.coordinatorArgs, {
            netns: netnsOf("coordinator-1"),
            listenHost: opts.listenHost,
          });
          return roles.coordinator;
        },
        async startFrontier(id) {
          if (!dataDirs.has(id)) dataDirs.set(id, tempDir());
          const since = Date.now();
          const p = harness.frontier({
            ...servicesOf(id),
            id,
            dataDir: dataDirs.get(id)!,
            args: opts.frontierArgs,
            netns: netnsOf(id),
            listenHost: opts.listenHost,
          });
          frontiers.set(id, p);
          await roles.coordinator.waitForNode(id, { since, procs: [p] });
          return p;
        },
        async startFetcher(id, runtime = "bun") {
          const since = Date.now();
          const args = [...(opts.fetcherArgs ?? []), ...(opts.fetcherArgsOf?.(id) ?? [])];
          const p = harness.fetcher({
            ...servicesOf(id),
            id,
            web: opts.web,
            runtime,
            args,
            netns: netnsOf(id),
            listenHost: opts.listenHost,
            direct: opts.directFetch,
          });
          fetchers.set(id, p);
          await roles.coordinator.waitForNode(id, { since, procs: [p] });
          return p;
        },
      };
      await Promise.all([...opts.frontiers.map((id) => roles.startFrontier(id)), ...opts.fetchers.map((id) => roles.startFetcher(id))]);
      if (opts.standbyCoordinator) {
        // Started once coordinator-1 serves (it has the lease), so coordinator-2 is the standby.
        const standby = await harness.coordinator(services, opts.coordinatorArgs, {
          id: "coordinator-2",
          token: coordinator.info.token,
          standby: true,
          netns: netnsOf("coordinator-2"),
          listenHost: opts.listenHost,
        });
        roles.standby = standby;
        roles.coordinators = new Coordinator({
          adminUrl: `${coordinator.info.adminUrl},${standby.info.adminUrl}`,
          grpcAddress: `${coordinator.info.grpcAddress},${standby.info.grpcAddress}`,
          token: coordinator.info.token,
        });
      }
      // Handoffs between nodes that joined at once: seconds on an idle box, more on a loaded one (a 3-server
      // NATS cluster replicates every node record write).
      await coordinator.waitForSettledRing(opts.frontiers, 60_000, regionOf);
      return roles;
    },

    async web(opts) {
      const web = await startTestWeb(opts);
      register(() => web.close());
      return web;
    },
    tempDir,

    netLab() {
      const lab = startNetLab();
      register(async () => lab.close());
      return lab;
    },

    async up(opts) {
      crawls(opts.web, opts.frontierArgs ?? []);
      const dir = opts.dir ?? tempDir();
      // No --allow-private-addresses: the test web's hosts are public names behind its proxy, as in production.
      const args = ["--dir", dir, "--proxy", opts.web.proxyUrl];
      if (opts.coordinators) args.push("--coordinators", String(opts.coordinators));
      if (opts.frontiers) args.push("--frontiers", String(opts.frontiers));
      if (opts.fetchers) args.push("--fetchers", String(opts.fetchers));
      if (opts.regions) args.push("--regions", String(opts.regions));
      if (opts.regionRules) args.push("--region-rules", opts.regionRules);
      if (opts.noDeno) args.push("--no-deno");
      if (opts.secure) args.push("--secure");
      const policy = [...(opts.frontierArgs ?? [])];
      if (!policy.includes("--min-gap")) policy.push("--min-gap", `${MIN_GAP_MS}ms`);
      const p = spawnProc("cluster up", ["bun", "run", "cluster", "up", ...args, "--", ...policy], { env: { ...roleEnv, ...opts.env } });
      // SIGTERM stops the whole cluster; whatever it left behind (a bug, or a launcher that died and left
      // orphans) is killed by pid, if that pid still runs the same command.
      const known = new Map<number, string>();
      const remember = () => {
        for (const pid of descendants(p.pid)) known.set(pid, commandOf(pid));
      };
      register(async () => {
        remember();
        // A process a test froze (SIGSTOP) and left frozen, by failing before it thawed it, would sit out
        // its SIGTERM until the launcher's SIGKILL: let it run so it stops as it should.
        for (const [pid, cmd] of known) if (isRunning(pid) && commandOf(pid) === cmd) process.kill(pid, "SIGCONT");
        try {
          await p.stop(25_000);
        } finally {
          // Even when the stop failed: a launcher left behind once spun its event loop for most of an hour after its
          // test timed out, taking a core from every later test.
          for (const [pid, cmd] of known) if (isRunning(pid) && commandOf(pid) === cmd) process.kill(pid, "SIGKILL");
        }
      });
      const file = join(dir, "cluster.json");
      await waitUntil(() => existsSync(file), { timeoutMs: 90_000, what: `${file} to be written`, procs: [p] });
      remember();
      // The launcher writes the file atomically (temp file + rename): it parses as soon as it exists.
      const readFile = () => JSON.parse(readFileSync(file, "utf8")) as ClusterFile;
      const info = readFile();
      const entry = (id: string) => {
        const found = readFile().processes.find((x) => x.id === id);
        if (!found) throw new Error(`cluster.json lists no process ${id}`);
        return found;
      };
      const kill = (id: string) => {
        const { pid } = entry(id);
        if (pid === null) throw new Error(`${id} is not running now`);
        process.kill(pid, "SIGKILL");
        return { pid, at: logClock() };
      };
      const waitRestarted = async (id: string, oldPid: number, timeoutMs = 60_000) => {
        let now: ProcessEntry | undefined;
        await waitUntil(
          () => {
            now = entry(id);
            return now.state === "running" && now.pid !== null && now.pid !== oldPid && isRunning(now.pid);
          },
          { timeoutMs, what: `${id} to be started again`, procs: [p], detail: () => JSON.stringify(now) },
        );
        remember();
        return now!;
      };
      return Object.assign(new Coordinator(info), { proc: p, dir, file: info, readFile, kill, waitRestarted });
    },

    services: (opts = {}) => startServices(opts, { register, tempDir }),

    async coordinator(s, args = [], who = {}) {
      const token = who.token ?? crypto.randomUUID().replace(/-/g, "");
      const host = who.netns?.address ?? who.listenHost ?? "127.0.0.1";
      const inNetns = (cmd: string[]) => (who.netns ? who.netns.exec(cmd) : cmd);
      const p = proc(
        spawnProc(
          "coordinator",
          inNetns([
            "bun",
            "coordinator/main.ts",
            "--node-id",
            who.id ?? "coordinator-1",
            ...commonFlags(s),
            "--grpc-listen",
            `${host}:0`,
            "--http-listen",
            `${host}:0`,
            "--admin-token",
            token,
            ...args,
          ]),
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
      // A standby serves /healthz and answers /readyz 503 until it takes the lease.
      const probe = who.standby ? "/healthz" : "/readyz";
      await waitUntil(async () => (await c.admin(probe)).ok, { timeoutMs: 20_000, what: `the coordinator to answer ${probe}`, procs: [p] });
      return c;
    },

    frontier(opts) {
      const policy = [...(opts.args ?? [])];
      if (!policy.includes("--min-gap")) policy.push("--min-gap", `${MIN_GAP_MS}ms`);
      // In a namespace, its APIs listen on the namespace's address, which the host's processes reach.
      const host = opts.netns?.address ?? opts.listenHost;
      const listen = host ? ["--grpc-listen", `${host}:0`, "--http-listen", `${host}:0`] : [];
      const cmd = ["bun", "frontier-node/main.ts", ...nodeFlags(opts), "--data-dir", opts.dataDir, ...listen, ...policy];
      return proc(spawnProc(opts.id, opts.netns ? opts.netns.exec(cmd) : cmd, { env: roleEnv }));
    },

    fetcher(opts) {
      const warc = join(tempDir(), "warc");
      const flags = [
        "fetch-node/main.ts",
        ...nodeFlags(opts),
        "--warc-dir",
        warc,
        ...(opts.direct ? [] : ["--proxy", opts.web.proxyUrl]),
        ...(opts.netns || opts.listenHost ? ["--http-listen", `${opts.netns?.address ?? opts.listenHost}:0`] : []),
        ...(opts.args ?? []),
      ];
      const cmd =
        opts.runtime === "deno"
          ? [
              "deno",
              "run",
              "--node-modules-dir=manual",
              "--no-lock",
              "--allow-net",
              "--allow-env",
              `--allow-read=${warc}`,
              `--allow-write=${warc}`,
              ...flags,
            ]
          : ["bun", ...flags];
      mkdirSync(warc, { recursive: true });
      return proc(spawnProc(opts.id, opts.netns ? opts.netns.exec(cmd) : cmd, { env: roleEnv }));
    },

    async setFetchAckWait(s, ms, region = REGION) {
      const nc = await connectNats([s.nats.url], "cluster-e2e");
      try {
        // The bus's own region setup, as every role runs it at start, with another ack wait: it updates the
        // existing `fetchers` consumer in place (pending deliveries included).
        const bus = new JetStreamBus(nc, { fetchAckWaitMs: ms, onError: () => {} });
        await bus.ensureRegion(region, PARTITIONS);
        await bus.close();
      } finally {
        await nc.close();
      }
    },
  };
  return harness;
}

/**
 * The fault suite's one scenario, parameterised by the fault: a cluster of 2 frontier and 2 fetch nodes
 * (each its own process, tests/e2e/cluster/harness.ts) crawls a synthetic web; once about a third of the
 * expected pages are fetched, `inject` breaks something (kills and restarts a server); then the crawl must
 * finish. What a run measures is what an SRE would ask of the fault, read from outside where it can be
 * (the test web's own request log):
 *
 *   - missing: expected pages never fetched (nothing queued may be lost);
 *   - twice: pages (and /sitemap.xml probes) fetched more than once, and `inFlightAtFault`, the tasks the frontier nodes had out
 *     (issued, result not applied) just before the fault: what a fault may cost again at most;
 *   - violations: politeness, on server-side times, with no tolerance (min gap and 10x fetch time);
 *   - stalls: for each host, the idle time across the outage beyond the outage itself and the host's gap
 *     (how much longer than necessary a host waited);
 *   - blankErrors: log lines whose error says nothing (the `error="Error: "` of a Redis restart).
 *
 * The judge is the test web's log, read off this process's clock: a test web kept off the CPU between
 * writing a response and reading the clock logs the response's end late and the gap after it short
 * (measured: a 63 ms "fetch" of a page served in 1 ms, and gaps 16 ms short of the min gap, with the
 * cluster's processes at this process's priority on 2 cores). So every process of the cluster runs below
 * this one's CPU priority (`yieldCpuToTheWeb`); that cannot hide impoliteness, since whatever delays a
 * crawler process only makes its gaps longer.
 *
 * Each test file is one row of the suite (tests/faults/README.md). The size of the crawl is the suite's one
 * knob: `FAULTS_SIZE=long` (what `bun run bench:faults` sets) crawls a web eight times larger for longer; the
 * default is the short form CI runs. With `FAULTS_REPORT=FILE` set, a run also writes its numbers to FILE as
 * JSON (the bench's table reads them), whatever its assertions then say.
 */
import { expect } from "bun:test";
import { FrontierClient } from "../../adapters/grpc/index.ts";
import { writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { freeze, thaw } from "../support/freeze.ts";
import type { Netns } from "../support/netns.ts";
import { logClock } from "../testweb/index.ts";
import type { RequestRecord, TestWeb, TestWebOptions } from "../testweb/index.ts";
import { ownerOf, REGION, type Coordinator, type RingView } from "../e2e/cluster/coordinator.ts";
import {
  fetchCounts,
  MIN_GAP_MS,
  missing,
  pageRequests,
  probeRequests,
  repeated,
  useCluster,
  waitForIdle,
  waitUntil,
  type ClusterHarness,
  type NodeView,
  type Roles,
  type RolesOptions,
  type ServicesOptions,
} from "../e2e/cluster/harness.ts";

export { useCluster };

/** When the fault began and when what it broke was back (for a restart: the server accepts clients again). */
export interface FaultWindow {
  killedAt: number;
  backAt: number;
}

export interface FaultRun {
  web: TestWeb;
  roles: Roles;
  window: FaultWindow;
  expected: ReadonlySet<string>;
  missing: string[];
  twice: Record<string, number>;
  inFlightAtFault: number;
  violations: string[];
  /** Hosts whose wait across the outage exceeded the outage, their gap and `slackMs`, with by how much. */
  stalls: HostWait[];
  /** The longest wait of a host across the outage, against what it was allowed (undefined: no host spanned it). */
  longestWait?: HostWait;
  blankErrors: string[];
  /** Every node's counters at the end, summed over nodes of a role. */
  counters: { frontier: Record<string, number>; fetcher: Record<string, number> };
}

export interface FaultScenario {
  services?: ServicesOptions;
  /** Flags of the roles beyond the suite's (e.g. the coordinator's `--death-timeout`). */
  roles?: Pick<RolesOptions, "coordinatorArgs" | "standbyCoordinator" | "frontierArgs" | "fetcherArgs" | "fetcherArgsOf">;
  /**
   * Hosts the row serves beside the synthetic web (e.g. one that holds a request open). They are not
   * seeded and not among the expected pages: the row seeds them when it needs them and checks them itself.
   */
  extraHosts?: TestWebOptions["extraHosts"];
  /** Runs once every role has joined, before the seeds (e.g. a consumer setting the roles would reset). */
  prepare?(roles: Roles): Promise<void>;
  /**
   * Breaks something; resolves with when it broke and when it was back. `web` is the test web being
   * crawled, for a fault that waits on the crawl (e.g. pages fetched while a server is down).
   */
  inject(roles: Roles, web: TestWeb): Promise<FaultWindow>;
  /** Reconnecting, a retry and a dispatch after the outage, beyond its gap, that a host may wait. Default 5 s. */
  slackMs?: number;
  /**
   * The frontier nodes' `--min-gap`, and the gap the run is judged by. Default MIN_GAP_MS, at which the
   * suite's 768 pages take about 7 s on an idle box: a row whose fault lasts seconds while the crawl goes on
   * at full speed (a fetch node dead until the ack wait, a handoff settling) slows the crawl so that pages
   * are still left when the fault is over, however fast the machine.
   */
  minGapMs?: number;
  /**
   * The crawl may be over by the time the fault ends: for a fault the crawl goes on through (one NATS
   * server of three), finishing meanwhile is that. Default false: pages must be left when the fault is
   * over, so the recovery itself (a restarted node resuming, a reconnect) is what fetches them.
   */
  mayFinishDuringFault?: boolean;
  /**
   * Roles (by id: `coordinator-1`, `frontier-1`, `fetch-2`...) that run each in a network namespace of
   * their own (tests/support/netns.ts), so the row can cut their links (`roles.netnsOf(id)`,
   * `partitionFor`). nats-server, redis-server and the test web then listen each on an address of their
   * own that every namespace reaches (`serverAddresses`), so a cut can spare some of them; so do the APIs of
   * the roles outside a namespace, all on one more.
   */
  netns?: readonly string[];
  /**
   * Two regions instead of one: REGION keeps frontier-1 and fetch-1, `region-2` (SECOND_REGION) gets
   * frontier-2, fetch-2 and the odd-numbered hosts, each region with its own nats-server and redis-server,
   * the two servers joined by a gateway (a supercluster, as a multi-region fleet runs). Each nats-server
   * runs in a network namespace of its own (region-2's: `roles.services.regions[SECOND_REGION].natsNetns`),
   * reached by the roles through the namespace's veth, so a row can cut the gateway alone: region-2's
   * namespace cut from region-1's server address (`serverAddresses(roles, web).nats`).
   */
  twoRegions?: boolean;
}

export const SECOND_REGION = "region-2";

/** Region-2's hosts in a two-region row: the odd-numbered ones (`site1.test`, `site3.test`...). */
export function secondRegionHosts(hosts: number): string[] {
  return Array.from({ length: hosts }, (_, i) => `site${i}.test`).filter((_, i) => i % 2 === 1);
}

/**
 * The politeness the nodes were told (their min gap, the default multiplier 10), judged with no tolerance.
 * (Spelled out, so the check reads the same whether or not the checker still takes a tolerance: a strict
 * checker has none to give.)
 */
function strict(minGapMs: number) {
  return { minGapMs, gapMultiplier: 10, toleranceMs: 0 };
}

/** One wait of a host across the outage: between its last request before the fault and its next one. */
export interface HostWait {
  host: string;
  waitedMs: number;
  allowedMs: number;
  /**
   * Where the wait lay: when the request before it ended, after the fault began, and when the next one
   * started, after the server was back; so a stall says whether the time went in the outage or after it.
   */
  lastEndedAfterFaultMs: number;
  nextStartedAfterBackMs: number;
}

/** How much the crawl is: hosts and pages of the synthetic web, and how long each phase may take. */
export interface SuiteSize {
  name: "short" | "long";
  hosts: number;
  pagesPerHost: number;
  /** Bound of the wait for a third of the pages, then for the rest after the fault. */
  toAThirdMs: number;
  afterFaultMs: number;
}

/**
 * The short form (CI): a few hundred pages, enough for the fault to land mid-crawl on every node, about a
 * minute a row. The long form (`FAULTS_SIZE=long`, `bun run bench:faults`): 120 hosts, about 6,000 pages.
 */
export const SIZES: Record<SuiteSize["name"], SuiteSize> = {
  short: { name: "short", hosts: 24, pagesPerHost: 30, toAThirdMs: 90_000, afterFaultMs: 180_000 },
  long: { name: "long", hosts: 120, pagesPerHost: 48, toAThirdMs: 240_000, afterFaultMs: 420_000 },
};

export const SIZE = suiteSize(process.env.FAULTS_SIZE);

function suiteSize(name: string | undefined): SuiteSize {
  if (name === undefined || name === "") return SIZES.short;
  const size = SIZES[name as SuiteSize["name"]];
  if (!size) throw new Error(`FAULTS_SIZE must be one of ${Object.keys(SIZES).join(", ")}, not "${name}"`);
  return size;
}

/** A row's test timeout: the longest a run may take at this size, start and teardown included. */
export const ROW_TIMEOUT_MS = SIZE.toAThirdMs + SIZE.afterFaultMs + 150_000;

export async function crawlThroughFault(cluster: ClusterHarness, scenario: FaultScenario): Promise<FaultRun> {
  // A network lab only for rows that cut links: before the servers, which listen on its addresses.
  const lab = scenario.netns?.length || scenario.twoRegions ? cluster.netLab() : undefined;
  // One address per server, and one for the APIs of the roles outside a namespace (nodes dial each other).
  const listenOn = lab && { nats: lab.serverAddress(), redis: lab.serverAddress(), web: lab.serverAddress(), roles: lab.serverAddress() };
  const namespaces = new Map((scenario.netns ?? []).map((id) => [id, lab!.namespace()]));
  const web = await cluster.web({
    ...(listenOn ? { hostname: listenOn.web } : {}),
    hosts: SIZE.hosts,
    pagesPerHost: SIZE.pagesPerHost,
    linksPerPage: 6,
    pageBytes: 1500,
    extraHosts: scenario.extraHosts,
  });
  const seeds = Array.from({ length: SIZE.hosts }, (_, i) => web.url(`site${i}.test`));
  const expected = web.expectedPages(seeds);
  const minGapMs = scenario.minGapMs ?? MIN_GAP_MS;
  if (scenario.roles?.frontierArgs?.includes("--min-gap")) throw new Error("a fault row gives its gap as minGapMs, not --min-gap");
  const twoRegions = scenario.twoRegions
    ? {
        natsNetns: lab!.namespace(),
        otherRegions: [{ name: SECOND_REGION, natsNetns: lab!.namespace() }],
        regionOf: (id: string) => (id.endsWith("-2") ? SECOND_REGION : REGION),
        regionRules: `${SECOND_REGION}=${secondRegionHosts(SIZE.hosts).join(",")}`,
      }
    : undefined;
  const roles = await cluster.roles({
    web,
    frontiers: ["frontier-1", "frontier-2"],
    fetchers: ["fetch-1", "fetch-2"],
    services: listenOn
      ? { ...scenario.services, listenOn, otherRegions: twoRegions?.otherRegions, natsNetns: twoRegions?.natsNetns }
      : scenario.services,
    netnsOf: (id) => namespaces.get(id),
    listenHost: listenOn?.roles,
    regionOf: twoRegions?.regionOf,
    regionRules: twoRegions?.regionRules,
    ...scenario.roles,
    frontierArgs: [...(scenario.roles?.frontierArgs ?? []), "--min-gap", `${minGapMs}ms`],
  });
  yieldCpuToTheWeb(roles);
  await scenario.prepare?.(roles);
  await roles.coordinator.seed(seeds);
  await waitUntil(() => pageRequests(web).length >= expected.pages.size / 3, {
    timeoutMs: SIZE.toAThirdMs,
    what: "a third of the expected pages to be fetched",
    procs: roles.procs(),
    detail: async () =>
      `${pageRequests(web).length} of ${expected.pages.size} pages fetched; totals ${JSON.stringify(await roles.coordinator.stats())}`,
  });
  // Tasks out just before the fault: the coordinator's total is up to a heartbeat old and misses tasks
  // issued since, so the frontier nodes are asked themselves too (seen: 6 in the total, 9 live).
  const inFlightAtFault = Math.max((await roles.coordinator.stats()).inFlight, await liveInFlight(roles));
  const window = await scenario.inject(roles, web);
  yieldCpuToTheWeb(roles); // whatever the fault started again
  // The coordinator after the fault (a row may have killed and started it again; with a standby, whichever
  // of the two holds the lease now).
  const c = roles.coordinators ?? roles.coordinator;
  // The fault landed mid-crawl: pages were still to be fetched when it began, and, unless the row says
  // the crawl may finish during it, when it ended.
  const fetchedBeforeFault = pageRequests(web).filter((r) => r.startedAt < window.killedAt);
  expect(missing(expected.pages, fetchCounts(fetchedBeforeFault).keys()).length).toBeGreaterThan(0);
  if (!scenario.mayFinishDuringFault) expect(pageRequests(web).length).toBeLessThan(expected.pages.size);

  await waitUntil(() => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
    timeoutMs: SIZE.afterFaultMs,
    what: "every expected page after the fault",
    procs: roles.procs(),
    detail: () => stuckHosts(c, web, expected.pages),
  });
  await waitForIdle(c, web, { timeoutMs: 60_000, procs: roles.procs() });

  const pages = pageRequests(web);
  const nodes = await c.nodes();
  const waits = waitsAcross(web.requests, window, { slackMs: scenario.slackMs ?? 5_000, minGapMs });
  const run: FaultRun = {
    web,
    roles,
    window,
    expected: expected.pages,
    missing: missing(expected.pages, fetchCounts(pages).keys()),
    // A host's /sitemap.xml probe is asked once like a page: one asked again counts as fetched twice.
    twice: repeated([...pages, ...probeRequests(web)]),
    inFlightAtFault,
    violations: web.violations(strict(minGapMs)).map((v) => v.message),
    stalls: waits.filter((w) => w.waitedMs > w.allowedMs),
    longestWait: waits.reduce<HostWait | undefined>(
      (worst, w) => (!worst || w.waitedMs - w.allowedMs > worst.waitedMs - worst.allowedMs ? w : worst),
      undefined,
    ),
    blankErrors: blankErrorLines(roles),
    counters: { frontier: sumCounters(nodes, "frontier"), fetcher: sumCounters(nodes, "fetcher") },
  };
  if (process.env.FAULTS_REPORT) writeFileSync(process.env.FAULTS_REPORT, JSON.stringify(reportOf(run)));
  return run;
}

/**
 * Freezes process `pid` (SIGSTOP, until every thread is stopped) for `ms` as the log clock counts, then
 * thaws it (SIGCONT): a process that stops answering without dying (a long GC pause, a hung disk, a VM
 * migration). `during` runs while it is frozen (a check that the rest went on); whatever it throws, the
 * process is thawed before the error goes on, so a failed row leaves nothing stopped for the teardown.
 */
export async function freezeFor(pid: number, ms: number, during?: (frozenAt: number) => Promise<void>): Promise<FaultWindow> {
  await freeze(pid);
  const killedAt = logClock();
  try {
    await during?.(killedAt);
    await Bun.sleep(Math.max(0, ms - (logClock() - killedAt)));
  } finally {
    thaw(pid);
  }
  return { killedAt, backAt: logClock() };
}

/** The addresses a namespaced role dials for each server (a row cuts some of them): see `FaultScenario.netns`. */
export function serverAddresses(roles: Roles, web: TestWeb): { nats: string; redis: string; web: string } {
  return { nats: new URL(roles.services.nats.url).hostname, redis: new URL(roles.services.redis.url).hostname, web: web.hostname };
}

/**
 * Cuts namespace `ns` from `addresses` (every address when undefined) for `ms` as the log clock counts,
 * then restores the link: a network partition (silent: packets vanish, nobody is told). `during` runs
 * while the link is cut; whatever it throws, the link is restored first, so a failed row leaves nothing
 * cut for the teardown.
 */
export async function partitionFor(
  ns: Netns,
  addresses: readonly string[] | undefined,
  ms: number,
  during?: (cutAt: number) => Promise<void>,
): Promise<FaultWindow> {
  ns.cut(addresses);
  const killedAt = logClock();
  try {
    await during?.(killedAt);
    await Bun.sleep(Math.max(0, ms - (logClock() - killedAt)));
  } finally {
    ns.restore();
  }
  return { killedAt, backAt: logClock() };
}

/** What the bench's table shows of a run (`FAULTS_REPORT`). */
export interface RunReport {
  size: SuiteSize["name"];
  pages: number;
  distinct: number;
  expected: number;
  /** Pages fetched more than once. */
  fetchedTwice: number;
  /** Fetches beyond each page's first (a page fetched three times counts 2): what the bound is on. */
  extraFetches: number;
  inFlightAtFault: number;
  outageMs: number;
  longestWait?: HostWait;
  stalledHosts: number;
  violations: number;
  missing: number;
  blankErrors: number;
}

export function reportOf(run: FaultRun): RunReport {
  const pages = pageRequests(run.web);
  return {
    size: SIZE.name,
    pages: pages.length,
    distinct: fetchCounts(pages).size,
    expected: run.expected.size,
    fetchedTwice: Object.keys(run.twice).length,
    extraFetches: extraFetches(run),
    inFlightAtFault: run.inFlightAtFault,
    outageMs: run.window.backAt - run.window.killedAt,
    longestWait: run.longestWait,
    stalledHosts: run.stalls.length,
    violations: run.violations.length,
    missing: run.missing.length,
    blankErrors: run.blankErrors.length,
  };
}

/** For a crawl that stopped short: the missing pages and what the admin API says of each of their hosts. */
async function stuckHosts(c: Coordinator, web: TestWeb, expected: ReadonlySet<string>): Promise<string> {
  const left = missing(expected, fetchCounts(pageRequests(web)).keys());
  const hosts = [...new Set(left.map((u) => new URL(u).host))].slice(0, 5);
  const views = await Promise.all(
    hosts.map(
      async (h) =>
        `${h}: ${await c.admin(`/v1/hosts/${h}`).then(
          (r) => r.text(),
          (e: unknown) => String(e),
        )}`,
    ),
  );
  return [`missing: ${left.slice(0, 20).join(", ")}`, ...views].join("\n");
}

/**
 * Puts every process of the cluster (roles and servers) below this process's CPU priority, so the test
 * web in this process reads its clock when a response ends, not when a core is free again. Call it again
 * after starting a process. A process that is gone is skipped.
 */
export function yieldCpuToTheWeb(roles: Roles): void {
  for (const pid of [...roles.procs().map((p) => p.pid), ...roles.services.pids()]) {
    try {
      setPriority(pid, 10);
    } catch {
      // exited meanwhile (a killed server, a node that died): nothing to lower
    }
  }
}

/**
 * For each host, the pairs of its requests that span the outage (one ended before the fault was over, the
 * next started after the fault began): the wait between them may be the outage, plus the host's gap
 * (`minGapMs` or 10x the earlier request's duration, whichever is longer), plus `slackMs`. Longer is a
 * stall. Hosts whose last request came before the fault had nothing left to fetch.
 */
export function waitsAcross(
  requests: readonly RequestRecord[],
  window: FaultWindow,
  { slackMs, minGapMs }: { slackMs: number; minGapMs: number },
): HostWait[] {
  const byHost = new Map<string, RequestRecord[]>();
  for (const r of requests) {
    const list = byHost.get(r.host) ?? [];
    list.push(r);
    byHost.set(r.host, list);
  }
  const outage = window.backAt - window.killedAt;
  const out: HostWait[] = [];
  for (const [host, list] of byHost) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1]!;
      const b = list[i]!;
      if (a.endedAt > window.backAt || b.startedAt < window.killedAt) continue;
      const gap = Math.max(minGapMs, 10 * (a.endedAt - a.startedAt));
      const waitedMs = b.startedAt - a.endedAt;
      out.push({
        host,
        waitedMs,
        allowedMs: outage + gap + slackMs,
        lastEndedAfterFaultMs: Math.round(a.endedAt - window.killedAt),
        nextStartedAfterBackMs: Math.round(b.startedAt - window.backAt),
      });
    }
  }
  return out;
}

/**
 * Log lines of every role whose error says nothing: an empty message, or only that it had none (what
 * errorFields writes for a bare `new Error()`; a cause may be bare, the error itself must not be). JSON
 * lines are read as JSON; text lines (`error="Name: message"`) by their error field.
 */
export function blankErrorLines(roles: Roles): string[] {
  const says = (message: unknown) => typeof message === "string" && message.trim() !== "" && !/with no message$/.test(message);
  const blank = (line: string): boolean => {
    if (line.startsWith("{")) {
      try {
        // An error logged as its message alone (a string) says what it says.
        const error = (JSON.parse(line) as { error?: string | { message?: unknown } }).error;
        return error !== undefined && !says(typeof error === "string" ? error : error.message);
      } catch {
        return false;
      }
    }
    const text = /\berror="([^"]*)"/.exec(line)?.[1];
    return text !== undefined && !says(text.replace(/^[A-Za-z]*: ?/, ""));
  };
  return roles.procs().flatMap((p) =>
    p
      .output()
      .split("\n")
      .filter(blank)
      .map((line) => `${p.name}: ${line.slice(0, 300)}`),
  );
}

function sumCounters(nodes: readonly NodeView[], role: NodeView["role"]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of nodes) {
    if (n.role !== role) continue;
    for (const [k, v] of Object.entries(n.counters)) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/**
 * Fetches beyond each page's first, summed: a task in flight at the fault can cost one extra fetch, so the
 * bound is on these, not on the pages (a page fetched three times is two extra fetches, and counted so).
 */
export function extraFetches(run: Pick<FaultRun, "twice">): number {
  let extra = 0;
  for (const n of Object.values(run.twice)) extra += n - 1;
  return extra;
}

/** The common verdict: nothing lost, at most one extra fetch per task in flight at the fault, polite, no host stalled, every error said. */
export function expectNothingLost(run: FaultRun): void {
  expect(run.missing).toEqual([]);
  expect(extraFetches(run)).toBeLessThanOrEqual(run.inFlightAtFault);
  expect(run.violations).toEqual([]);
  expect(run.stalls).toEqual([]);
  expect(run.blankErrors).toEqual([]);
}

/** The hosts among `requests` that `node` owns in `ring`: those of a killed frontier node that could have had a fetch out. */
export function askedHostsOwnedBy(requests: readonly RequestRecord[], ring: RingView, node: string): Set<string> {
  return new Set([...new Set(requests.map((r) => r.host))].filter((host) => ownerOf(ring, host) === node));
}

/**
 * The verdict for a frontier node killed mid-crawl, with what it can cost counted exactly: a host has one
 * fetch in flight at a time (out, or its result received and not yet committed), so a page fetched twice
 * is on one of `hosts` (the node's hosts asked before the kill), one per host at most, each fetched twice;
 * `exempt` pages (results the node had not replicated) come on top of that. Then `expectNothingLost`.
 */
export function expectRefetchesOnlyInFlight(run: FaultRun, hosts: ReadonlySet<string>, exempt: ReadonlySet<string> = new Set()): void {
  const twice = Object.keys(run.twice);
  expect(twice.filter((url) => !hosts.has(new URL(url).host))).toEqual([]);
  const perHost = new Map<string, number>();
  for (const url of twice.filter((u) => !exempt.has(u))) perHost.set(new URL(url).host, (perHost.get(new URL(url).host) ?? 0) + 1);
  expect([...perHost].filter(([, n]) => n > 1)).toEqual([]);
  expect(Object.values(run.twice).every((n) => n === 2)).toBe(true);
  expectNothingLost({ ...run, inFlightAtFault: hosts.size + exempt.size });
}

/** One line for the log of a run: what the fault cost (the suite's table row). */
export function describeRun(name: string, run: FaultRun): string {
  const r = reportOf(run);
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const longest = r.longestWait ? `, longest wait across it ${s(r.longestWait.waitedMs)} s (allowed ${s(r.longestWait.allowedMs)} s)` : "";
  return `${name}: outage ${s(r.outageMs)} s, ${r.pages} page requests, ${r.distinct} distinct pages (${r.expected} expected), fetched twice ${r.fetchedTwice} (${r.extraFetches} extra fetches; in flight at the fault ${r.inFlightAtFault}), violations ${r.violations}, stalled hosts ${r.stalledHosts}${longest}`;
}

/** Tasks out now, summed over every live frontier node's own count (its GetStats, not its last heartbeat). */
export async function liveInFlight(roles: Roles): Promise<number> {
  const frontiers = (await roles.coordinator.nodes()).filter((n) => n.role === "frontier" && n.state === "live");
  const counts = await Promise.all(
    frontiers.map(async (n) => {
      const client = new FrontierClient(n.grpcAddress, { deadlineMs: 5_000 });
      try {
        return (await client.getStats()).inFlight;
      } finally {
        client.close();
      }
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

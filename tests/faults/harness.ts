/**
 * The fault suite's one scenario, parameterised by the fault: a cluster of 2 frontier and 2 fetch nodes
 * (each its own process, tests/e2e/cluster/harness.ts) crawls a synthetic web; once about a third of the
 * expected pages are fetched, `inject` breaks something (kills and restarts a server); then the crawl must
 * finish. What a run measures is what an SRE would ask of the fault, read from outside where it can be
 * (the test web's own request log):
 *
 *   - missing: expected pages never fetched (nothing queued may be lost);
 *   - twice: pages fetched more than once, and `inFlightAtFault`, the tasks the frontier nodes had out
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
 * Each test file is one row of the suite (tests/faults/README.md).
 */
import { expect } from "bun:test";
import { setPriority } from "node:os";
import type { RequestRecord, TestWeb } from "../testweb/index.ts";
import {
  fetchCounts,
  MIN_GAP_MS,
  missing,
  pageRequests,
  repeated,
  useCluster,
  waitForIdle,
  waitUntil,
  type ClusterHarness,
  type NodeView,
  type Roles,
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
  stalls: Stall[];
  blankErrors: string[];
  /** Every node's counters at the end, summed over nodes of a role. */
  counters: { frontier: Record<string, number>; fetcher: Record<string, number> };
}

/**
 * A host that waited too long across the outage: its wait, what was allowed, and where the wait lay (when
 * its request before the wait ended, after the fault began; when the next one started, after the server was
 * back), so a failure says whether the time was lost during the outage or after it.
 */
export interface Stall {
  host: string;
  waitedMs: number;
  allowedMs: number;
  lastEndedAfterFaultMs: number;
  nextStartedAfterBackMs: number;
}

export interface FaultScenario {
  services?: ServicesOptions;
  /**
   * Breaks something; resolves with when it broke and when it was back. `web` is the test web being
   * crawled, for a fault that waits on the crawl (e.g. pages fetched while a server is down).
   */
  inject(roles: Roles, web: TestWeb): Promise<FaultWindow>;
  /** Reconnecting, a retry and a dispatch after the outage, beyond its gap, that a host may wait. Default 5 s. */
  slackMs?: number;
}

/**
 * The politeness the nodes were told (MIN_GAP_MS, the default multiplier 10), judged with no tolerance.
 * (A variable, not a literal, so the check reads the same whether or not the checker still takes a
 * tolerance: a strict checker has none to give.)
 */
const STRICT = { minGapMs: MIN_GAP_MS, gapMultiplier: 10, toleranceMs: 0 };

/** Hosts and pages: a few hundred pages, enough for the fault to land mid-crawl on every node. */
const HOSTS = 24;
const PAGES_PER_HOST = 30;

export async function crawlThroughFault(cluster: ClusterHarness, scenario: FaultScenario): Promise<FaultRun> {
  const web = await cluster.web({ hosts: HOSTS, pagesPerHost: PAGES_PER_HOST, linksPerPage: 6, pageBytes: 1500 });
  const seeds = Array.from({ length: HOSTS }, (_, i) => web.url(`site${i}.test`));
  const expected = web.expectedPages(seeds);
  const roles = await cluster.roles({
    web,
    frontiers: ["frontier-1", "frontier-2"],
    fetchers: ["fetch-1", "fetch-2"],
    services: scenario.services,
  });
  yieldCpuToTheWeb(roles);
  const c = roles.coordinator;
  await c.seed(seeds);
  await waitUntil(() => pageRequests(web).length >= expected.pages.size / 3, {
    timeoutMs: 90_000,
    what: "a third of the expected pages to be fetched",
    procs: roles.procs(),
  });
  // Tasks out just before the fault (the totals are at most a heartbeat old).
  const inFlightAtFault = (await c.stats()).inFlight;
  const window = await scenario.inject(roles, web);
  yieldCpuToTheWeb(roles); // whatever the fault started again
  expect(pageRequests(web).length).toBeLessThan(expected.pages.size);

  await waitUntil(() => missing(expected.pages, fetchCounts(pageRequests(web)).keys()).length === 0, {
    timeoutMs: 180_000,
    what: "every expected page after the fault",
    procs: roles.procs(),
    detail: () => stuckHosts(c, web, expected.pages),
  });
  await waitForIdle(c, web, { timeoutMs: 60_000, procs: roles.procs() });

  const pages = pageRequests(web);
  const nodes = await c.nodes();
  return {
    web,
    roles,
    window,
    expected: expected.pages,
    missing: missing(expected.pages, fetchCounts(pages).keys()),
    twice: repeated(pages),
    inFlightAtFault,
    violations: web.violations(STRICT).map((v) => v.message),
    stalls: stallsAcross(web.requests, window, scenario.slackMs ?? 5_000),
    blankErrors: blankErrorLines(roles),
    counters: { frontier: sumCounters(nodes, "frontier"), fetcher: sumCounters(nodes, "fetcher") },
  };
}

/** For a crawl that stopped short: the missing pages and what the admin API says of each of their hosts. */
async function stuckHosts(c: Roles["coordinator"], web: TestWeb, expected: ReadonlySet<string>): Promise<string> {
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
 * For each host, the pair of its requests that spans the outage (one ended before the fault was over, the
 * next started after the fault began): the wait between them may be the outage, plus the host's gap
 * (MIN_GAP_MS or 10x the earlier request's duration, whichever is longer), plus `slackMs`. Longer is a
 * stall. Hosts whose last request came before the fault had nothing left to fetch.
 */
export function stallsAcross(requests: readonly RequestRecord[], window: FaultWindow, slackMs: number): Stall[] {
  const byHost = new Map<string, RequestRecord[]>();
  for (const r of requests) {
    const list = byHost.get(r.host) ?? [];
    list.push(r);
    byHost.set(r.host, list);
  }
  const outage = window.backAt - window.killedAt;
  const out: Stall[] = [];
  for (const [host, list] of byHost) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < list.length; i++) {
      const a = list[i - 1]!;
      const b = list[i]!;
      if (a.endedAt > window.backAt || b.startedAt < window.killedAt) continue;
      const gap = Math.max(MIN_GAP_MS, 10 * (a.endedAt - a.startedAt));
      const waitedMs = b.startedAt - a.endedAt;
      const allowedMs = outage + gap + slackMs;
      if (waitedMs > allowedMs)
        out.push({
          host,
          waitedMs,
          allowedMs,
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
        const error = (JSON.parse(line) as { error?: { message?: unknown } }).error;
        return error !== undefined && !says(error.message);
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

/** The common verdict: nothing lost, at most what was in flight fetched twice, polite, no host stalled, every error said. */
export function expectNothingLost(run: FaultRun): void {
  expect(run.missing).toEqual([]);
  expect(Object.keys(run.twice).length).toBeLessThanOrEqual(run.inFlightAtFault);
  expect(run.violations).toEqual([]);
  expect(run.stalls).toEqual([]);
  expect(run.blankErrors).toEqual([]);
}

/** One line for the log of a run: what the fault cost (the suite's table row). */
export function describeRun(name: string, run: FaultRun): string {
  const outage = ((run.window.backAt - run.window.killedAt) / 1000).toFixed(1);
  const pages = [...fetchCounts(pageRequests(run.web)).keys()].length;
  return `${name}: outage ${outage} s, ${pages} distinct pages (${run.expected.size} expected), fetched twice ${Object.keys(run.twice).length} (in flight at the fault ${run.inFlightAtFault}), violations ${run.violations.length}, stalled hosts ${run.stalls.length}${run.stalls.length ? ` (longest wait ${(Math.max(...run.stalls.map((x) => x.waitedMs)) / 1000).toFixed(1)} s, allowed ${(run.stalls[0]!.allowedMs / 1000).toFixed(1)} s)` : ""}`;
}

/**
 * Crawl jobs' maxPages on the local cluster (NATS, Redis, a coordinator, two frontier nodes, two fetch
 * nodes, the test web): two jobs with small limits over overlapping hosts, far fewer pages than the web has,
 * crawl at once. Their page tasks are handed out against page budgets (engine/frontier/job-budgets.ts), so
 * each gets at most maxPages pages whatever node hands them out. Judged from outside: the test web's log
 * (every page request it served is one record of exactly one job's feed, no URL twice), the feed records
 * (each fetched one names its response record, read back from the fetch node's WARC file), and the admin
 * API (each job ends `done` / `max-pages`); no host is asked impolitely across both jobs.
 * The second test kills a frontier node (SIGKILL) mid-crawl, waits until the coordinator finds it dead
 * (and reclaims its unspent budget), and starts it again with its id and data dir; the third kills the
 * coordinator holding the lease mid-crawl, and a standby takes over.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { captureProblem } from "../../support/stored-captures.ts";
import { logClock, type TestWeb } from "../../testweb/index.ts";
import { ownerOf, pageRequests, repeated, urlOf, useCluster, waitUntil, type Coordinator, type Roles } from "./harness.ts";

const cluster = useCluster();

/** The processes still running (a test's own kill is no failure to watch for). */
const running = (roles: Roles) => roles.procs().filter((p) => p.exit() === undefined);
const GAP_MS = 300;
const LIMITS = { small: 40, large: 90 } as const;
const HOSTS = Array.from({ length: 6 }, (_, i) => `site${i}.test`);
const VICTIM = "frontier-1";

interface JobView {
  id: string;
  state: string;
  reason: string | null;
  pages: number;
}

interface FeedRecord {
  job: string;
  url: string;
  outcome: string;
  warc: { file: string; offset: number; length: number } | null;
}

async function createJob(c: Coordinator, body: unknown): Promise<void> {
  const res = await c.admin("/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

async function readFeed(c: Coordinator, id: string): Promise<FeedRecord[]> {
  const out: FeedRecord[] = [];
  for (let after = "0"; ; ) {
    const page = await c.adminJson<{ records: FeedRecord[]; next: string }>(`/v1/jobs/${id}/pages?limit=100&after=${after}`);
    if (page.records.length === 0) return out;
    for (const r of page.records) out.push(r);
    after = page.next;
  }
}

/** A WARC file's path: each fetch node writes under `warcRoot/<its id>`, and the file's name starts with that id. */
function warcPath(warcRoot: string, file: string): string {
  const node = /^(.+)-\d{14}-\d{5}\.warc\.gz$/.exec(file)?.[1] ?? "";
  return join(warcRoot, node, file);
}

/** Two jobs over overlapping hosts: small (site0-2) and large (site3-5, and a page each of site1 and site2). */
async function createJobs(c: Coordinator, web: TestWeb): Promise<void> {
  const inner = (host: string) => [...web.expectedPages([web.url(host)]).pages].find((u) => u !== web.url(host))!;
  await createJob(c, { id: "small", seeds: HOSTS.slice(0, 3).map((h) => web.url(h)), scope: "host", maxPages: LIMITS.small });
  await createJob(c, {
    id: "large",
    seeds: [...HOSTS.slice(3).map((h) => web.url(h)), inner("site1.test"), inner("site2.test")],
    scope: "host",
    maxPages: LIMITS.large,
    weight: 2,
  });
}

/** Waits until both jobs ended and the web has been quiet for a while (results of the last tasks applied). */
async function waitForBothEnded(c: Coordinator, web: TestWeb, roles: Roles): Promise<Record<string, JobView>> {
  const jobs = async () => Object.fromEntries((await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs.map((j) => [j.id, j]));
  await waitUntil(
    async () =>
      Object.values(await jobs())
        .filter((j) => j.id !== "default")
        .every((j) => j.state === "done"),
    {
      timeoutMs: 150_000,
      what: "both jobs to end",
      procs: running(roles),
      detail: async () => JSON.stringify(await jobs()),
    },
  );
  const lastRequest = () => Math.max(0, ...web.requests.map((r) => Math.max(r.startedAt, r.endedAt)));
  await waitUntil(() => logClock() - lastRequest() > 3_000, {
    timeoutMs: 30_000,
    what: "the test web to be quiet",
    procs: running(roles),
  });
  return jobs();
}

/** The judgement both tests share (see the module comment). */
/**
 * `fault`: a node was killed. Then a page in flight may be fetched twice (one a host at most), each fetch a
 * result, a unit and a feed record of its own, and a result given to the feed whose batch never committed
 * stays there uncounted (docs/architecture.md, "The feed"): the feed is then judged as a bound, not as the count.
 */
async function judge(c: Coordinator, web: TestWeb, roles: Roles, warcRoot: string, opts: { fault: boolean }): Promise<void> {
  const byId = await waitForBothEnded(c, web, roles);
  const pages = pageRequests(web);
  // A page is fetched twice only when it was in flight at a fault: at most one a host then.
  const twice = repeated(pages);
  expect(Object.values(twice).every((n) => n === 2)).toBe(true);
  expect(Object.keys(twice).length).toBeLessThanOrEqual(opts.fault ? HOSTS.length : 0);
  const served = new Set(pages.map(urlOf));
  // A quiet web is not yet every result applied: the results of a node killed and started again wait for it
  // to take its partitions back (seen once in the full suite on a busy box: 49 pages of its hosts served and
  // not yet in a feed when the web had been quiet 3 s). Each served page must reach a feed, so wait for that.
  const inFeeds = async () => new Set([...(await readFeed(c, "small")), ...(await readFeed(c, "large"))].map((r) => r.url));
  const allInFeeds = async () => {
    const have = await inFeeds();
    return [...served].every((u) => have.has(u));
  };
  await waitUntil(allInFeeds, {
    timeoutMs: 30_000,
    what: "every page the web served to be in a job's feed",
    procs: running(roles),
  });
  const feedUrls: string[] = [];
  for (const id of ["small", "large"] as const) {
    const records = await readFeed(c, id);
    // Never past the limit, by the feed and by the web's log (each record is one URL the web served).
    expect(records.length).toBeLessThanOrEqual(LIMITS[id]);
    expect(records.every((r) => r.job === id && served.has(r.url))).toBe(true);
    const counted = async () => (await c.adminJson<JobView>(`/v1/jobs/${id}`)).pages;
    if (opts.fault) expect(await counted()).toBeLessThanOrEqual(LIMITS[id]);
    else
      await waitUntil(async () => (await counted()) === records.length, {
        timeoutMs: 15_000,
        what: `job ${id}'s pages to equal its feed records`,
        procs: running(roles),
      });
    console.log(`job ${id}: maxPages ${LIMITS[id]}, feed records ${records.length}, pages ${await counted()}`);
    expect(byId[id]).toMatchObject({ state: "done", reason: "max-pages" });
    const problems: string[] = [];
    for (const r of records.filter((r) => r.outcome === "fetched")) {
      const problem = r.warc ? captureProblem(warcPath(warcRoot, r.warc.file), r.url, r.warc) : `${r.url}: no warc location`;
      if (problem) problems.push(problem);
    }
    expect(problems).toEqual([]);
    for (const r of records) feedUrls.push(r.url);
  }
  // Every page the web served belongs to exactly one job's feed: the web saw at most 40 + 90 pages.
  if (!opts.fault) expect(new Set(feedUrls).size).toBe(feedUrls.length);
  expect(new Set(feedUrls)).toEqual(served);
  expect(served.size).toBeLessThanOrEqual(LIMITS.small + LIMITS.large);
  expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
}

describe("cluster: crawl jobs with maxPages", () => {
  test("two jobs with maxPages over overlapping hosts across two frontier nodes each get exactly their limit, politely", async () => {
    const web = await cluster.web({ hosts: HOSTS.length, pagesPerHost: 80, linksPerPage: 6, pageBytes: 1200 });
    const warcRoot = cluster.tempDir();
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
      fetcherArgsOf: (id) => ["--warc-dir", join(warcRoot, id)],
    });
    const c = roles.coordinator;
    const ring = await c.ring();
    // Both nodes own hosts of both jobs: the budgets are shared across nodes, not split by them.
    expect(
      new Set(HOSTS.slice(0, 3).map((h) => ownerOf(ring, h))).size + new Set(HOSTS.slice(3).map((h) => ownerOf(ring, h))).size,
    ).toBeGreaterThan(2);
    await createJobs(c, web);
    await judge(c, web, roles, warcRoot, { fault: false });
    // Without faults no unit is lost: each job gets exactly its limit.
    for (const id of ["small", "large"] as const) expect((await readFeed(c, id)).length).toBe(LIMITS[id]);
  }, 240_000);

  test("the same with a frontier node killed mid-crawl, found dead, and restarted: never past the limits", async () => {
    const web = await cluster.web({ hosts: HOSTS.length, pagesPerHost: 80, linksPerPage: 6, pageBytes: 1200 });
    const warcRoot = cluster.tempDir();
    const roles = await cluster.roles({
      web,
      frontiers: [VICTIM, "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      coordinatorArgs: ["--death-timeout", "3s"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
      fetcherArgsOf: (id) => ["--warc-dir", join(warcRoot, id)],
    });
    const c = roles.coordinator;
    await createJobs(c, web);
    await waitUntil(() => pageRequests(web).length >= 30, { timeoutMs: 60_000, what: "30 pages served", procs: running(roles) });
    const victim = roles.frontiers.get(VICTIM)!;
    victim.signal("SIGKILL");
    expect((await victim.waitExit(10_000)).signal).toBe("SIGKILL");
    await waitUntil(async () => (await c.nodes()).find((n) => n.id === VICTIM)?.state === "dead", {
      timeoutMs: 30_000,
      what: `${VICTIM} to be found dead`,
      procs: running(roles),
    });
    await roles.startFrontier(VICTIM);
    await judge(c, web, roles, warcRoot, { fault: true });
    // The budget the dead node held unspent went back to the pool for the live one.
    expect(c.proc.output()).toMatch(/reclaimed the page budgets of a frontier node no longer live.*frontier-1/);
  }, 240_000);
  test("the same with the coordinator holding the lease killed mid-crawl: the standby ends both jobs at exactly their limits", async () => {
    const web = await cluster.web({ hosts: HOSTS.length, pagesPerHost: 80, linksPerPage: 6, pageBytes: 1200 });
    const warcRoot = cluster.tempDir();
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      standbyCoordinator: true,
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
      fetcherArgsOf: (id) => ["--warc-dir", join(warcRoot, id)],
    });
    await createJobs(roles.coordinator, web);
    await waitUntil(() => pageRequests(web).length >= 30, { timeoutMs: 60_000, what: "30 pages served", procs: running(roles) });
    roles.coordinator.proc.signal("SIGKILL");
    expect((await roles.coordinator.proc.waitExit(10_000)).signal).toBe("SIGKILL");
    expect(pageRequests(web).length).toBeLessThan(LIMITS.small + LIMITS.large); // mid-crawl
    // The budgets are in the cluster's bucket and enforced by the frontier nodes: the lease moving changes
    // nothing; the standby, now holding the lease, ends the jobs.
    await judge(roles.coordinators!, web, roles, warcRoot, { fault: false });
    for (const id of ["small", "large"] as const) expect((await readFeed(roles.coordinators!, id)).length).toBe(LIMITS[id]);
  }, 240_000);
});

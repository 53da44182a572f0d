/**
 * Crawl jobs across a frontier node's crash: two jobs sharing a host crawl at once, one frontier node is
 * killed with SIGKILL mid-crawl and started again with its id and data dir. Judged from the test web's
 * log and the admin API: every page URL the web served is counted once in its job's `pages` (the counts
 * live in the partitions' store rows, committed with the results) and is one record of its job's feed,
 * both jobs finish, and no host was asked impolitely across the two jobs and the restart.
 */
import { describe, expect, test } from "bun:test";
import { logClock } from "../../testweb/index.ts";
import { fetchCounts, ownerOf, pageRequests, urlOf, useCluster, waitForIdle, waitUntil, type Coordinator } from "./harness.ts";

const cluster = useCluster();
const GAP_MS = 400;
const VICTIM = "frontier-1";

interface JobView {
  id: string;
  state: string;
  reason: string | null;
  pages: number;
  queued: number;
}

async function createJob(c: Coordinator, body: unknown): Promise<void> {
  const res = await c.admin("/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
}

/** Every feed record of a job, through GET /v1/jobs/{id}/pages, 50 a page. */
async function readFeed(c: Coordinator, id: string): Promise<Array<{ url: string }>> {
  const out: Array<{ url: string }> = [];
  for (let after = "0"; ; ) {
    const page = await c.adminJson<{ records: Array<{ url: string }>; next: string }>(`/v1/jobs/${id}/pages?limit=50&after=${after}`);
    if (page.records.length === 0) return out;
    for (const r of page.records) out.push(r);
    after = page.next;
  }
}

const jobs = async (c: Coordinator) => (await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs;

describe("cluster: crawl jobs and a frontier node's crash", () => {
  test("a frontier node killed mid-crawl and restarted: each job's pages still count every page served once", async () => {
    const web = await cluster.web({ hosts: 8, pagesPerHost: 16, linksPerPage: 6, pageBytes: 1500 });
    const roles = await cluster.roles({
      web,
      frontiers: [VICTIM, "frontier-2"],
      fetchers: ["fetch-1", "fetch-2"],
      coordinatorArgs: ["--death-timeout", "60s"],
      frontierArgs: ["--min-gap", `${GAP_MS}ms`],
    });
    const c = roles.coordinator;
    const ring = await c.ring();
    const hosts = Array.from({ length: 8 }, (_, i) => `site${i}.test`);
    const victimHosts = hosts.filter((h) => ownerOf(ring, h) === VICTIM);
    expect(victimHosts.length).toBeGreaterThan(0);
    const shared = [...web.expectedPages([web.url("site0.test")]).pages].find((u) => u !== web.url("site0.test"))!;
    await createJob(c, { id: "left", seeds: hosts.slice(0, 4).map((h) => web.url(h)), scope: "host", weight: 2 });
    await createJob(c, { id: "right", seeds: [...hosts.slice(4).map((h) => web.url(h)), shared], scope: "host" });

    await waitUntil(() => pageRequests(web, victimHosts).length >= 12, {
      timeoutMs: 30_000,
      what: `12 pages of ${VICTIM}'s hosts`,
      procs: roles.procs(),
    });
    const victim = roles.frontiers.get(VICTIM)!;
    victim.signal("SIGKILL");
    expect((await victim.waitExit(10_000)).signal).toBe("SIGKILL");
    const killedAt = logClock();
    await roles.startFrontier(VICTIM);
    await waitForIdle(c, web, { timeoutMs: 120_000, procs: roles.procs() });
    expect(pageRequests(web, victimHosts).some((r) => r.startedAt > killedAt)).toBe(true);

    // Every page URL the web served is one page of one job, counted once whatever was in flight at the kill.
    const served = fetchCounts(pageRequests(web));
    await waitUntil(async () => (await jobs(c)).reduce((n, j) => n + j.pages, 0) === served.size, {
      timeoutMs: 15_000,
      what: `the jobs' pages to sum to the ${served.size} page URLs served`,
      procs: roles.procs(),
    });
    const byId = Object.fromEntries((await jobs(c)).map((j) => [j.id, j]));
    expect(byId["default"]!.pages).toBe(0);
    const rightOnly = new Set(pageRequests(web, hosts.slice(4)).map(urlOf));
    expect(byId["right"]!.pages).toBeGreaterThanOrEqual(rightOnly.size);
    expect(byId["left"]!.pages + byId["right"]!.pages).toBe(served.size);
    await waitUntil(async () => (await jobs(c)).filter((j) => j.id !== "default").every((j) => j.state === "done"), {
      timeoutMs: 15_000,
      what: "both jobs to finish",
      procs: roles.procs(),
    });
    for (const id of ["left", "right"])
      expect(byId[id] && (await c.adminJson<JobView>(`/v1/jobs/${id}`))).toMatchObject({ reason: "finished", queued: 0 });
    // The feed: one record per page result of each job, across the kill (a result published before the kill
    // and given again after it is stored once), read back through the pages route.
    const urls: string[] = [];
    for (const id of ["left", "right"]) {
      const records = await readFeed(c, id);
      expect(records.length).toBe(byId[id]!.pages);
      for (const r of records) urls.push(r.url);
    }
    expect(new Set(urls).size).toBe(urls.length);
    expect(new Set(urls)).toEqual(new Set(served.keys()));
    expect(web.violations({ minGapMs: GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 240_000);
});

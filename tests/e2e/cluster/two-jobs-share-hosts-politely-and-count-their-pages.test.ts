/**
 * Crawl jobs on the local cluster (`cluster up`: NATS, Redis, coordinator, two frontier nodes, two fetch
 * nodes, the test web): two jobs share a host. Judged from outside, by the test web's own request log and
 * the admin API: a paused job's host gets no request until it is resumed while the other job's hosts go
 * on; a cancelled job's host gets none after the cancel (one already on its way at most); every page
 * request the web saw is counted once, in exactly one job's `pages`; no host is asked impolitely across
 * both jobs; the job that drained ends as finished, the cancelled one says so; bad input changes nothing.
 * The feed (read through GET /v1/jobs/{id}/pages) holds one record per page result of each job, and each
 * fetched page's record names the WARC record of its response, read back from the fetch node's file.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { captureProblem } from "../../support/stored-captures.ts";
import { logClock } from "../../testweb/index.ts";
import { MIN_GAP_MS, pageRequests, repeated, useCluster, waitForIdle, waitUntil, type Coordinator } from "./harness.ts";

const cluster = useCluster();
/** Watched for requests after a pause or a cancel: many times the gap, and several heartbeats. */
const WATCH_MS = 3_000;

interface JobView {
  id: string;
  number: number;
  state: string;
  reason: string | null;
  pages: number;
  errors: number;
  queued: number;
}

async function post(c: Coordinator, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await c.admin(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const job = async (c: Coordinator, id: string) => c.adminJson<JobView>(`/v1/jobs/${id}`);

/** A WARC file's path in the cluster's dir: its name starts with the fetch node that wrote it. */
function warcPath(dir: string, file: string): string {
  const node = /^(.+)-\d{14}-\d{5}\.warc\.gz$/.exec(file)?.[1] ?? "";
  return join(dir, node, "warc", file);
}

interface FeedRecord {
  job: string;
  url: string;
  outcome: string;
  contentType: string | null;
  region: string;
  warc: { file: string; offset: number; length: number } | null;
}

/** Every feed record of a job, `limit` a page, following the cursor until a page comes back empty. */
async function readFeed(c: Coordinator, id: string, limit: number): Promise<FeedRecord[]> {
  const out: FeedRecord[] = [];
  let after = "";
  for (;;) {
    const page = await c.adminJson<{ records: FeedRecord[]; next: string }>(
      `/v1/jobs/${id}/pages?limit=${limit}${after ? `&after=${after}` : ""}`,
    );
    if (page.records.length === 0) return out;
    for (const r of page.records) out.push(r);
    after = page.next;
  }
}

describe("cluster: crawl jobs", () => {
  test("two jobs sharing a host: pause, resume and cancel act on one job only, every page is counted once in its job, all polite", async () => {
    const web = await cluster.web({ hosts: 3, pagesPerHost: 25, linksPerPage: 4, pageBytes: 1500 });
    const c = await cluster.up({ web });
    // site1 is both jobs': alpha starts at its home page, beta at another of its pages.
    const site1Page = [...web.expectedPages([web.url("site1.test")]).pages].find((u) => u !== web.url("site1.test"))!;
    const alpha = await post(c, "/v1/jobs", { id: "alpha", seeds: [web.url("site0.test"), web.url("site1.test")], scope: "host" });
    expect(alpha.status).toBe(201);
    expect(alpha.json).toMatchObject({ id: "alpha", state: "running", seeds: { accepted: 2, rejected: [] } });
    const beta = await post(c, "/v1/jobs", { id: "beta", seeds: [web.url("site2.test"), site1Page], scope: "host", weight: 2 });
    expect(beta.status).toBe(201);
    const paused = await post(c, "/v1/jobs/beta/pause");
    const pausedAt = logClock();
    expect(paused.json.state).toBe("paused");

    // Bad input: a 4xx each, and nothing changes.
    const before = (await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs.map((j) => `${j.id}:${j.state}`);
    expect((await post(c, "/v1/jobs", { id: "Bad Id" })).status).toBe(400);
    expect((await post(c, "/v1/jobs", { id: "gamma", maxPages: -5 })).status).toBe(400);
    expect((await post(c, "/v1/jobs/nope/pause")).status).toBe(404);
    expect((await post(c, "/v1/jobs", "x".repeat(10 * 1024 * 1024))).status).toBe(413);
    expect((await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs.map((j) => `${j.id}:${j.state}`)).toEqual(before);

    // alpha crawls site0 and site1 while beta (site2, and its page of site1) is held.
    await waitUntil(() => pageRequests(web, ["site0.test"]).length >= 10 && pageRequests(web, ["site1.test"]).length >= 10, {
      timeoutMs: 30_000,
      what: "10 pages each of site0 and site1",
      procs: [c.proc],
    });
    await Bun.sleep(WATCH_MS);
    expect(web.requestsTo("site2.test").filter((r) => r.startedAt > pausedAt).length).toBeLessThanOrEqual(1);
    expect(pageRequests(web).some((r) => `http://${r.host}${r.path}` === site1Page && r.startedAt > pausedAt)).toBe(false);

    expect((await post(c, "/v1/jobs/beta/resume")).json.state).toBe("running");
    await waitUntil(() => pageRequests(web, ["site2.test"]).length >= 5, { timeoutMs: 30_000, what: "5 pages of site2", procs: [c.proc] });
    const cancelled = await post(c, "/v1/jobs/beta/cancel");
    const cancelledAt = logClock();
    expect(cancelled.json).toMatchObject({ state: "cancelled", reason: "cancelled" });

    await waitForIdle(c, web, { timeoutMs: 90_000, procs: [c.proc] });
    // After the cancel: one request already on its way to site2 at most.
    expect(web.requestsTo("site2.test").filter((r) => r.startedAt > cancelledAt + 1).length).toBeLessThanOrEqual(1);
    expect(pageRequests(web, ["site2.test"]).length).toBeLessThan(25);

    // Every page request the web saw is one page result, counted once, in one job.
    const pages = pageRequests(web);
    expect(repeated(pages)).toEqual({});
    await waitUntil(
      async () => {
        const jobs = (await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs;
        return jobs.reduce((n, j) => n + j.pages, 0) === pages.length;
      },
      { timeoutMs: 10_000, what: "the jobs' page counts to reach the web's page requests", procs: [c.proc] },
    );
    const jobs = Object.fromEntries((await c.adminJson<{ jobs: JobView[] }>("/v1/jobs")).jobs.map((j) => [j.id, j]));
    expect(jobs["default"]!.pages).toBe(0);
    expect(jobs["alpha"]!.pages).toBe(
      pageRequests(web, ["site0.test", "site1.test"]).length - (jobs["beta"]!.pages - pageRequests(web, ["site2.test"]).length),
    );
    expect(jobs["beta"]!.pages).toBeGreaterThanOrEqual(pageRequests(web, ["site2.test"]).length);
    expect(jobs["beta"]).toMatchObject({ state: "cancelled", reason: "cancelled", queued: 0 });
    await waitUntil(async () => (await job(c, "alpha")).state === "done", { timeoutMs: 10_000, what: "alpha to end", procs: [c.proc] });
    expect(await job(c, "alpha")).toMatchObject({ state: "done", reason: "finished", queued: 0 });
    // The feed holds one record per page result of each job: paged by cursor, the same records every time.
    const served = new Set(pages.map((r) => `http://${r.host}${r.path}`));
    const feedUrls: string[] = [];
    for (const id of ["alpha", "beta"]) {
      const all = await readFeed(c, id, 1000);
      expect(all.length).toBe(jobs[id]!.pages);
      expect(all.every((r) => r.job === id && r.region === "region-1")).toBe(true);
      // The test web's pages are HTML: a fetched one says so, and names where its WARC record is.
      const fetched = all.filter((r) => r.outcome === "fetched");
      expect(fetched.every((r) => r.contentType?.startsWith("text/html") === true)).toBe(true);
      // Each fetched record's `warc` location holds that URL's response record, read back from the file.
      const problems: string[] = [];
      for (const r of fetched) {
        const problem = r.warc ? captureProblem(warcPath(c.dir, r.warc.file), r.url, r.warc) : `${r.url}: no warc location`;
        if (problem) problems.push(problem);
      }
      expect(problems).toEqual([]);
      expect(all.some((r) => r.outcome === "fetched")).toBe(true);
      const paged = await readFeed(c, id, 7);
      expect(paged).toEqual(all);
      for (const r of all) feedUrls.push(r.url);
    }
    expect(new Set(feedUrls).size).toBe(feedUrls.length);
    expect(new Set(feedUrls)).toEqual(served);
    const bad = await c.admin("/v1/jobs/alpha/pages?after=x");
    expect(bad.status).toBe(400);
    // One politeness state per host whatever its jobs: judged across both from the web's log.
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
  }, 180_000);
});

/**
 * `crawl --http` without a socket (crawlApp): the same routes and shapes as the coordinator's admin API and
 * a frontier node's /metrics, over one frontier; tokens as in the cluster.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import { TokenSet } from "../core/auth/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { FetchResult, FetchTask } from "../core/model/index.ts";
import { hostKeyOf } from "../core/url/index.ts";
import { Frontier, FrontierStore } from "../engine/frontier/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { ADMIN_OPENAPI } from "../coordinator/admin-openapi.ts";
import { shapeProblems } from "../tests/support/schema-shape.ts";
import { crawlApp } from "./http.ts";
import { crawlJobParts, type CrawlJobParts } from "./test-support.ts";

const opened: CrawlJobParts[] = [];
afterAll(async () => {
  for (const p of opened) await p.close();
});

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
const ADMIN = "crawl-admin-token-000001";
const METRICS = "crawl-metrics-token-0001";

async function crawled(opts: { admin?: string[]; metrics?: string[] } = {}) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    // The /sitemap.xml probe (the default) is one more task per host; sitemaps.test.ts covers it. These tests step through pages.
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, sitemaps: "robots" },
    partitions: 256,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  const seed = (u: string) => ({ url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0 });
  await frontier.addSeeds([seed("http://a.test/"), seed("http://a.test/x")]);
  const answer = (t: FetchTask, status: number): FetchResult => ({
    taskId: t.taskId,
    kind: "response",
    taskKind: t.kind,
    url: t.url,
    host: t.host,
    partition: t.partition,
    status,
    startedAt: clock.now,
    endedAt: clock.now + 50,
    linksFound: 0,
    bytes: t.kind === "page" ? 2048 : 0,
    ...(t.kind === "robots" ? { robots: { verdict: "allow-all" as const } } : {}),
    ...(t.kind === "page" ? { contentType: "text/html", warc: { file: "crawl-1.warc.gz", offset: t.url.length * 100, length: 321 } } : {}),
  });
  for (let i = 0; i < 3; i++) {
    for (const t of frontier.nextTasks(10)) await frontier.complete(answer(t, 200), []);
    clock.now += 100;
  }
  const parts = crawlJobParts(frontier, () => clock.now);
  opened.push(parts);
  const app = crawlApp({
    listen: { host: "127.0.0.1", port: 0 },
    jobs: parts.jobs.service,
    feed: parts.feed,
    adminTokens: new TokenSet(opts.admin ?? []),
    metricsTokens: new TokenSet(opts.metrics ?? []),
    frontier,
    partitions: 256,
    running: () => true,
    startedAt: T0,
    now: () => clock.now,
    log: silentLog,
  });
  return { app, frontier, clock };
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("crawl --http", () => {
  test("crawl http - /metrics carries the frontier's counters, gauges and histograms under the frontier node's names", async () => {
    const { app } = await crawled();
    const res = await app.request("/metrics");
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const name of [
      "crawler_fetch_pages_total",
      "crawler_fetch_bytes_total",
      "crawler_fetch_status_200_total",
      "crawler_queued",
      "crawler_in_flight",
      "crawler_hosts_throttled",
      "crawler_largest_gap_seconds",
      "crawler_fetch_duration_seconds_bucket",
      "crawler_fetch_page_bytes_count",
      "crawler_frontier_queue_wait_seconds_sum",
    ])
      expect({ name, present: new RegExp(`^${name}[{ ]`, "m").test(text) }).toEqual({ name, present: true });
    expect(text).toContain('crawler_fetch_pages_total{node="crawl",region="local"} 2');
  });

  test("crawl http - the dashboard data has the documented shape, as a cluster of one node without a ring", async () => {
    const { app } = await crawled();
    const d: any = await (await app.request("/v1/dashboard")).json();
    expect(shapeProblems(d, ADMIN_OPENAPI.components.schemas.Dashboard, ADMIN_OPENAPI)).toEqual([]);
    expect(d.source).toBe("crawl");
    expect(d.ring).toBeNull();
    expect(d.nodes).toHaveLength(1);
    expect(d.nodes[0]).toMatchObject({ id: "crawl", role: "crawl", state: "running", pages: 2 });
    expect(d.totals).toMatchObject({ pages: 2, bytes: 4096 });
    expect(d.jobs).toEqual({
      rows: [{ id: "default", state: "running", pages: 2, maxPages: 0, queued: 0, errors: 0, reason: null }],
      more: 0,
    });
    expect(await (await app.request("/dashboard/config.json")).json()).toEqual({ tokenRequired: false, source: "crawl" });
  });

  test("crawl http - /metrics carries each job's pages, errors and queued with a job label, as the coordinator's", async () => {
    const { app, clock } = await crawled();
    await app.request("/v1/jobs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "news", seeds: ["http://b.test/"] }),
    });
    clock.now += 5_000;
    const text = await (await app.request("/metrics")).text();
    expect(text).toContain('crawler_job_pages_total{job="default",node="crawl",region="local"} 2\n');
    expect(text).toContain('crawler_job_queued{job="news",node="crawl",region="local"} 1\n');
    expect(text.match(/^# TYPE crawler_job_pages_total counter$/gm)).toHaveLength(1);
  });

  test("crawl http - the dashboard lists the crawl's jobs, paused and with their limits", async () => {
    const { app, clock } = await crawled();
    const post = (path: string, body: unknown) =>
      app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    expect((await post("/v1/jobs", { id: "news", seeds: ["http://b.test/"], maxPages: 5 })).status).toBe(201);
    await post("/v1/jobs/news/pause", {});
    // The frontier recounts its jobs' queues at most every 5 s (Frontier.jobReport), as a frontier node reports them.
    clock.now += 5_000;
    const d: any = await (await app.request("/v1/dashboard")).json();
    expect(d.jobs.rows.map((j: any) => [j.id, j.state, j.pages, j.maxPages, j.queued])).toEqual([
      ["default", "running", 2, 0, 0],
      ["news", "paused", 0, 5, 1],
    ]);
  });

  test("crawl http - host show and url explain answer the coordinator's shapes", async () => {
    const { app } = await crawled();
    const host: any = await (await app.request("/v1/hosts/a.test")).json();
    expect(Object.keys(host.host).sort()).toEqual(Object.keys(ADMIN_OPENAPI.components.schemas.HostInfo.properties).sort());
    expect(host.host).toMatchObject({ host: "a.test", region: "local", owner: "crawl", fetches: 3, queued: 0 });
    const url: any = await (await app.request(`/v1/urls/explain?url=${encodeURIComponent("http://a.test/x")}`)).json();
    expect(Object.keys(url.explanation).sort()).toEqual(Object.keys(ADMIN_OPENAPI.components.schemas.UrlExplanation.properties).sort());
    expect(url.explanation).toMatchObject({ normalized: "http://a.test/x", seen: true, state: "fetched", lastStatus: 200 });

    const unknown = await app.request("/v1/hosts/never.test");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe("not_found");
    expect((await app.request("/v1/urls/explain?url=not%20a%20url")).status).toBe(400);
    expect((await app.request("/v1/urls/explain")).status).toBe(400);
  });

  test("crawl http - /v1/captures answers where a URL's captures are, as the admin API does; bad input is a 400", async () => {
    const { app } = await crawled({ admin: [ADMIN] });
    const captures: any = await (await app.request(`/v1/captures?url=${encodeURIComponent("http://A.test/x#frag")}`, bearer(ADMIN))).json();
    expect(captures).toEqual([
      {
        timestamp: expect.stringMatching(/^2026-11-29T12:00:00\.\d{3}Z$/),
        status: 200,
        contentType: "text/html",
        digest: null,
        job: "default",
        warc: { file: "crawl-1.warc.gz", offset: "http://a.test/x".length * 100, length: 321 },
      },
    ]);
    expect(Object.keys(captures[0]).sort()).toEqual(Object.keys(ADMIN_OPENAPI.components.schemas.Capture.properties).sort());
    expect(await (await app.request(`/v1/captures?url=${encodeURIComponent("http://b.test/")}`, bearer(ADMIN))).json()).toEqual([]);
    expect((await app.request(`/v1/captures?url=${encodeURIComponent("http://a.test/x")}`)).status).toBe(401);
    for (const query of ["", "?url=nope", "?url=http%3A%2F%2Fa.test%2Fx&limit=0"]) {
      const res = await app.request(`/v1/captures${query}`, bearer(ADMIN));
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
    }
  });

  test("crawl http - with tokens: the API needs the admin token, /metrics the metrics token, the page and health stay open", async () => {
    const { app } = await crawled({ admin: [ADMIN], metrics: [METRICS] });
    expect((await app.request("/v1/dashboard")).status).toBe(401);
    expect((await app.request("/v1/dashboard", bearer("wrong-token-000000000"))).status).toBe(401);
    expect((await app.request("/v1/dashboard", bearer(METRICS))).status).toBe(401);
    expect((await app.request("/v1/dashboard", bearer(ADMIN))).status).toBe(200);
    expect((await app.request("/v1/hosts/a.test")).status).toBe(401);
    expect((await app.request("/metrics")).status).toBe(401);
    expect((await app.request("/metrics", bearer(ADMIN))).status).toBe(401);
    expect((await app.request("/metrics", bearer(METRICS))).status).toBe(200);
    for (const path of ["/dashboard", "/dashboard/app.js", "/healthz", "/readyz"])
      expect({ path, status: (await app.request(path)).status }).toEqual({ path, status: 200 });
    expect(await (await app.request("/dashboard/config.json")).json()).toEqual({ tokenRequired: true, source: "crawl" });
    const root = await app.request("/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/dashboard");
  });
});

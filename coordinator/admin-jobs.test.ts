/**
 * The admin API's jobs, what is the cluster's own: seeds published with the job's number, counters summed
 * from the live frontier nodes' heartbeats, the lease holder's tick ending jobs, /metrics' job series. The
 * routes' answers and errors are tests/contract/job-routes.contract.test.ts (the same against crawl --http).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Hono } from "hono";
import { TokenSet } from "../core/auth/index.ts";
import type { DiscoveredUrl } from "../core/model/index.ts";
import { partitionOf } from "../core/ring/index.ts";
import { UnavailableError } from "../core/errors/index.ts";
import { FEED_STREAM, openedOnFirstUse } from "../core/feed/index.ts";
import { adminApp } from "./admin-api.ts";
import { harness, nodeRecord, P, type Harness } from "./test-support.ts";

async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

const TOKEN = "admin-token-for-tests-0001";
const auth = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...auth, "content-type": "application/json" };

let h: Harness;
let app: Hono;
const get = (path: string) => app.request(path, { headers: auth });
const post = (path: string, body?: unknown) =>
  app.request(path, { method: "POST", headers: jsonHeaders, body: typeof body === "string" ? body : JSON.stringify(body ?? {}) });

beforeEach(async () => {
  h = await harness();
  app = adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 });
});
afterEach(async () => h.close());

/** Every seed message published to example.com's partition, as they arrive. */
function seedsOnTheBus(): DiscoveredUrl[] {
  const got: DiscoveredUrl[] = [];
  h.bus.consumeUrls("us", partitionOf("example.com", P), async (d) => {
    for (const u of d.data) got.push(u);
    await d.ack();
  });
  return got;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("admin API jobs", () => {
  test("jobs - POST /v1/jobs creates a job (201, answered as GET answers it) and publishes its seeds with its number", async () => {
    const bus = seedsOnTheBus();
    const res = await post("/v1/jobs", {
      id: "news",
      seeds: ["https://Example.com/a", "mailto:x@y.z"],
      scope: "host",
      maxPages: 200,
      maxDuration: "2h",
      weight: 3,
      allowHosts: ["Example.com"],
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({
      id: "news",
      number: 1,
      state: "running",
      reason: null,
      pages: 0,
      queued: 0,
      errors: 0,
      endedAt: null,
      maxPages: 200,
      maxDuration: "2h",
      weight: 3,
      scope: "host",
      allowHosts: ["example.com"],
      seeds: { accepted: 1, rejected: [{ url: "mailto:x@y.z", reason: "unsupported-scheme: mailto" }] },
    });
    expect(body.startedAt).toBe(new Date(h.clock.now).toISOString());
    const { seeds: _s, ...asCreated } = body;
    expect(await json(get("/v1/jobs/news"))).toEqual(asCreated);
    await until(() => bus.length > 0);
    expect(bus.map((u) => [u.url, u.job])).toEqual([["https://example.com/a", 1]]);

    // Seeds added later to the job carry its number; seeds without a job carry none (job default).
    expect(await json(post("/v1/jobs/news/seeds", { urls: ["https://example.com/b"] }))).toEqual({ accepted: 1, rejected: [] });
    await post("/v1/seeds", { urls: ["https://example.com/c"] });
    await until(() => bus.length >= 3);
    expect(bus.map((u) => [u.url, u.job])).toEqual([
      ["https://example.com/a", 1],
      ["https://example.com/b", 1],
      ["https://example.com/c", undefined],
    ]);
  });

  test("jobs - numbers are given in order, GET /v1/jobs lists default first, counters are the live frontier nodes' sums", async () => {
    await post("/v1/jobs", { id: "a" });
    await post("/v1/jobs", { id: "b", maxPages: 5 });
    const now = h.clock.now;
    await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: now, jobs: { "1": { pages: 3, errors: 1, queued: 10 } } }));
    await h.state.putNode(
      nodeRecord({
        id: "f2",
        heartbeatAt: now,
        jobs: { "1": { pages: 4, errors: 0, queued: 2 }, "2": { pages: 5, errors: 2, queued: 0 } },
      }),
    );
    // A dead node's counts are not summed (its partitions' are reported by their new owner).
    await h.state.putNode(nodeRecord({ id: "f3", heartbeatAt: now - 3_600_000, jobs: { "1": { pages: 1000, errors: 0, queued: 0 } } }));
    const list = (await json(get("/v1/jobs"))).jobs;
    expect(list.map((j: any) => [j.id, j.number, j.pages, j.errors, j.queued])).toEqual([
      ["default", 0, 0, 0, 0],
      ["a", 1, 7, 1, 12],
      ["b", 2, 5, 2, 0],
    ]);
  });
});

describe("jobs ending", () => {
  test("jobs - the leader's tick ends a job at maxPages, at maxDuration, and finished once nothing is queued twice in a row; others go on", async () => {
    await post("/v1/jobs", { id: "capped", maxPages: 10 });
    await post("/v1/jobs", { id: "timed", maxDuration: "1m" });
    await post("/v1/jobs", { id: "drains" });
    await post("/v1/jobs", { id: "busy" });
    const beat = (jobs: Record<string, { pages: number; errors: number; queued: number }>) =>
      h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now, jobs }));
    await beat({
      "1": { pages: 9, errors: 0, queued: 5 },
      "3": { pages: 4, errors: 0, queued: 0 },
      "4": { pages: 1, errors: 0, queued: 9 },
    });
    expect(await h.services.jobs.endDue()).toEqual([]);
    h.clock.now += 60_000;
    await beat({
      "1": { pages: 10, errors: 0, queued: 4 },
      "3": { pages: 4, errors: 0, queued: 0 },
      "4": { pages: 2, errors: 0, queued: 9 },
    });
    const ended = await h.services.jobs.endDue();
    expect(ended.map((j) => [j.id, j.state, j.reason]).toSorted()).toEqual([
      ["capped", "done", "max-pages"],
      ["drains", "done", "finished"],
      ["timed", "done", "max-duration"],
    ]);
    const shown = (await json(get("/v1/jobs"))).jobs.map((j: any) => [j.id, j.state, j.reason, j.endedAt !== null]);
    expect(shown).toEqual([
      ["default", "running", null, false],
      ["capped", "done", "max-pages", true],
      ["timed", "done", "max-duration", true],
      ["drains", "done", "finished", true],
      ["busy", "running", null, false],
    ]);
    expect(await h.services.jobs.endDue()).toEqual([]);
  });
});

describe("jobs in /metrics", () => {
  test("jobs - /metrics has each job's series with a job label, at most 50 of them and `other` beyond", async () => {
    for (let i = 1; i <= 55; i++) await post("/v1/jobs", { id: `j${i}` });
    const jobs: Record<string, { pages: number; errors: number; queued: number }> = {};
    for (let i = 1; i <= 55; i++) jobs[String(i)] = { pages: i, errors: 1, queued: 2 };
    await h.state.putNode(nodeRecord({ id: "f1", heartbeatAt: h.clock.now, jobs }));
    const text = await (await get("/metrics")).text();
    expect(text).toContain('crawler_cluster_job_pages_total{job="j1"} 1\n');
    expect(text).toContain('crawler_cluster_job_queued{job="j49"} 2\n');
    // default and j1..j49 keep their labels; j50..j55 are summed under other.
    expect(text).not.toContain('job="j50"');
    expect(text).toContain(`crawler_cluster_job_pages_total{job="other"} ${50 + 51 + 52 + 53 + 54 + 55}\n`);
    expect(text.match(/^crawler_cluster_job_pages_total\{/gm)).toHaveLength(51);
    expect(text.match(/^# TYPE crawler_cluster_job_pages_total counter$/gm)).toHaveLength(1);
  });
});

describe("the page feed while its stream cannot be opened", () => {
  test("jobs - GET /v1/jobs/{id}/pages answers 503 saying so while the feed's region is away, and the records once it opens", async () => {
    let down = true;
    const feed = openedOnFirstUse(async () => {
      if (down)
        throw new UnavailableError(
          `the page feed (stream ${FEED_STREAM}) cannot be opened now (JetStream system temporarily unavailable); retry shortly`,
        );
      return h.services.feed;
    });
    const away = adminApp({ ...h.services, feed }, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 });
    const res = await away.request("/v1/jobs/default/pages", { headers: auth });
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).error.message).toContain(`stream ${FEED_STREAM}) cannot be opened now`);
    down = false;
    const back = await away.request("/v1/jobs/default/pages", { headers: auth });
    expect([back.status, await back.json()]).toEqual([200, { records: [], next: "0" }]);
  });
});

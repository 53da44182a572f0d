/**
 * The job routes' contract (`/v1/jobs...`, adapters/http job-routes.ts over core/jobs JobService): one suite
 * against the coordinator's admin API (cluster state, bus and feed in memory) and `crawl --http`'s app (its
 * frontier, SqliteJobRegistry and SqlitePageFeed), asking the same requests and expecting the same answers:
 * a job created (201) is answered as GET answers it, pause/resume/cancel and what an ended job refuses
 * (409), every bad input with the same 4xx and message and nothing changed, a 10 MB body 413 over a real
 * socket, the feed paged by cursor.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Hono } from "hono";
import { API_MAX_BODY_BYTES, serveHono } from "../../adapters/http/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { TokenSet } from "../../core/auth/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { PageRecord } from "../../core/feed/index.ts";
import type { PageFeed } from "../../core/ports/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { Frontier, FrontierStore } from "../../engine/frontier/index.ts";
import { silentLog } from "../../kit/log/index.ts";
import { adminApp } from "../../coordinator/admin-api.ts";
import { harness, P } from "../../coordinator/test-support.ts";
import { crawlApp } from "../../embedded/http.ts";
import { crawlJobParts } from "../../embedded/test-support.ts";

const TOKEN = "admin-token-for-tests-0001";
const auth = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...auth, "content-type": "application/json" };
const T0 = 1_000_000;

/** One implementation of the routes, with what the suite needs to see beside its answers. */
interface Site {
  app: Hono;
  clock: { now: number };
  feed: PageFeed;
  /** Seeds that reached the crawl so far (published to the bus, or queued in the frontier). */
  seedsTaken(): number;
  /** Feeds that reached the crawl as feeds (published marked feed, or kept as a sitemap to read in the frontier). */
  feedsTaken(): number;
  close(): Promise<void>;
}

async function clusterSite(): Promise<Site> {
  const h = await harness();
  h.clock.now = T0;
  let taken = 0;
  let feeds = 0;
  h.bus.consumeUrls("us", partitionOf("example.com", P), async (d) => {
    taken += d.data.length;
    // A feed of a job arrives marked feed and carrying that job's number (news is number 1 below).
    feeds += d.data.filter((u) => u.sitemap?.feed === true && u.job === 1).length;
    await d.ack();
  });
  return {
    app: adminApp(h.services, { tokens: new TokenSet([TOKEN]), maxSeedsPerRequest: 100 }),
    clock: h.clock,
    feed: h.services.feed,
    seedsTaken: () => taken,
    feedsTaken: () => feeds,
    close: () => h.close(),
  };
}

async function crawlSite(): Promise<Site> {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: DEFAULT_POLICY,
    partitions: 256,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  const parts = crawlJobParts(frontier, () => clock.now);
  const app = crawlApp({
    listen: { host: "127.0.0.1", port: 0 },
    adminTokens: new TokenSet([TOKEN]),
    metricsTokens: new TokenSet([]),
    frontier,
    jobs: parts.jobs.service,
    feed: parts.feed,
    partitions: 256,
    running: () => true,
    startedAt: T0,
    now: () => clock.now,
    log: silentLog,
  });
  return {
    app,
    clock,
    feed: parts.feed,
    seedsTaken: () => frontier.queued,
    feedsTaken: () => frontier.sitemapsPending,
    close: () => parts.close(),
  };
}

async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
}

function contract(name: string, open: () => Promise<Site>): void {
  describe(`${name} - job routes contract`, () => {
    let site: Site;
    const get = (path: string) => site.app.request(path, { headers: auth });
    const post = (path: string, body?: unknown) =>
      site.app.request(path, { method: "POST", headers: jsonHeaders, body: typeof body === "string" ? body : JSON.stringify(body ?? {}) });
    afterEach(async () => site?.close());

    test(`${name} - POST /v1/jobs creates a job (201, answered as GET answers it), its seeds screened; more seeds later; GET /v1/jobs lists default first`, async () => {
      site = await open();
      const res = await post("/v1/jobs", {
        id: "news",
        seeds: ["https://Example.com/a", "mailto:x@y.z", "https://example.com/a"],
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
        errors: 0,
        endedAt: null,
        maxPages: 200,
        maxDuration: "2h",
        weight: 3,
        scope: "host",
        allowHosts: ["example.com"],
        seeds: {
          accepted: 1,
          rejected: [
            { url: "mailto:x@y.z", reason: "unsupported-scheme: mailto" },
            { url: "https://example.com/a", reason: expect.stringContaining("duplicate") },
          ],
        },
      });
      expect(body.startedAt).toBe(new Date(T0).toISOString());
      const { seeds: _s, ...asCreated } = body;
      const shown = await json(get("/v1/jobs/news"));
      // `queued` is the crawl's own count: the cluster's arrives with the frontier nodes' heartbeats.
      expect({ ...shown, queued: 0 }).toEqual({ ...asCreated, queued: 0 });
      await until(() => site.seedsTaken() >= 1);
      expect(await json(post("/v1/jobs/news/seeds", { urls: ["https://example.com/b"] }))).toEqual({ accepted: 1, rejected: [] });
      await until(() => site.seedsTaken() >= 2);
      expect(site.seedsTaken()).toBe(2);
      expect((await post("/v1/jobs", { id: "blogs" })).status).toBe(201);
      const list = (await json(get("/v1/jobs"))).jobs;
      expect(list.map((j: any) => `${j.id}:${j.number}:${j.state}`)).toEqual(["default:0:running", "news:1:running", "blogs:2:running"]);
    });

    test(`${name} - a job takes feeds: on POST /v1/jobs and on POST /v1/jobs/{id}/seeds, screened like seeds, read as feeds, not queued as pages`, async () => {
      site = await open();
      const res = await post("/v1/jobs", { id: "news", feeds: ["https://example.com/feed.xml", "mailto:x@y.z"] });
      expect(res.status).toBe(201);
      expect((await json(res)).seeds).toEqual({ accepted: 1, rejected: [{ url: "mailto:x@y.z", reason: "unsupported-scheme: mailto" }] });
      await until(() => site.feedsTaken() >= 1);
      expect(site.feedsTaken()).toBe(1);
      const added = await json(post("/v1/jobs/news/seeds", { urls: ["https://example.com/a"], feeds: ["https://example.com/atom.xml"] }));
      expect(added).toEqual({ accepted: 2, rejected: [] });
      await until(() => site.feedsTaken() >= 2);
      expect(site.feedsTaken()).toBe(2);
      // Feeds only: urls may be left out. A page URL and a feed URL of one request are each other's duplicates.
      expect(await json(post("/v1/jobs/news/seeds", { feeds: ["https://example.com/rss"] }))).toEqual({ accepted: 1, rejected: [] });
      const dup = await json(post("/v1/jobs/news/seeds", { urls: ["https://example.com/x"], feeds: ["https://example.com/x"] }));
      expect(dup.rejected).toEqual([{ url: "https://example.com/x", reason: expect.stringContaining("duplicate") }]);
      for (const [body, message] of [
        [{ feeds: "https://example.com/rss" }, "feeds: must be an array"],
        [{ urls: [], feeds: [] }, "urls: give at least one URL"],
        [{ feeds: [""] }, "feeds[0]: must not be empty"],
      ] as const) {
        const bad = await post("/v1/jobs/news/seeds", body);
        expect([bad.status, (await json(bad)).error.message]).toEqual([400, expect.stringContaining(message)]);
      }
    });

    test(`${name} - pause, resume and cancel change the state; an ended job takes no more changes nor seeds (409); default can be paused`, async () => {
      site = await open();
      await post("/v1/jobs", { id: "news" });
      expect((await json(post("/v1/jobs/news/pause"))).state).toBe("paused");
      expect((await json(post("/v1/jobs/news/pause"))).state).toBe("paused");
      expect((await json(get("/v1/jobs/news"))).state).toBe("paused");
      expect((await json(post("/v1/jobs/news/resume"))).state).toBe("running");
      site.clock.now += 5_000;
      const cancelled = await json(post("/v1/jobs/news/cancel"));
      expect(cancelled).toMatchObject({ state: "cancelled", reason: "cancelled", endedAt: new Date(site.clock.now).toISOString() });
      for (const action of ["pause", "resume"]) {
        const res = await post(`/v1/jobs/news/${action}`);
        expect([action, res.status, (await json(res)).error.code]).toEqual([action, 409, "failed_precondition"]);
      }
      const seeds = await post("/v1/jobs/news/seeds", { urls: ["https://example.com/"] });
      expect([seeds.status, (await json(seeds)).error.message]).toEqual([409, expect.stringContaining("has ended")]);
      expect((await json(get("/v1/jobs/news"))).state).toBe("cancelled");
      expect((await json(post("/v1/jobs/default/pause"))).state).toBe("paused");
      expect((await json(get("/v1/jobs"))).jobs[0]).toMatchObject({ id: "default", state: "paused" });
    });

    test(`${name} - bad input is the same 4xx with the same message, and changes nothing`, async () => {
      site = await open();
      await post("/v1/jobs", { id: "news", maxPages: 10 });
      const cases: Array<[string, unknown, number, string]> = [
        ["/v1/jobs", { id: "News!" }, 400, "id:"],
        ["/v1/jobs", { id: "x".repeat(41) }, 400, "id:"],
        ["/v1/jobs", { seeds: [] }, 400, "id: must be a string"],
        ["/v1/jobs", { id: "default" }, 400, "always exists"],
        ["/v1/jobs", { id: "n2", maxPages: -1 }, 400, "maxPages: must be between 0"],
        ["/v1/jobs", { id: "n2", maxPages: 1.5 }, 400, "maxPages: must be a whole number"],
        ["/v1/jobs", { id: "n2", weight: 0 }, 400, "weight: must be between 1"],
        ["/v1/jobs", { id: "n2", maxDuration: "-5m" }, 400, "maxDuration:"],
        ["/v1/jobs", { id: "n2", maxDuration: 5 }, 400, "maxDuration:"],
        ["/v1/jobs", { id: "n2", scope: "planet" }, 400, "scope:"],
        ["/v1/jobs", { id: "n2", maxDepth: -2 }, 400, "maxDepth:"],
        ["/v1/jobs", { id: "n2", allowUrls: ["re:("] }, 400, "allowUrls:"],
        ["/v1/jobs", { id: "n2", seeds: ["https://example.com/"], maxPage: 3 }, 400, 'unknown field "maxPage"'],
        ["/v1/jobs", { id: "n2", seeds: "https://example.com/" }, 400, "seeds: must be an array"],
        ["/v1/jobs", "[1]", 400, "body: must be a JSON object"],
        ["/v1/jobs", "{", 400, "not valid JSON"],
        ["/v1/jobs", { id: "news" }, 409, "exists already"],
        ["/v1/jobs/nope/pause", {}, 404, "no job nope"],
        ["/v1/jobs/nope/seeds", { urls: ["https://example.com/"] }, 404, "no job nope"],
        ["/v1/jobs/BAD_ID/cancel", {}, 400, "id:"],
        ["/v1/jobs/news/seeds", { urls: [] }, 400, "urls:"],
        ["/v1/jobs/news/seeds", { url: ["https://example.com/"] }, 400, 'unknown field "url"'],
      ];
      for (const [path, body, status, message] of cases) {
        const res = await post(path, body);
        const err = (await json(res)).error;
        expect([path, JSON.stringify(body), res.status, err.message]).toEqual([
          path,
          JSON.stringify(body),
          status,
          expect.stringContaining(message),
        ]);
      }
      const wrongType = await site.app.request("/v1/jobs", {
        method: "POST",
        headers: { ...auth, "content-type": "text/plain" },
        body: "{}",
      });
      expect([wrongType.status, (await json(wrongType)).error.message]).toEqual([
        400,
        expect.stringContaining("Content-Type: application/json"),
      ]);
      expect((await get("/v1/jobs/nope")).status).toBe(404);
      expect((await get("/v1/jobs/BAD_ID")).status).toBe(400);
      const unauthorized = await site.app.request("/v1/jobs", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(unauthorized.status).toBe(401);
      const list = (await json(get("/v1/jobs"))).jobs;
      expect(list.map((j: any) => `${j.id}:${j.state}:${j.maxPages}`)).toEqual(["default:running:0", "news:running:10"]);
      await new Promise((r) => setTimeout(r, 30));
      expect(site.seedsTaken()).toBe(0);
    });

    test(`${name} - a 10 MB body is a 413 over a real socket, and creates nothing`, async () => {
      site = await open();
      const server = await serveHono(site.app, { port: 0, maxBodyBytes: API_MAX_BODY_BYTES });
      try {
        const big = JSON.stringify({
          id: "big",
          seeds: Array.from({ length: 200_000 }, (_, i) => `https://example.com/${i}/${"x".repeat(30)}`),
        });
        expect(big.length).toBeGreaterThan(10 * 1024 * 1024 * 0.9);
        const res = await fetch(`${server.url}/v1/jobs`, { method: "POST", body: big, headers: jsonHeaders });
        expect(res.status).toBe(413);
        expect((await json(res)).error.code).toBe("payload_too_large");
        expect((await fetch(`${server.url}/v1/jobs/big`, { headers: auth })).status).toBe(404);
      } finally {
        await server.close();
      }
    });

    test(`${name} - GET /v1/jobs/{id}/pages pages through the job's records in order by cursor; bad cursors and limits are 400, an unknown job 404`, async () => {
      site = await open();
      await post("/v1/jobs", { id: "news" });
      await site.feed.publish([0, 1, 2, 3, 4].map((i) => ({ id: `t${i}`, record: record(i === 2 ? "other" : "news", i) })));
      const first = await json(get("/v1/jobs/news/pages?limit=3"));
      expect(first.records.map((r: any) => r.url)).toEqual(["http://a.test/0", "http://a.test/1", "http://a.test/3"]);
      const second = await json(get(`/v1/jobs/news/pages?after=${first.next}&limit=3`));
      expect(second.records.map((r: any) => r.url)).toEqual(["http://a.test/4"]);
      expect(await json(get(`/v1/jobs/news/pages?after=${second.next}`))).toEqual({ records: [], next: second.next });
      expect((await json(get("/v1/jobs/news/pages"))).records).toEqual([0, 1, 3, 4].map((i) => record("news", i)));
      for (const bad of ["after=-1", "after=abc", "after=1e3", "limit=0", "limit=-5", "limit=1001", "limit=x"]) {
        const res = await get(`/v1/jobs/news/pages?${bad}`);
        expect([bad, res.status, (await json(res)).error.code]).toEqual([bad, 400, "invalid_argument"]);
      }
      expect((await get("/v1/jobs/nope/pages")).status).toBe(404);
      expect((await get("/v1/jobs/Nope!/pages")).status).toBe(400);
    });
  });
}

function record(job: string, i: number): PageRecord {
  return {
    job,
    url: `http://a.test/${i}`,
    status: 200,
    outcome: "fetched",
    fetchedAt: "2026-12-04T12:00:00.000Z",
    contentType: null,
    length: i,
    digest: null,
    simhash: null,
    warc: null,
    text: null,
    linksFound: 0,
    region: "us",
  };
}

contract("admin API", clusterSite);
contract("crawl --http", crawlSite);

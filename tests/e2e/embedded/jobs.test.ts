/**
 * Crawl jobs and the feed of fetched pages on `crawl --http`, end to end: two jobs created over HTTP with
 * overlapping hosts and different page limits crawl beside the command line's seeds (job `default`), with
 * the default --max-in-flight (several hosts fetched at once); each ends `done`/`max-pages` at exactly its
 * limit (its page tasks are handed out against its page budget, embedded/page-budget.ts), the test web's
 * own log of page requests is exactly the feed's records of all jobs (one record per page result, each
 * job's in order, the same paged by any limit), and a restart of `crawl` on the same directory answers the
 * same jobs (default still paused: the web sees nothing more) and the same feed. Killed with kill -9
 * part-way and restarted, a job's pages still end at exactly its limit: the web sees, after the restart,
 * exactly the pages the killed run had not counted. Politeness across the jobs is judged on the test web's
 * log by the harness after the test.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { PageRecord } from "../../../core/feed/index.ts";
import type { RequestRecord } from "../../testweb/index.ts";
import { newsSite } from "../../testweb/index.ts";
import { crawlArgs, expectCleanExit, interrupt, pageRequests, urlOf, useHarness, waitFor, type CrawlRun, httpBase } from "./harness.ts";

const h = useHarness();

/** Default --max-in-flight; a host's gap does not grow with its (slow) answers, so its fetches follow closely. */
const IN_FLIGHT_ARGS = ["--gap-fetch-multiplier", "0", "--scope", "host", "--sitemaps", "off"];

interface JobJson {
  id: string;
  state: string;
  reason: string | null;
  pages: number;
  errors: number;
  queued: number;
  maxPages: number;
}

async function call(base: string, method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return { status: res.status, json: await res.json() };
}

async function jobs(base: string): Promise<Record<string, JobJson>> {
  const { json } = await call(base, "GET", "/v1/jobs");
  return Object.fromEntries((json.jobs as JobJson[]).map((j) => [j.id, j]));
}

/** Every record of a job's feed, paged `limit` at a time from the start. */
async function feedOf(base: string, job: string, limit: number): Promise<PageRecord[]> {
  const all: PageRecord[] = [];
  let after = "";
  for (;;) {
    const { status, json } = await call(base, "GET", `/v1/jobs/${job}/pages?limit=${limit}${after && `&after=${after}`}`);
    expect(status).toBe(200);
    if (json.records.length === 0) {
      expect(json.next).toBe(after || "0");
      return all;
    }
    for (const r of json.records as PageRecord[]) all.push(r);
    after = json.next;
  }
}

describe("crawl --http: crawl jobs and their feed", () => {
  test("two jobs on shared hosts end at their page limits; the feed holds one record per page result the web saw; both survive a restart", async () => {
    // Every answer takes 150 ms and a host's gap is 100 ms after it (no multiple of the fetch time): fetches
    // of several hosts overlap, and a job reaches its limit while others of its pages are being fetched.
    const web = await h.web({ hosts: 6, pagesPerHost: 300, faults: { slow: 1, slowMs: 150 } });
    const out = h.tempDir();
    // site5.test (job default) keeps the crawl busy while the jobs run and after they end.
    const argv = crawlArgs(web, [web.url("site5.test")], out, [...IN_FLIGHT_ARGS, "--http", "127.0.0.1:0", "--continuous"]);
    const run = h.crawl(argv, { out });
    const base = await httpBase(run);
    // Job default (the command line's seed) is paused at once: what the web sees next is the two jobs'.
    expect((await call(base, "POST", "/v1/jobs/default/pause")).json.state).toBe("paused");
    const limits = { news: 23, blogs: 17 };
    const a = await call(base, "POST", "/v1/jobs", {
      id: "news",
      seeds: ["site0.test", "site1.test", "site2.test", "site3.test"].map((host) => web.url(host)),
      scope: "host",
      maxPages: limits.news,
    });
    expect([a.status, a.json.seeds]).toEqual([201, { accepted: 4, rejected: [] }]);
    const b = await call(base, "POST", "/v1/jobs", {
      id: "blogs",
      seeds: ["site1.test", "site2.test", "site3.test", "site4.test"].map((host) => web.url(host, "/page/150")),
      scope: "host",
      maxPages: limits.blogs,
      weight: 2,
    });
    expect([b.status, b.json.number]).toEqual([201, 2]);
    let shown: Record<string, JobJson> = {};
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      shown = await jobs(base);
      if (shown.news?.state === "done" && shown.blogs?.state === "done") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const id of ["news", "blogs"] as const) {
      expect({ id, state: shown[id]!.state, reason: shown[id]!.reason }).toEqual({ id, state: "done", reason: "max-pages" });
      expect({ id, withinLimit: shown[id]!.pages <= limits[id], pages: shown[id]!.pages }).toEqual({
        id,
        withinLimit: true,
        pages: limits[id],
      });
    }

    // Nothing runs once both ended (default is paused): the web's log is final, and it is exactly the feed's
    // records of the three jobs, one per page result.
    const seenByWeb = pageRequests(web).map(urlOf);
    const feeds = {
      news: await feedOf(base, "news", 5),
      blogs: await feedOf(base, "blogs", 3),
      default: await feedOf(base, "default", 1000),
    };
    expect(feeds.news.length).toBe(shown.news!.pages);
    expect(feeds.blogs.length).toBe(shown.blogs!.pages);
    expect(feeds.news.every((r) => r.job === "news" && r.status === 200 && r.outcome === "fetched" && r.warc !== null)).toBe(true);
    const blogHosts = ["site1.test", "site2.test", "site3.test", "site4.test"];
    expect(feeds.blogs.every((r) => r.job === "blogs" && blogHosts.includes(new URL(r.url).host))).toBe(true);
    expect(feeds.default.length).toBeLessThanOrEqual(1);
    const fed = [...feeds.news, ...feeds.blogs, ...feeds.default].map((r) => r.url);
    expect(fed.toSorted()).toEqual(seenByWeb.toSorted());
    // Several pages were fetched at once (the web's log: requests open at the same time), so the limits held
    // with fetches in flight.
    expect(mostOpenAtOnce(pageRequests(web))).toBeGreaterThan(1);
    // The same records whatever the page size.
    expect(await feedOf(base, "news", 1000)).toEqual(feeds.news);

    // Restarted on the same --out: the same jobs (ended, counted) and the same feed.
    expectCleanExit((await interrupt(run)).exit);
    const again = h.crawl(argv, { out });
    const base2 = await httpBase(again);
    const after = await jobs(base2);
    for (const id of ["news", "blogs"] as const) {
      expect({ id, ...pick(after[id]!) }).toEqual({ id, ...pick(shown[id]!) });
      expect(await feedOf(base2, id, 4)).toEqual(feeds[id]);
    }
    expect(after.default!.state).toBe("paused");
    expect(pageRequests(web).length).toBe(seenByWeb.length);
    const late = await call(base2, "POST", "/v1/jobs/news/seeds", { urls: [web.url("site0.test", "/page/3")] });
    expect([late.status, late.json.error.code]).toEqual([409, "failed_precondition"]);
    // Bad input over the real listener: the admin API's answers (tests/contract/job-routes.contract.test.ts has them all).
    expect((await call(base2, "GET", "/v1/jobs/nope/pages")).status).toBe(404);
    expect((await call(base2, "GET", "/v1/jobs/news/pages?limit=-1")).status).toBe(400);
    const huge = await fetch(`${base2}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: "huge", seeds: [`https://example.com/${"x".repeat(10 * 1024 * 1024)}`] }),
    });
    expect([huge.status, ((await huge.json()) as any).error.code]).toEqual([413, "payload_too_large"]);
    expect((await call(base2, "GET", "/v1/jobs/huge")).status).toBe(404);
    expectCleanExit((await interrupt(again)).exit);
  }, 120_000);
  test("killed with kill -9 mid-crawl and restarted, a job with fetches in flight ends at exactly maxPages", async () => {
    const web = await h.web({ hosts: 8, pagesPerHost: 300, faults: { slow: 1, slowMs: 150 } });
    const out = h.tempDir();
    const hosts = Array.from({ length: 8 }, (_, i) => `site${i}.test`);
    const argv = crawlArgs(web, [web.url("site0.test")], out, [...IN_FLIGHT_ARGS, "--http", "127.0.0.1:0", "--continuous"]);
    const first = h.crawl(argv, { out });
    const base = await httpBase(first);
    expect((await call(base, "POST", "/v1/jobs/default/pause")).json.state).toBe("paused");
    const maxPages = 40;
    const created = await call(base, "POST", "/v1/jobs", {
      id: "news",
      seeds: hosts.map((host) => web.url(host)),
      scope: "host",
      maxPages,
    });
    expect([created.status, created.json.number]).toEqual([201, 1]);
    // Killed once a dozen of its pages were requested, while pages of several hosts are being answered.
    await waitFor(() => pageRequests(web).length >= 12 && pageRequests(web).filter((r) => r.endedAt === Infinity).length > 1, {
      timeoutMs: 60_000,
      what: "12 pages requested, two open",
      run: first,
    });
    first.signal("SIGKILL");
    expect((await first.waitExit(10_000)).signal).toBe("SIGKILL");
    const killedAt = Date.now();
    // What the killed run counted, read from its store: the restart may fetch only the rest.
    const counted = countedPages(out, 1);
    const requestedBefore = pageRequests(web).length;
    expect(counted).toBeLessThan(maxPages);

    const again = h.crawl(argv, { out });
    const base2 = await httpBase(again);
    let news: JobJson | undefined;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      news = (await jobs(base2)).news;
      if (news?.state === "done") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(news).toMatchObject({ state: "done", reason: "max-pages", pages: maxPages });
    // The feed: one record per page result of the restarted run, as many as the web answered it.
    const fedAfter = (await feedOf(base2, "news", 1000)).filter((r) => Date.parse(r.fetchedAt) > killedAt);
    // Nothing more runs (default is paused): the web's log is final. After the restart the web was asked for
    // exactly the pages the killed run had not counted, and the store counts exactly maxPages.
    expectCleanExit((await interrupt(again)).exit);
    const requestedAfter = pageRequests(web).filter((r) => r.startedAt > killedAt);
    expect({ requestedAfter: requestedAfter.length, total: counted + requestedAfter.length }).toEqual({
      requestedAfter: maxPages - counted,
      total: maxPages,
    });
    expect(countedPages(out, 1)).toBe(maxPages);
    expect(fedAfter.map((r) => r.url).toSorted()).toEqual(requestedAfter.map(urlOf).toSorted());
    // At least as many requests before the kill as it had counted: some may have been cut by the kill.
    expect(requestedBefore).toBeGreaterThanOrEqual(counted);
  }, 120_000);

  test("a job's feed (the feeds field of POST /v1/jobs): the posts it lists are the job's pages, in its feed; default's feed has none of them", async () => {
    const news = newsSite("news.test", 4);
    const web = await h.web({ hosts: 1, pagesPerHost: 3, linksPerPage: 2, extraHosts: { "news.test": news.behaviour } });
    const out = h.tempDir();
    // site0.test (job default) keeps the crawl going; nothing links news.test, so only the job's feed leads there.
    const run = h.crawl(crawlArgs(web, [web.url("site0.test")], out, ["--http", "127.0.0.1:0", "--continuous", "--sitemaps", "robots"]), {
      out,
    });
    const base = await httpBase(run);
    const created = await call(base, "POST", "/v1/jobs", { id: "news", feeds: [web.url("news.test", "/feed.xml")] });
    expect([created.status, created.json.seeds]).toEqual([201, { accepted: 1, rejected: [] }]);
    const posts = news.posts.map((p) => web.url("news.test", p));
    const fetched = () => pageRequests(web).map(urlOf);
    await waitFor(() => posts.every((p) => fetched().includes(p)), { timeoutMs: 60_000, what: "the feed's 4 posts fetched", run });
    // The feed was read as a feed, not as a page; each post was asked once, and each is a page result of job news.
    expect(web.requestsTo("news.test").filter((r) => r.path === "/feed.xml")).toHaveLength(1);
    let fed: PageRecord[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && fed.length < posts.length) {
      fed = await feedOf(base, "news", 100);
      if (fed.length < posts.length) await new Promise((r) => setTimeout(r, 200));
    }
    const newsPages = fetched().filter((u) => u.startsWith(web.url("news.test", "/post/")));
    expect(newsPages.toSorted()).toEqual(posts.toSorted());
    expect(fed.map((r) => r.url).toSorted()).toEqual(posts.toSorted());
    // The job's count is read at most every 5 s (crawl's job tick): wait for it to reach the posts.
    let newsJob: JobJson | undefined;
    const counted = Date.now() + 30_000;
    while (Date.now() < counted && (newsJob = (await jobs(base)).news)?.pages !== posts.length)
      await new Promise((r) => setTimeout(r, 200));
    expect(newsJob).toMatchObject({ state: "running", pages: posts.length });
    const defaults = await feedOf(base, "default", 100);
    expect(defaults.filter((r) => r.url.includes("news.test"))).toEqual([]);
    expectCleanExit((await interrupt(run)).exit);
  }, 120_000);

  test("--job: the command line's seeds belong to that job (created when new), its pages are its feed's; an ended job refuses them (exit 2)", async () => {
    const web = await h.web({ hosts: 1, pagesPerHost: 6, linksPerPage: 3 });
    const out = h.tempDir();
    const argv = crawlArgs(web, [web.url("site0.test")], out, [
      "--job",
      "site-a",
      "--http",
      "127.0.0.1:0",
      "--continuous",
      "--sitemaps",
      "off",
    ]);
    const run = h.crawl(argv, { out });
    const base = await httpBase(run);
    let site: JobJson | undefined;
    await waitFor(() => pageRequests(web).length >= 6, { timeoutMs: 60_000, what: "site0.test's 6 pages fetched", run });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      site = (await jobs(base))["site-a"];
      if (site?.pages === pageRequests(web).length && site.queued === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(site).toMatchObject({ state: "running", maxPages: 0, pages: pageRequests(web).length });
    expect((await jobs(base)).default).toMatchObject({ pages: 0 });
    const fed = await feedOf(base, "site-a", 100);
    expect(fed.map((r) => r.url).toSorted()).toEqual(pageRequests(web).map(urlOf).toSorted());
    expect((await call(base, "POST", "/v1/jobs/site-a/cancel")).json.state).toBe("cancelled");
    expectCleanExit((await interrupt(run)).exit);

    const again = await h.crawl(argv, { out }).waitExit(30_000);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("--job site-a: the job has ended (cancelled)");
  }, 120_000);
});

/** The most page requests the web had open at one time. */
function mostOpenAtOnce(requests: readonly RequestRecord[]): number {
  const edges = requests.flatMap((r) => [
    [r.startedAt, 1],
    [r.endedAt, -1],
  ]);
  // Ends before starts at the same instant: a request that ended as another began was not open with it.
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (open += d!));
  return most;
}

/** A job's page results as a stopped crawl's store counted them (frontier.sqlite job_counts). */
function countedPages(out: string, job: number): number {
  const db = new Database(join(out, "frontier.sqlite"), { readonly: true });
  try {
    return (db.query("SELECT coalesce(sum(pages), 0) AS n FROM job_counts WHERE job = ?").get(job) as { n: number }).n;
  } finally {
    db.close();
  }
}

function pick(j: JobJson) {
  return { state: j.state, reason: j.reason, pages: j.pages, errors: j.errors, maxPages: j.maxPages };
}

/**
 * Host control through `crawlctl host show|pause|resume`: pausing a host mid-crawl stops its requests
 * (at most the one already on its way may still start), `host show` reports it paused with work left,
 * resuming lets the crawl finish that host, and `host show --json` agrees with `GET /v1/hosts/:host`.
 */
import { describe, expect, test } from "bun:test";
import { fetchCounts, MIN_GAP_MS, missing, pageRequests, repeated, useCluster, waitForIdle, waitUntil } from "./harness.ts";
import { logClock } from "../../testweb/index.ts";

const cluster = useCluster();
const HOST = "site0.test";
/** How long the paused host is watched for requests: many times its gap. */
const WATCH_MS = 3_000;

interface HostInfo {
  host: string;
  owner: string;
  queued: number;
  inFlight: boolean;
  paused: boolean;
  fetches: number;
  lastStatus: number;
}

describe("cluster: pausing a host", () => {
  test("crawlctl host pause stops requests to the host until host resume, and host show reports it", async () => {
    const web = await cluster.web({ hosts: 1, pagesPerHost: 30, linksPerPage: 10, pageBytes: 2000 });
    const expected = web.expectedPages([web.url(HOST)]);
    const c = await cluster.up({ web });
    await c.seed([web.url(HOST)]);
    await waitUntil(() => pageRequests(web, [HOST]).length >= 5, { timeoutMs: 20_000, what: `5 pages of ${HOST}`, procs: [c.proc] });

    const pause = await c.crawlctl(["host", "pause", HOST, "--json"]);
    const pausedAt = logClock();
    expect(pause.code).toBe(0);
    expect(JSON.parse(pause.stdout) as HostInfo).toMatchObject({ host: HOST, paused: true });

    // Watch the paused host: a request already dispatched may still start, nothing after it.
    await Bun.sleep(WATCH_MS);
    const afterPause = web.requestsTo(HOST).filter((r) => r.startedAt > pausedAt);
    expect(afterPause.length).toBeLessThanOrEqual(1);

    const shown = await c.crawlctl(["host", "show", HOST]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^paused\s+yes$/m);
    const info = await c.crawlctlJson<HostInfo>(["host", "show", HOST]);
    expect(info).toMatchObject({ host: HOST, paused: true, inFlight: false });
    expect(info.queued).toBeGreaterThan(0);
    const http = (await c.adminJson<{ host: HostInfo }>(`/v1/hosts/${HOST}`)).host;
    expect(http).toEqual(info as typeof http);

    const resume = await c.crawlctl(["host", "resume", HOST]);
    expect(resume.code).toBe(0);
    expect(resume.stdout).toContain(`${HOST} resumed`);
    expect(resume.stdout).toMatch(/^paused\s+no$/m);
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });

    expect(missing(expected.pages, fetchCounts(pageRequests(web)).keys())).toEqual([]);
    expect(repeated(pageRequests(web))).toEqual({});
    expect(web.violations({ minGapMs: MIN_GAP_MS, gapMultiplier: 10 }).map((v) => v.message)).toEqual([]);
    const done = await c.crawlctlJson<HostInfo>(["host", "show", HOST]);
    expect(done).toMatchObject({ paused: false, queued: 0, inFlight: false, lastStatus: 200 });
    expect(done).toEqual((await c.adminJson<{ host: HostInfo }>(`/v1/hosts/${HOST}`)).host);
  }, 90_000);
});

/**
 * `crawl`'s jobs (embedded/jobs.ts) over a real frontier and jobs.sqlite: a job with a page limit ends
 * `done`/`max-pages` after exactly that many page results when tasks run one at a time, also when the
 * crawl was restarted part-way (the trigger starts from the pages already counted), and a paused job's
 * URLs are not handed out while another job's are.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { FetchResult, FetchTask } from "../core/model/index.ts";
import { Frontier, FrontierStore } from "../engine/frontier/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { CrawlJobs } from "./jobs.ts";
import { crawlJobParts, type CrawlJobParts } from "./test-support.ts";

const opened: CrawlJobParts[] = [];
afterEach(async () => {
  for (const p of opened.splice(0)) await p.close();
});

function setup() {
  const clock = { now: Date.UTC(2026, 11, 4, 12) };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, sitemaps: "off" },
    partitions: 256,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  const parts = crawlJobParts(frontier, () => clock.now);
  opened.push(parts);
  return { clock, frontier, parts };
}

function answer(t: FetchTask, now: number): FetchResult {
  return {
    taskId: t.taskId,
    kind: "response",
    taskKind: t.kind,
    url: t.url,
    host: t.host,
    partition: t.partition,
    status: 200,
    startedAt: now,
    endedAt: now + 5,
    linksFound: 0,
    bytes: t.kind === "page" ? 1000 : 0,
    ...(t.job !== undefined && { job: t.job }),
    ...(t.kind === "robots" ? { robots: { verdict: "allow-all" as const } } : { contentType: "text/html" }),
  };
}

/** Runs tasks one at a time, as `crawl --max-in-flight 1` does, until none is handed out or `most` ran; returns the page tasks' URLs. */
async function crawl(frontier: Frontier, jobs: CrawlJobs, clock: { now: number }, most = 100): Promise<string[]> {
  const pages: string[] = [];
  for (let i = 0; i < most; i++) {
    const [task] = frontier.nextTasks(1);
    if (!task) break;
    await frontier.complete(answer(task, clock.now), []);
    await jobs.afterResult(task);
    if (task.kind === "page") pages.push(task.url);
    clock.now += 10;
  }
  return pages;
}

const urls = (host: string, n: number) => Array.from({ length: n }, (_, i) => `http://${host}/p${i}`);

describe("crawl jobs", () => {
  test("crawl jobs - a job ends done/max-pages after exactly maxPages page results, one task at a time", async () => {
    const { clock, frontier, parts } = setup();
    await parts.jobs.service.create({ id: "news", seeds: urls("a.test", 10), maxPages: 4, maxDurationMs: 0, weight: 1 });
    const pages = await crawl(frontier, parts.jobs, clock);
    expect(pages).toHaveLength(4);
    const news = await parts.jobs.service.show("news");
    expect([news.job.state, news.job.reason, news.counts.pages]).toEqual(["done", "max-pages", 4]);
  });

  test("crawl jobs - after a restart part-way, the job still ends at exactly maxPages (the pages counted before count)", async () => {
    const { clock, frontier, parts } = setup();
    await parts.jobs.service.create({ id: "news", seeds: urls("a.test", 10), maxPages: 5, maxDurationMs: 0, weight: 1 });
    expect(await crawl(frontier, parts.jobs, clock, 4)).toHaveLength(3); // robots.txt, then 3 pages
    await parts.jobs.close();
    // The same directory opened again over the same frontier store, as a restarted `crawl` does.
    const again = CrawlJobs.open({
      out: parts.dir,
      frontier,
      policy: DEFAULT_POLICY,
      now: () => clock.now,
      log: silentLog,
      onSeeds: () => {},
    });
    parts.jobs = again;
    expect(await crawl(frontier, again, clock)).toHaveLength(2);
    const news = await again.service.show("news");
    expect([news.job.state, news.job.reason, news.counts.pages]).toEqual(["done", "max-pages", 5]);
  });

  test("crawl jobs - a paused job's URLs wait while another job's on the same host are crawled; resumed, they go", async () => {
    const { clock, frontier, parts } = setup();
    const { service } = parts.jobs;
    await service.create({ id: "slow", seeds: urls("a.test", 3), maxPages: 0, maxDurationMs: 0, weight: 1 });
    await service.act("slow", "pause");
    await service.create({ id: "fast", seeds: urls("a.test", 6).slice(3), maxPages: 0, maxDurationMs: 0, weight: 1 });
    expect((await crawl(frontier, parts.jobs, clock)).toSorted()).toEqual(urls("a.test", 6).slice(3));
    await service.act("slow", "resume");
    clock.now += 5_000; // a host whose URLs were all held is looked at again 5 s later (scheduling.ts)
    expect((await crawl(frontier, parts.jobs, clock)).toSorted()).toEqual(urls("a.test", 3));
  });
});

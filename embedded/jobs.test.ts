/**
 * `crawl`'s jobs (embedded/jobs.ts) over a real frontier and jobs.sqlite: a job with a page limit ends
 * `done`/`max-pages` after exactly that many page results when tasks run one at a time, also when the
 * crawl was restarted part-way (the trigger starts from the pages already counted), and a paused job's
 * URLs are not handed out while another job's are. With the page budgets wired as `crawl` wires them
 * (page-budget.ts) and many tasks in flight on several hosts, each job gets exactly maxPages page tasks,
 * also when tasks are given back with no result (their units return) and across a restart that drops the
 * tasks in flight (the budget rebuilt from the pages counted).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import type { FetchResult, FetchTask } from "../core/model/index.ts";
import { Frontier, FrontierStore } from "../engine/frontier/index.ts";
import { silentLog } from "../kit/log/index.ts";
import { CrawlJobs } from "./jobs.ts";
import { LocalPageBudget } from "./page-budget.ts";
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

/** A frontier over a store file in `dir`, with the page budgets `crawl` gives it, and its jobs. */
function budgetedSetup(dir: string, clock: { now: number }) {
  let n = 0;
  const store = FrontierStore.open(join(dir, "frontier.sqlite"));
  const pageBudget = new LocalPageBudget(store);
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 0, gapFetchMultiplier: 0, sitemaps: "off" },
    partitions: 256,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${clock.now}-${n++}`,
    budget: pageBudget.frontierOption,
  });
  const jobs = CrawlJobs.open({
    out: dir,
    frontier,
    policy: DEFAULT_POLICY,
    now: () => clock.now,
    log: silentLog,
    onSeeds: () => {},
    budget: pageBudget.budget,
  });
  return { store, frontier, jobs, pageBudget };
}

/**
 * Runs the crawl loop's rounds by hand, up to `maxInFlight` tasks in flight: each round asks for tasks,
 * settles the budgets before launching (as embedded/crawl-loop.ts), then finishes the older half of what
 * runs, so tasks stay in flight across rounds. Stops after `rounds`, or once nothing runs and nothing came
 * for a while. Returns the page tasks finished by job, the most in flight at once, and what still runs.
 */
async function crawlInFlight(
  frontier: Frontier,
  jobs: CrawlJobs,
  clock: { now: number },
  maxInFlight: number,
  rounds = 1_000,
  /** Each third page task is given back once with no result (a server at its cap), then told to this. */
  givenBack?: (task: FetchTask) => void,
) {
  const turnedAway = new Set<string>();
  let pageTasks = 0;
  const pages = new Map<number, string[]>();
  const running: FetchTask[] = [];
  let most = 0;
  let idle = 0;
  for (let r = 0; r < rounds && idle < 20; r++) {
    const tasks = frontier.nextTasks(maxInFlight - running.length);
    const refused = new Set((await frontier.settleBudgets()).map((t) => t.taskId));
    for (const t of tasks) {
      if (refused.has(t.taskId)) frontier.abandon(t);
      else running.push(t);
    }
    most = Math.max(most, running.length);
    if (running.length === 0) {
      idle++;
      clock.now += 600; // a host held by a job waiting for budget is looked at again 0.5 s later
      continue;
    }
    idle = 0;
    for (const t of running.splice(0, Math.ceil(running.length / 2))) {
      if (givenBack && t.kind === "page" && pageTasks++ % 3 === 0 && !turnedAway.has(t.url)) {
        turnedAway.add(t.url);
        frontier.abandon(t);
        givenBack(t);
        continue;
      }
      await frontier.complete(answer(t, clock.now), []);
      await jobs.afterResult(t);
      if (t.kind === "page") pages.set(t.job ?? 0, [...(pages.get(t.job ?? 0) ?? []), t.url]);
    }
    clock.now += 10;
  }
  return { pages, most, running };
}

describe("crawl jobs with page budgets, many tasks in flight", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "crawl-budgets-"));
    dirs.push(d);
    return d;
  };

  test("page budgets - two jobs on the same four hosts get exactly their maxPages page tasks, 8 in flight", async () => {
    const clock = { now: Date.UTC(2026, 11, 4, 12) };
    const dir = tempDir();
    const { store, frontier, jobs } = budgetedSetup(dir, clock);
    const hosts = ["a.test", "b.test", "c.test", "d.test"];
    await jobs.service.create({ id: "news", seeds: hosts.flatMap((h) => urls(h, 10)), maxPages: 7, maxDurationMs: 0, weight: 1 });
    await jobs.service.create({
      id: "blogs",
      seeds: hosts.flatMap((h) => urls(h, 20).slice(10)),
      maxPages: 5,
      maxDurationMs: 0,
      weight: 2,
    });
    const { pages, most } = await crawlInFlight(frontier, jobs, clock, 8);
    expect(most).toBeGreaterThan(1);
    expect({ news: pages.get(1)?.length, blogs: pages.get(2)?.length }).toEqual({ news: 7, blogs: 5 });
    for (const [id, max] of [
      ["news", 7],
      ["blogs", 5],
    ] as const) {
      const { job, counts } = await jobs.service.show(id);
      expect({ id, state: job.state, reason: job.reason, pages: counts.pages }).toEqual({
        id,
        state: "done",
        reason: "max-pages",
        pages: max,
      });
    }
    await jobs.close();
    store.close();
  });

  test("page budgets - tasks given back with no result (a server at its cap) return their units: still exactly maxPages", async () => {
    const clock = { now: Date.UTC(2026, 11, 4, 12) };
    const dir = tempDir();
    const { store, frontier, jobs, pageBudget } = budgetedSetup(dir, clock);
    const hosts = ["a.test", "b.test", "c.test"];
    await jobs.service.create({ id: "news", seeds: hosts.flatMap((h) => urls(h, 10)), maxPages: 8, maxDurationMs: 0, weight: 1 });
    let given = 0;
    const { pages } = await crawlInFlight(frontier, jobs, clock, 8, 1_000, (t) => {
      given++;
      pageBudget.givenBack(t);
    });
    expect(given).toBeGreaterThan(0);
    expect(pages.get(1)?.length).toBe(8);
    const { job, counts } = await jobs.service.show("news");
    expect([job.state, job.reason, counts.pages]).toEqual(["done", "max-pages", 8]);
    await jobs.close();
    store.close();
  });

  test("page budgets - killed with tasks in flight and restarted on the same store, a job still gets exactly maxPages", async () => {
    const clock = { now: Date.UTC(2026, 11, 4, 12) };
    const dir = tempDir();
    const first = budgetedSetup(dir, clock);
    const hosts = ["a.test", "b.test", "c.test", "d.test"];
    await first.jobs.service.create({ id: "news", seeds: hosts.flatMap((h) => urls(h, 10)), maxPages: 9, maxDurationMs: 0, weight: 1 });
    const before = await crawlInFlight(first.frontier, first.jobs, clock, 8, 6);
    const counted = first.frontier.jobReport(true)["1"]?.pages ?? 0;
    // Killed part-way: pages counted, tasks in flight whose results never come, nothing given back.
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(9);
    expect(before.running.filter((t) => t.kind === "page").length).toBeGreaterThan(0);
    await first.jobs.close();
    first.store.close();

    const again = budgetedSetup(dir, clock);
    const after = await crawlInFlight(again.frontier, again.jobs, clock, 8);
    expect((before.pages.get(1)?.length ?? 0) + (after.pages.get(1)?.length ?? 0)).toBe(9);
    const { job, counts } = await again.jobs.service.show("news");
    expect([job.state, job.reason, counts.pages]).toEqual(["done", "max-pages", 9]);
    await again.jobs.close();
    again.store.close();
  });
});

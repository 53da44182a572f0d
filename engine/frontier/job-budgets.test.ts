/**
 * Page budgets in the frontier (job-budgets.ts): a job with maxPages gets a page task only against a unit
 * it holds, the units spent are recorded by `settleBudgets` before the tasks go, budget is taken only for a
 * job with URLs here, a settle refused (the custody reclaimed) returns its tasks, and jobs without maxPages
 * and job default are not budgeted at all.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet, MemoryJobBudget } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { JobRecord } from "../../core/jobs/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);

function setup(budget = new MemoryJobBudget(), holder = "node-a", store = FrontierStore.open(":memory:")) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "off", minGapMs: 0, gapMarginMs: 0 },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `${holder}-t${n++}`,
    budget: { budget, holder },
  });
  return { frontier, clock, budget };
}

const job = (number: number, maxPages: number): JobRecord =>
  ({ id: `job-${number}`, number, state: "running", maxPages, maxDurationMs: 0, weight: 1, createdAt: T0, startedAt: T0 }) as JobRecord;

function seeds(host: string, count: number, jobNumber?: number): DiscoveredUrl[] {
  return Array.from({ length: count }, (_, i) => {
    const url = `http://${host}/p${i}`;
    return { url, host: hostKeyOf(url), depth: 0, redirectHops: 0, isSeed: true, ...(jobNumber ? { job: jobNumber } : {}) };
  });
}

function answer(task: FetchTask, at: number): FetchResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: task.kind === "robots" ? 404 : 200,
    startedAt: at,
    endedAt: at + 1,
    linksFound: 0,
    bytes: 10,
    ...(task.job ? { job: task.job } : {}),
  } as FetchResult;
}

/** Runs the dispatch loop as a frontier node does (nextTasks, settleBudgets, send); returns the page tasks sent. */
async function crawl(frontier: Frontier, clock: { now: number }, rounds = 100): Promise<FetchTask[]> {
  const sent: FetchTask[] = [];
  for (let round = 0; round < rounds; round++) {
    clock.now += 10_000;
    const tasks = frontier.nextTasks(100);
    const refused = new Set((await frontier.settleBudgets()).map((t) => t.taskId));
    for (const t of tasks) {
      if (refused.has(t.taskId)) {
        frontier.abandon(t);
        continue;
      }
      if (t.kind === "page") sent.push(t);
      await frontier.complete(answer(t, clock.now), []);
    }
  }
  return sent;
}

describe("frontier page budgets", () => {
  test("budgets - a job with maxPages gets exactly maxPages page tasks, other jobs and default are not held", async () => {
    const { frontier, clock, budget } = setup();
    frontier.setJob(job(1, 7));
    frontier.setJob(job(2, 0)); // no maxPages: not budgeted
    await frontier.addSeeds([...seeds("a.test", 20, 1), ...seeds("b.test", 12, 1), ...seeds("c.test", 9, 2), ...seeds("d.test", 5)]);
    const sent = await crawl(frontier, clock);
    const byJob = (n: number | undefined) => sent.filter((t) => (t.job ?? 0) === (n ?? 0)).length;
    expect(byJob(1)).toBe(7);
    expect(byJob(2)).toBe(9);
    expect(byJob(0)).toBe(5);
    expect(frontier.jobReport(true)["1"]?.pages).toBe(7);
    // Every unit spent was recorded: nothing left in the pool or held.
    expect(await budget.read(1)).toEqual({ maxPages: 7, left: 0, held: 0 });
    expect(await budget.read(2)).toBeUndefined();
  });

  test("budgets - two frontiers sharing one budget hand out maxPages between them", async () => {
    const shared = new MemoryJobBudget();
    const a = setup(shared, "node-a");
    const b = setup(shared, "node-b");
    for (const f of [a, b]) f.frontier.setJob(job(3, 25));
    await a.frontier.addSeeds([...seeds("a1.test", 30, 3), ...seeds("a2.test", 30, 3)]);
    await b.frontier.addSeeds([...seeds("b1.test", 30, 3), ...seeds("b2.test", 30, 3)]);
    const [sa, sb] = await Promise.all([crawl(a.frontier, a.clock), crawl(b.frontier, b.clock)]);
    expect(sa.length + sb.length).toBe(25);
  });

  test("budgets - a frontier restarted with its holder name spends on the custody it held (none lost, none doubled)", async () => {
    const shared = new MemoryJobBudget();
    const store = FrontierStore.open(":memory:");
    const first = setup(shared, "node-a", store);
    first.frontier.setJob(job(6, 30));
    await first.frontier.addSeeds([...seeds("a.test", 40, 6), ...seeds("b.test", 40, 6)]);
    const before = await crawl(first.frontier, first.clock, 8);
    expect(before.length).toBeGreaterThan(0);
    expect((await shared.read(6))!.held).toBeGreaterThan(0);
    // A kill: nothing given back. The next run on the same store and holder name goes on from the custody.
    const second = setup(shared, "node-a", store);
    second.clock.now = first.clock.now;
    second.frontier.setJob(job(6, 30));
    const after = await crawl(second.frontier, second.clock);
    expect(before.length + after.length).toBe(30);
    expect(second.frontier.jobReport(true)["6"]?.pages).toBe(30);
  });

  test("budgets - a job whose record was not heard yet gets no page task until it is", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds(seeds("a.test", 3, 4));
    expect(await crawl(frontier, clock, 5)).toEqual([]);
    frontier.setJob(job(4, 2));
    expect((await crawl(frontier, clock)).length).toBe(2);
  });

  test("budgets - a settle refused (the custody was reclaimed) returns the tasks, which are then not counted", async () => {
    const { frontier, clock, budget } = setup();
    frontier.setJob(job(5, 10));
    await frontier.addSeeds(seeds("a.test", 20, 5));
    // The first rounds take budget and hand out tasks; then the coordinator reclaims this holder's custody.
    const first = await crawl(frontier, clock, 6);
    expect(first.length).toBeGreaterThan(0);
    const reclaimed = await budget.reclaim("node-a");
    expect(reclaimed).toBeGreaterThan(0);
    clock.now += 10_000;
    const tasks = frontier.nextTasks(100).filter((t) => t.kind === "page");
    expect(tasks.length).toBeGreaterThan(0);
    const refused = await frontier.settleBudgets();
    expect(refused.map((t) => t.taskId).sort()).toEqual(tasks.map((t) => t.taskId).sort());
    for (const t of refused) frontier.abandon(t);
    // It takes again from the pool; over the whole crawl the job still gets at most 10 pages.
    const rest = await crawl(frontier, clock);
    expect(first.length + rest.length).toBe(10);
    expect(frontier.jobReport(true)["5"]?.pages).toBe(10);
  });
});

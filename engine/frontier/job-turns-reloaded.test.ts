/**
 * Weighted turns (job-turns.ts) for hosts loaded from the store: after a restart (the frontier built again
 * on its store) a host's jobs take their turns by weight at once, learned from its queue rows, rather than
 * following queue order until new URLs are queued for it; the same for a host kept cold (past the warm
 * limit) and warmed later, and a crawl without jobs keeps its queue order.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);

function open(store: FrontierStore, clock: { now: number }, warmHosts?: number, serving?: number[]): Frontier {
  let n = 0;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "off", minGapMs: 0, gapMarginMs: 0 },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${clock.now}-${n++}`,
    ...(warmHosts !== undefined ? { warmHosts } : {}),
    ...(serving !== undefined ? { serving } : {}),
  });
  // The job records, as the node's watch gives them after a start.
  frontier.setJob({ number: 1, state: "running", weight: 1 });
  frontier.setJob({ number: 2, state: "running", weight: 3 });
  return frontier;
}

function seed(u: string, job?: number): DiscoveredUrl {
  return { url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0, isSeed: true, ...(job ? { job } : {}) };
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

/** Crawls until nothing is left; returns the page tasks' jobs per host, in the order handed out. */
async function crawl(frontier: Frontier, clock: { now: number }): Promise<Record<string, number[]>> {
  const order: Record<string, number[]> = {};
  for (let round = 0; round < 100; round++) {
    clock.now += 10_000;
    for (const t of frontier.nextTasks(100)) {
      if (t.kind === "page") (order[t.host] ??= []).push(t.job ?? 0);
      await frontier.complete(answer(t, clock.now), []);
    }
  }
  return order;
}

/** Queues a.test's URLs in a first run: 4 of job 1 (weight 1), then 6 of job 2 (weight 3), robots.txt read. */
async function firstRun(hosts: string[]) {
  const store = FrontierStore.open(":memory:");
  const clock = { now: T0 };
  const frontier = open(store, clock);
  for (const h of hosts) {
    await frontier.addSeeds([1, 2, 3, 4].map((i) => seed(`http://${h}/one-${i}`, 1)));
    await frontier.addSeeds([1, 2, 3, 4, 5, 6].map((i) => seed(`http://${h}/three-${i}`, 2)));
  }
  // Only robots.txt is fetched before the stop: every page is still queued.
  clock.now += 10_000;
  for (const t of frontier.nextTasks(100)) {
    expect(t.kind).toBe("robots");
    await frontier.complete(answer(t, clock.now), []);
  }
  return { store, clock };
}

const WEIGHTED = [2, 1, 2, 2, 2, 1, 2, 2, 1, 1];

describe("job turns of hosts loaded from the store", () => {
  test("jobs - after a restart a host's jobs take weighted turns at once, learned from its queue rows", async () => {
    const { store, clock } = await firstRun(["a.test"]);
    const order = await crawl(open(store, clock), clock);
    expect(order["a.test"]).toEqual(WEIGHTED);
  });

  test("jobs - a partition taken on later (a ring change, a handoff) loads its hosts with their jobs' turns", async () => {
    const { store, clock } = await firstRun(["a.test", "b.test"]);
    const frontier = open(store, clock, undefined, []);
    expect(await crawl(frontier, clock)).toEqual({});
    frontier.setServing([partitionOf("a.test", 16)]);
    const order = await crawl(frontier, clock);
    expect(order["a.test"]).toEqual(WEIGHTED);
  });

  test("jobs - a host kept cold past the warm limit and warmed later takes weighted turns too", async () => {
    const hosts = ["a.test", "b.test", "c.test"];
    const { store, clock } = await firstRun(hosts);
    // One host in memory at a time: the others wait cold in the store and are warmed one by one.
    const order = await crawl(open(store, clock, 1), clock);
    for (const h of hosts) expect(order[h]).toEqual(WEIGHTED);
  });

  test("jobs - a host with URLs of one job and default's alternates between them after a restart", async () => {
    const store = FrontierStore.open(":memory:");
    const clock = { now: T0 };
    const first = open(store, clock);
    await first.addSeeds([1, 2, 3].map((i) => seed(`http://a.test/d-${i}`)));
    await first.addSeeds([1, 2, 3].map((i) => seed(`http://a.test/j-${i}`, 1)));
    const order = await crawl(open(store, clock), clock);
    expect(order["a.test"]).toEqual([1, 0, 1, 0, 1, 0]);
  });
});

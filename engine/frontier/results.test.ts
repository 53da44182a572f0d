/**
 * Results, through the frontier: a batch of results is applied in one transaction or not at all, a result
 * whose host has moved on still brings its links, a redirect to another frontier's host goes to its owner,
 * and a task whose result never comes is given up with its URL kept.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier, type FrontierOptions } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const policy = { ...DEFAULT_POLICY, sitemaps: "robots" as const, minGapMs: 1_000, gapMarginMs: 0 };

function setup(extra: Partial<FrontierOptions> = {}) {
  const clock = { now: T0 };
  let n = 0;
  const store = FrontierStore.open(":memory:");
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy,
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    ...extra,
  });
  /** Seeds the host and answers its robots.txt; returns the first page task, at its time. */
  const firstPage = async (seed: string): Promise<FetchTask> => {
    await frontier.addSeeds([url(seed)]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(ok(robots!, { robots: { verdict: "allow-all" } }), []);
    clock.now += 2_000;
    const [page] = frontier.nextTasks(10);
    return page!;
  };
  return { frontier, store, clock, firstPage };
}

const url = (u: string, depth = 1): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth, redirectHops: 0 });

function ok(task: FetchTask, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: T0,
    endedAt: T0 + 10,
    linksFound: 0,
    bytes: 100,
    ...extra,
  };
}

describe("results", () => {
  test("results - a result whose host has moved on is counted stale, and the links it found are still admitted", async () => {
    const { frontier } = setup();
    await frontier.addSeeds([url("http://a.test/")]);
    const [robots] = frontier.nextTasks(10);
    frontier.abandon(robots!);
    await frontier.complete(ok(robots!, { robots: { verdict: "allow-all" } }), [url("http://b.test/found")]);
    expect(frontier.counters.toJSON()["frontier.stale-results"]).toBe(1);
    expect(frontier.queued).toBe(2);
    expect(frontier.explainUrl("http://b.test/found", "b.test").state).toBe("queued");
  });

  test("results - a batch whose commit fails keeps nothing: the page is fetched again, and its links, which the seen-set saw, are admitted then", async () => {
    const { frontier, store, clock, firstPage } = setup({ diskProbe: () => {} });
    const page = await firstPage("http://a.test/");
    const { recordFetch, recordFetchScheduled } = store;
    // A page's state is written alone, or with its refetch in one write: either fails.
    store.recordFetch = store.recordFetchScheduled = () => {
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    const links = [url("http://a.test/next"), url("http://b.test/")];
    await expect(frontier.complete(ok(page, { startedAt: clock.now, endedAt: clock.now + 10 }), links)).rejects.toThrow("disk is full");
    Object.assign(store, { recordFetch, recordFetchScheduled });
    expect(frontier.counters.toJSON()["frontier.results-not-committed"]).toBe(1);
    expect([frontier.diskFull, frontier.inFlight, frontier.queued]).toEqual([true, 0, 1]);
    expect(frontier.explainUrl(page.url, page.host).state).toBe("queued");
    // Room again (the probe runs two seconds on), and the host's full gap from the failure has passed.
    clock.now += 2_000;
    const [again] = frontier.nextTasks(10);
    expect(again?.url).toBe(page.url);
    await frontier.complete(ok(again!, { startedAt: clock.now, endedAt: clock.now + 10 }), links);
    expect(frontier.queued).toBe(2);
    expect(frontier.explainUrl("http://b.test/", "b.test").state).toBe("queued");
  });

  test("results - a redirect to a host another frontier owns is sent to its owner before the commit, not queued here", async () => {
    const sent: DiscoveredUrl[] = [];
    const { frontier, firstPage } = setup({
      forward: {
        owns: (host) => host === "a.test",
        send: async (urls) => {
          for (const u of urls) sent.push(u);
        },
      },
    });
    const page = await firstPage("http://a.test/");
    await frontier.complete(ok(page, { status: 301, redirectTo: "http://elsewhere.test/" }), []);
    expect(sent.map((u) => [u.url, u.redirectHops, u.sourceUrl])).toEqual([["http://elsewhere.test/", 1, "http://a.test/"]]);
    expect(frontier.queued).toBe(0);
  });

  test("results - a fetch that outlives its lease without a result is released: its URL stays queued, its host waits a gap from now", async () => {
    const { frontier, clock, firstPage } = setup();
    const page = await firstPage("http://a.test/");
    clock.now += policy.fetchLeaseMs - 1;
    expect(frontier.releaseLost(clock.now)).toEqual([]);
    clock.now += 1;
    expect(frontier.releaseLost(clock.now).map((t) => t.taskId)).toEqual([page.taskId]);
    expect(frontier.counters.toJSON()["frontier.lost-fetches"]).toBe(1);
    expect([frontier.inFlight, frontier.queued]).toEqual([0, 1]);
    expect(frontier.hostInfo("a.test")?.state.nextAllowedAt).toBe(clock.now + 1_000);
    clock.now += 1_000;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual([page.url]);
  });

  test("results - the result of a task handed out elsewhere, for the URL at the head of an idle host, is adopted: fetched once, the host's time kept", async () => {
    // A fetch released as lost whose result comes after all stands for every such result: a former owner's
    // last tasks reaching the node that rebuilt its partition, a restarted node's own.
    const { frontier, clock, firstPage } = setup();
    const page = await firstPage("http://a.test/");
    await frontier.admit([url("http://a.test/second")]);
    clock.now += policy.fetchLeaseMs;
    expect(frontier.releaseLost(clock.now).map((t) => t.taskId)).toEqual([page.taskId]);
    const waitUntil = frontier.hostInfo("a.test")!.state.nextAllowedAt;
    expect(frontier.queued).toBe(2);
    // Its result: the request reached the host and was answered long ago.
    await frontier.complete(ok(page, { startedAt: clock.now - 60_000, endedAt: clock.now - 59_990 }), [url("http://a.test/third")]);
    expect(frontier.counters.toJSON()["frontier.results-adopted"]).toBe(1);
    expect(frontier.counters.toJSON()["frontier.stale-results"]).toBeUndefined();
    expect(frontier.explainUrl(page.url, page.host).state).toBe("fetched");
    expect([frontier.inFlight, frontier.queued]).toEqual([0, 2]);
    // Its time is not brought forward by a result that ended long ago: nothing before it, then the next page.
    expect(frontier.hostInfo("a.test")!.state.nextAllowedAt).toBe(waitUntil);
    clock.now = waitUntil - 1;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now = waitUntil;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/second"]);
  });

  test("results - a result applied already, delivered again, is not adopted: its URL has left the head", async () => {
    const { frontier, clock, firstPage } = setup();
    const page = await firstPage("http://a.test/");
    await frontier.admit([url("http://a.test/second")]);
    const result = ok(page, { startedAt: clock.now, endedAt: clock.now + 10 });
    await frontier.complete(result, []);
    await frontier.complete(result, []);
    expect(frontier.counters.toJSON()["frontier.results-adopted"]).toBeUndefined();
    expect(frontier.counters.toJSON()["frontier.stale-results"]).toBe(1);
    expect(frontier.queued).toBe(1);
    clock.now += 2_000;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/second"]);
  });

  test("results - an adopted result for a host already due waits it out again: no request before the gap after that fetch", async () => {
    const { frontier, clock, firstPage } = setup();
    const page = await firstPage("http://a.test/");
    await frontier.admit([url("http://a.test/second")]);
    clock.now += policy.fetchLeaseMs;
    frontier.releaseLost(clock.now);
    clock.now = frontier.hostInfo("a.test")!.state.nextAllowedAt;
    // Due now: filed in the ready queue, not handed out yet (no slot was asked for).
    expect(frontier.nextTasks(0)).toEqual([]);
    // The result of that fetch, which ended just now: the host's next request is a full gap after it.
    await frontier.complete(ok(page, { startedAt: clock.now - 10, endedAt: clock.now }), []);
    expect(frontier.counters.toJSON()["frontier.results-adopted"]).toBe(1);
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 1_000;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/second"]);
  });

  test("results - a fetch during which the fetch node was not running gets a gap of ten times the host's part of it, not of the pause", async () => {
    const { frontier, clock, firstPage } = setup();
    const page = await firstPage("http://a.test/");
    await frontier.admit([url("http://a.test/second")]);
    await frontier.complete(ok(page, { startedAt: clock.now, endedAt: clock.now + 30_800, pausedMs: 30_000 }), []);
    expect(frontier.hostInfo("a.test")!.state.nextAllowedAt).toBe(clock.now + 30_800 + 8_000);
  });
});

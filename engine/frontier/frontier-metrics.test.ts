/**
 * The figures the dashboards and /metrics read from a frontier: histograms (fetch duration, page size,
 * queue wait, gap wait), the bytes counter, and the host report (slowest, throttled, parked hosts).
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { quantile } from "../../core/stats/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier } from "./frontier.ts";
import { frontierGauges } from "./metrics.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

function setup(policy: Partial<PolicyConfig> = {}) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock };
}

function url(u: string): DiscoveredUrl {
  return { url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0 };
}

function response(task: FetchTask, start: number, end: number, extra: Partial<ResponseResult> = {}): FetchResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: start,
    endedAt: end,
    linksFound: 0,
    bytes: task.kind === "page" ? 3000 : 0,
    ...(task.kind === "robots" ? { robots: { verdict: "allow-all" as const } } : {}),
    ...extra,
  };
}

describe("frontier metrics", () => {
  test("frontier metrics - fetch durations, page sizes and stored bytes are recorded per result", async () => {
    const { frontier, clock } = setup({ minGapMs: 0, gapFetchMultiplier: 0, gapMarginMs: 0 });
    await frontier.addSeeds([url("http://a.test/")]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(response(r!, clock.now, clock.now + 40), []);
    clock.now += 40;
    const [page] = frontier.nextTasks(10);
    await frontier.complete(response(page!, clock.now, clock.now + 700), []);
    const h = frontier.histograms.toJSON();
    expect(h["fetch.duration-seconds"]!.count).toBe(2);
    expect(h["fetch.duration-seconds"]!.sum).toBeCloseTo(0.74, 6);
    expect(h["fetch.page-bytes"]).toMatchObject({ count: 1, sum: 3000 });
    expect(frontier.counters.get("fetch.bytes")).toBe(3000);
  });

  test("frontier metrics - a request that waits for its host's gap is observed with the wait, a first request is not", async () => {
    const { frontier, clock } = setup({ minGapMs: 1000, gapFetchMultiplier: 0, gapMarginMs: 0 });
    await frontier.addSeeds([url("http://a.test/"), url("http://a.test/x")]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(response(r!, clock.now, clock.now + 10), []);
    clock.now += 10 + 1000;
    const [page] = frontier.nextTasks(10);
    expect(page!.url).toBe("http://a.test/");
    // robots.txt was handed out at once (no gap to wait); the page waited the 1 s gap after it.
    const gap = frontier.histograms.toJSON()["politeness.gap-wait-seconds"]!;
    expect(gap.count).toBe(1);
    expect(gap.sum).toBeCloseTo(1.01, 3); // from the result applied at T0 to its end (T0 + 10) + 1 s
  });

  test("frontier metrics - queue wait runs from queueing to hand-out", async () => {
    const { frontier, clock } = setup({ minGapMs: 0, gapFetchMultiplier: 0 });
    await frontier.addSeeds([url("http://a.test/")]);
    clock.now += 5_000;
    const [r] = frontier.nextTasks(10);
    await frontier.complete(response(r!, clock.now, clock.now + 10), []);
    clock.now += 20_000;
    frontier.nextTasks(10);
    const wait = frontier.histograms.toJSON()["frontier.queue-wait-seconds"]!;
    expect(wait.count).toBe(1);
    expect(wait.sum).toBeCloseTo(25, 0);
    expect(quantile(wait, 0.5)).toBeGreaterThan(10);
  });

  test("frontier metrics - the host report names throttled, parked and slow hosts, and the gauges count them", async () => {
    const { frontier, clock } = setup({ minGapMs: 100 });
    await frontier.addSeeds(["http://slow.test/", "http://busy.test/", "http://down.test/"].flatMap((u) => [url(u), url(`${u}x`)]));
    const robotsTasks = frontier.nextTasks(10);
    expect(robotsTasks).toHaveLength(3);
    for (const t of robotsTasks) {
      const result =
        t.host === "down.test"
          ? response(t, clock.now, clock.now + 5, { status: 500, robots: { verdict: "disallow-all" } })
          : response(t, clock.now, clock.now + 5);
      await frontier.complete(result, []);
    }
    clock.now += 60_000;
    const pages = frontier.nextTasks(10);
    expect(pages.map((t) => t.host).sort()).toEqual(["busy.test", "slow.test"]);
    for (const t of pages) {
      const result =
        t.host === "busy.test" ? response(t, clock.now, clock.now + 20, { status: 429 }) : response(t, clock.now, clock.now + 4_000);
      await frontier.complete(result, []);
    }
    clock.now += 2_000; // a new report (it is cached for a second)
    const { board, politeness } = frontier.hostReport();
    expect(board.throttled.map((h) => h.host)).toEqual(["busy.test"]);
    expect(board.throttled[0]!.throttles).toBe(1);
    expect(board.parked.map((h) => [h.host, h.robotsVerdict])).toEqual([["down.test", "disallow-all"]]);
    expect(board.slowest[0]!.host).toBe("slow.test");
    expect(politeness).toMatchObject({ activeHosts: 3, throttledHosts: 1, parkedHosts: 1, largestGapHost: "slow.test" });
    expect(politeness.largestGapMs).toBe(40_000);
    expect(frontierGauges(frontier)).toMatchObject({ hostsThrottled: 1, hostsParked: 1, largestGapSeconds: 40 });
  });
});

/**
 * What the frontier reports about itself, through the frontier: the snapshot and how fresh its slow totals
 * are, whether work is left within a horizon, the host board's age, and hosts as `host list` shows them.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);
const HOUR = 3_600_000;

function setup() {
  const clock = { now: T0 };
  let n = 0;
  const store = FrontierStore.open(":memory:");
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "robots", minGapMs: 1_000, gapMarginMs: 0 },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, store, clock };
}

const seeds = (...urls: string[]) => urls.map((url) => ({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0 }));

function ok(task: FetchTask, at: number, extra: Partial<ResponseResult> = {}): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: at,
    endedAt: at + 10,
    linksFound: 0,
    bytes: 100,
    ...extra,
  };
}

describe("reports", () => {
  test("reports - the snapshot counts queue, hosts and tasks in flight; the slow totals are read again only every five seconds unless asked fresh", async () => {
    const { frontier, store, clock } = setup();
    await frontier.addSeeds(seeds("http://a.test/", "http://a.test/x", "http://b.test/"));
    frontier.nextTasks(1);
    expect(frontier.snapshot()).toMatchObject({ queued: 3, knownUrls: 3, activeHosts: 2, inFlight: 1, hostsReady: 1, hostsWaiting: 0 });
    store.tx(() =>
      store.schedule({ dueAt: T0 + HOUR, url: "http://c.test/", host: "c.test", partition: 1, priority: 2, depth: 0, kind: "page" }),
    );
    expect(frontier.snapshot().scheduled).toBe(0);
    expect(frontier.snapshot(true).scheduled).toBe(1);
    store.tx(() => store.unschedule(1, "http://c.test/"));
    clock.now += 4_999;
    expect(frontier.snapshot().scheduled).toBe(1);
    clock.now += 1;
    expect(frontier.snapshot().scheduled).toBe(0);
  });

  test("reports - work is left while a host waits only for its gap; a host parked behind robots.txt counts only within the horizon", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds(seeds("http://down.test/"));
    expect(frontier.hasWorkWithin(0)).toBe(true);
    const [robots] = frontier.nextTasks(10);
    expect(frontier.hasWorkWithin(0)).toBe(true);
    await frontier.complete(ok(robots!, clock.now, { status: 503, robots: { verdict: "disallow-all" } }), []);
    clock.now += 60_000;
    const retryIn = frontier.hostInfo("down.test")!.robotsExpiresAt - clock.now;
    expect(frontier.hasWorkWithin(retryIn - 1)).toBe(false);
    expect(frontier.hasWorkWithin(retryIn)).toBe(true);
  });

  test("reports - the host board is rebuilt at most once a second", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds(seeds("http://down.test/"));
    const before = frontier.hostReport();
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(ok(robots!, clock.now, { status: 503, robots: { verdict: "disallow-all" } }), []);
    clock.now += 999;
    expect(frontier.hostReport()).toBe(before);
    clock.now += 1;
    expect(frontier.hostReport().board.parked.map((h) => h.host)).toEqual(["down.test"]);
  });

  test("reports - a host never seen is unknown; active hosts are listed most queued first", async () => {
    const { frontier } = setup();
    await frontier.addSeeds(seeds("http://one.test/", "http://two.test/", "http://two.test/b"));
    expect(frontier.hostInfo("never.test")).toBeUndefined();
    expect(frontier.listHosts(10).map((h) => [h.host, h.queued])).toEqual([
      ["two.test", 2],
      ["one.test", 1],
    ]);
    expect(frontier.listHosts(1)).toHaveLength(1);
  });
});

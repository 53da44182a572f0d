/**
 * What a frontier says is left, and whether anything may be fetched within a horizon: a host whose robots.txt
 * could not be read is unreachable (with the failure and when it is asked again) and its URLs wait until
 * then; a host waiting for its politeness gap always counts as work; retries and refetches count when due
 * within the horizon; failing pages make their host unreachable too.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const HOUR = 3_600_000;

function setup() {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    // The /sitemap.xml probe is one more request per host, covered in sitemaps.test.ts; these tests count pages.
    policy: { ...DEFAULT_POLICY, minGapMs: 30_000, sitemaps: "robots" },
    partitions: 16,
    maxQueued: 1_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock };
}

const seed = (url: string): DiscoveredUrl => ({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0 });

function result(task: FetchTask, at: number, extra: Partial<FetchResult>): FetchResult {
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
    bytes: 0,
    ...extra,
  } as FetchResult;
}

describe("frontier: pending work", () => {
  test("pending - a host whose robots.txt did not answer is unreachable until it is asked again, an hour later", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://gone.test/"), seed("http://gone.test/a")]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(result(robots!, clock.now, { kind: "network-error", status: 0, error: "dns" }), []);
    const p = frontier.pending();
    expect(p.unreachable).toEqual([{ host: "gone.test", robotsTxt: true, reason: "dns", waiting: 2, nextTryAt: T0 + 10 + HOUR }]);
    expect(p.queued).toEqual({ urls: 2, hosts: 1, firstReadyAt: T0 + 10 + HOUR });
    expect(frontier.hasWorkWithin(60_000)).toBe(false);
    expect(frontier.hasWorkWithin(2 * HOUR)).toBe(true);
  });

  test("pending - sitemaps waiting on a host that cannot be asked are left, and make it unreachable with them", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://a.test/")]);
    const [robots] = frontier.nextTasks(10);
    // a.test's robots.txt names a sitemap on maps.test, which has nothing else queued.
    await frontier.complete(result(robots!, clock.now, { robots: { verdict: "parse", text: "Sitemap: http://maps.test/s.xml\n" } }), []);
    expect(frontier.pending().sitemaps).toEqual({ count: 1, hosts: 1, firstReadyAt: T0 });
    clock.now += 60_000;
    const mapsRobots = frontier.nextTasks(10).find((t) => t.host === "maps.test")!;
    expect(mapsRobots.kind).toBe("robots");
    await frontier.complete(result(mapsRobots, clock.now, { kind: "network-error", status: 0, error: "refused" }), []);
    const p = frontier.pending();
    expect(p.sitemaps).toEqual({ count: 1, hosts: 1, firstReadyAt: clock.now + 10 + HOUR });
    expect(p.unreachable).toContainEqual({
      host: "maps.test",
      robotsTxt: true,
      reason: "refused",
      waiting: 1,
      nextTryAt: clock.now + 10 + HOUR,
    });
  });

  test("pending - a robots.txt that answered 503 is reported with its status", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://busy.test/")]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(result(robots!, clock.now, { status: 503, robots: { verdict: "disallow-all" } }), []);
    expect(frontier.pending().unreachable[0]).toMatchObject({ host: "busy.test", robotsTxt: true, reason: "status 503" });
  });

  test("pending - a host waiting only for its politeness gap is work however far the gap, and not unreachable", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://slow.test/"), seed("http://slow.test/a")]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(result(robots!, clock.now, { robots: { verdict: "allow-all" } }), []);
    clock.now += 60_000;
    const [page] = frontier.nextTasks(10);
    await frontier.complete(result(page!, clock.now, {}), []);
    expect(frontier.nextTasks(10)).toEqual([]);
    expect(frontier.hasWorkWithin(0)).toBe(true);
    expect(frontier.pending().unreachable).toEqual([]);
    expect(frontier.pending().queued.urls).toBe(1);
  });

  test("pending - retries and refetches count when due within the horizon; failing pages make their host unreachable", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://flaky.test/"), seed("http://flaky.test/ok")]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(result(robots!, clock.now, { robots: { verdict: "allow-all" } }), []);
    for (const extra of [{ kind: "network-error", status: 0, error: "refused" }, {}] as Partial<FetchResult>[]) {
      clock.now += 600_000; // past any gap, the longer one after a failure included
      const [page] = frontier.nextTasks(10);
      await frontier.complete(result(page!, clock.now, extra), []);
    }
    const p = frontier.pending();
    expect(p.retries).toEqual({ count: 1, firstDueAt: T0 + 600_000 + HOUR });
    expect(p.refetches).toEqual({ count: 1, firstDueAt: T0 + 1_200_000 + 24 * HOUR });
    expect(p.unreachable).toEqual([
      { host: "flaky.test", robotsTxt: false, reason: "refused", waiting: 1, nextTryAt: T0 + 600_000 + HOUR },
    ]);
    // Now T0 + 20 min: the retry is due 50 min from now.
    expect(frontier.hasWorkWithin(45 * 60_000)).toBe(false);
    expect(frontier.hasWorkWithin(50 * 60_000)).toBe(true);
  });
});

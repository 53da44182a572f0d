/**
 * One result's effect, through the frontier: a robots.txt that failed means fetch nothing of the host until
 * it is read again, robots.txt's crawl-delay and the operator's minimum gap set the host's next time, a
 * task never sent frees its host at once, and each result is counted as what it was.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { FetchResult, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12);

function setup(policy: Partial<PolicyConfig> = {}) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store: FrontierStore.open(":memory:"),
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "robots", minGapMs: 1_000, gapMarginMs: 0, ...policy },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  /** Completes the one task handed out now, its fetch taking 10 ms from now. */
  const answer = async (extra: (task: FetchTask) => Partial<FetchResult> = () => ({})): Promise<FetchTask> => {
    const [task] = frontier.nextTasks(10);
    if (!task) throw new Error("no task handed out");
    await frontier.complete({ ...ok(task, clock.now), ...extra(task) } as FetchResult, []);
    return task;
  };
  return { frontier, clock, answer };
}

const seeds = (...urls: string[]) => urls.map((url) => ({ url, host: hostKeyOf(url), depth: 0, redirectHops: 0 }));

function ok(task: FetchTask, at: number): ResponseResult {
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
  };
}

describe("result effects", () => {
  test("result effects - a robots.txt answered 5xx means fetch nothing of the host until robots.txt is read again", async () => {
    const { frontier, clock, answer } = setup();
    await frontier.addSeeds(seeds("http://down.test/", "http://down.test/a"));
    await answer(() => ({ status: 503, robots: { verdict: "disallow-all" } }));
    expect(frontier.counters.toJSON()["robots.verdict.disallow-all"]).toBe(1);
    expect(frontier.hostInfo("down.test")?.robotsVerdict).toBe("disallow-all");
    clock.now += 10 * 60_000;
    expect(frontier.nextTasks(10)).toEqual([]);
    expect(frontier.explainUrl("http://down.test/a", "down.test").robots).toBe("disallowed");
    clock.now = frontier.hostInfo("down.test")!.robotsExpiresAt;
    expect(frontier.nextTasks(10).map((t) => t.kind)).toEqual(["robots"]);
  });

  test("result effects - a robots.txt that could not be fetched at all counts as unavailable too", async () => {
    const { frontier, answer } = setup();
    await frontier.addSeeds(seeds("http://gone.test/"));
    await answer(() => ({ kind: "network-error", error: "refused", status: undefined }));
    expect(frontier.hostInfo("gone.test")?.robotsVerdict).toBe("disallow-all");
    expect(frontier.counters.toJSON()["fetch.network-error.refused"]).toBe(1);
  });

  test("result effects - robots.txt's crawl-delay and the operator's minimum gap set the host's next time after each fetch", async () => {
    const { frontier, clock, answer } = setup();
    await frontier.addSeeds(seeds("http://slow.test/", "http://slow.test/a", "http://slow.test/b"));
    await answer(() => ({ robots: { verdict: "parse", text: "User-agent: *\nCrawl-delay: 5\n" } }));
    const ended = clock.now + 10;
    clock.now = ended + 5_000 - 1;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now = ended + 5_000;
    frontier.setHostMinGap("slow.test", 20_000);
    await answer();
    clock.now += 10 + 20_000 - 1;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 1;
    expect(frontier.nextTasks(10)).toHaveLength(1);
  });

  test("result effects - a task the fetch path never sent frees its host at once and is counted by the rule that refused it", async () => {
    const { frontier, clock, answer } = setup();
    await frontier.addSeeds(seeds("http://a.test/", "http://a.test/b"));
    await answer(() => ({ robots: { verdict: "allow-all" } }));
    clock.now += 1_010;
    const skipped = await answer(() => ({ kind: "skipped", error: "blocked-address", refusal: "loopback", status: undefined }));
    expect(frontier.counters.toJSON()["fetch.skipped.blocked-address.loopback"]).toBe(1);
    expect(frontier.histograms.toJSON()["fetch.duration-seconds"]).toMatchObject({ count: 1 });
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/b"]);
    expect(frontier.explainUrl(skipped.url, skipped.host)).toMatchObject({ state: "gone", note: "blocked-address.loopback" });
  });

  test("result effects - a response is counted by its status, bytes and what it found; its fetch time is observed", async () => {
    const { frontier, clock, answer } = setup();
    await frontier.addSeeds(seeds("http://a.test/"));
    await answer(() => ({ robots: { verdict: "allow-all" } }));
    clock.now += 1_010;
    await answer(() => ({ bytes: 25_000, mediaFound: 3, duplicateOf: "http://b.test/" }));
    expect(frontier.counters.toJSON()).toMatchObject({
      "fetch.status.200": 2,
      "fetch.pages": 1,
      "fetch.bytes": 25_100,
      "content.media-listed": 3,
      "content.exact-duplicates": 1,
    });
    const histograms = frontier.histograms.toJSON();
    expect(histograms["fetch.duration-seconds"]).toMatchObject({ count: 2 });
    expect(histograms["fetch.page-bytes"]).toMatchObject({ count: 1, sum: 25_000 });
  });
});

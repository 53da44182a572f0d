import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier } from "./frontier.ts";
import { exportPartition, importChunk } from "./handoff.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

function setup(policy: Partial<PolicyConfig> = {}, store = FrontierStore.open(":memory:"), maxQueued = 1_000_000) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    // The /sitemap.xml probe (the default) is one more task per host; sitemaps.test.ts covers it. These tests step through pages.
    policy: { ...DEFAULT_POLICY, sitemaps: "robots", ...policy },
    partitions: 16,
    maxQueued,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock, store };
}

function url(u: string, depth = 1, redirectHops = 0): DiscoveredUrl {
  return { url: u, host: hostKeyOf(u), depth, redirectHops };
}

function response(task: FetchTask, start: number, end: number, extra: Partial<ResponseResult> = {}): ResponseResult {
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
    bytes: 100,
    ...extra,
  };
}

function robots(task: FetchTask, at: number, text = "User-agent: *\nDisallow: /private/\n"): FetchResult {
  return response(task, at, at + 10, { robots: { verdict: "parse", text } });
}

describe("frontier", () => {
  test("frontier - asks for robots.txt before any page of a host, and only one task per host at a time", async () => {
    const { frontier } = setup();
    await frontier.addSeeds([url("http://a.test/", 0), url("http://a.test/x", 0)]);
    const first = frontier.nextTasks(10);
    expect(first.map((t) => [t.kind, t.url])).toEqual([["robots", "http://a.test/robots.txt"]]);
    expect(frontier.nextTasks(10)).toEqual([]);
  });

  test("frontier - waits max(min gap, 10 x fetch time) plus the margin after the end of each response", async () => {
    const { frontier, clock } = setup({ minGapMs: 1000, gapMarginMs: 5 });
    await frontier.addSeeds([url("http://a.test/", 0), url("http://a.test/x", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []); // ends 10 ms later
    clock.now += 10 + 1000 + 5 - 0.01;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 0.01;
    const [page] = frontier.nextTasks(10);
    expect(page!.url).toBe("http://a.test/");
    // This fetch took 300.04 ms, so the gap is 3,000.4 ms (rounded up to 3,001), not 1 s.
    await frontier.complete(response(page!, clock.now, clock.now + 300.04), []);
    clock.now += 300.04 + 3001 + 5 - 0.01;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 0.01;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/x"]);
  });

  test("frontier - never hands out a URL its host's robots.txt disallows", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/private/1", 0), url("http://a.test/ok", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    clock.now += 1000;
    const tasks = frontier.nextTasks(10);
    expect(tasks.map((t) => t.url)).toEqual(["http://a.test/ok"]);
    expect(frontier.counters.get("robots.disallowed")).toBe(1);
    expect(frontier.explainUrl("http://a.test/private/1", "a.test").state).toBe("robots-disallowed");
  });

  test("frontier - parks a host whose robots.txt answered 5xx and asks again after it expires", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(response(r!, clock.now, clock.now + 5, { status: 500, robots: { verdict: "disallow-all" } }), []);
    clock.now += 30 * 60_000;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 31 * 60_000;
    expect(frontier.nextTasks(10).map((t) => t.kind)).toEqual(["robots"]);
  });

  test("frontier - retries a failed URL after an hour, not before", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    clock.now += 1000;
    const [page] = frontier.nextTasks(10);
    await frontier.complete({ ...response(page!, clock.now, clock.now + 5), kind: "network-error", status: 0, error: "timeout" }, []);
    clock.now += 59 * 60_000;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 2 * 60_000;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/"]);
  });

  test("frontier - keeps a URL answered 429 and waits the Retry-After before asking again", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    clock.now += 1000;
    const [page] = frontier.nextTasks(10);
    await frontier.complete(response(page!, clock.now, clock.now + 5, { status: 429, retryAfter: "30" }), []);
    clock.now += 29_000;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 1_100;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/"]);
  });

  test("frontier - admits a redirect target as a new URL and stops after five hops", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/r0", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    for (let hop = 0; hop < 7; hop++) {
      clock.now += 1000;
      const [page] = frontier.nextTasks(10);
      if (!page) break;
      expect(page.redirectHops).toBe(hop);
      await frontier.complete(response(page, clock.now, clock.now + 1, { status: 301, redirectTo: `http://a.test/r${hop + 1}` }), []);
    }
    expect(frontier.counters.get("frontier.redirect-limit")).toBe(1);
    expect(frontier.snapshot().knownUrls).toBe(6);
  });

  test("frontier - admits a URL once however often it is discovered", async () => {
    const { frontier } = setup();
    expect(await frontier.admit([url("http://a.test/p"), url("http://a.test/p")])).toBe(1);
    expect(await frontier.admit([url("http://a.test/p")])).toBe(0);
    expect(frontier.snapshot().queued).toBe(1);
  });

  test("frontier - serves home pages before deeper pages when capacity is short", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.admit([url("http://b.test/deep/page", 9), url("http://c.test/", 1)]);
    for (const t of frontier.nextTasks(10)) await frontier.complete(robots(t, clock.now), []);
    clock.now += 1000;
    expect(frontier.nextTasks(1).map((t) => t.url)).toEqual(["http://c.test/"]);
  });

  test("frontier - drops the lowest-priority URLs first when the queue is over its limit", async () => {
    const { frontier } = setup({}, undefined, 2);
    await frontier.admit([url("http://a.test/", 1), url("http://a.test/deep", 9), url("http://b.test/", 1)]);
    expect(frontier.snapshot().queued).toBe(2);
    expect(frontier.explainUrl("http://a.test/deep", "a.test").state).toBe("dropped");
  });

  test("frontier - rejects trap URLs, and URLs deeper than --max-depth, with a counted reason", async () => {
    const { frontier } = setup({ maxDepth: 3 });
    await frontier.admit([url("http://a.test/x", 4), url("http://a.test/a/b/a/b/a/", 1), url(`http://a.test/${"x".repeat(3000)}`, 1)]);
    expect(frontier.counters.toJSON()).toMatchObject({
      "admission.rejected.depth": 1,
      "traps.rejected.repeated-segment": 1,
      "traps.rejected.url-too-long": 1,
    });
    expect(frontier.snapshot().queued).toBe(0);
  });

  test("frontier - a restarted frontier waits a full gap from its start before each host it loads", async () => {
    const path = `${process.env.TMPDIR ?? "/tmp"}/frontier-test-${process.pid}-${Math.random()}.sqlite`;
    const a = setup({ minGapMs: 5000 }, FrontierStore.open(path));
    await a.frontier.addSeeds([url("http://a.test/", 0), url("http://b.test/", 0), url("http://c.test/", 0)]);
    const [ra, rb, rc] = a.frontier.nextTasks(10);
    // b.test and c.test answered (c.test long ago by this clock); a.test's robots.txt was still in flight
    // when the process died (kill -9), and nothing of it was saved.
    await a.frontier.complete(robots(rb!, a.clock.now), []);
    await a.frontier.complete(robots(rc!, a.clock.now - 60_000), []);
    a.store.close();
    // The new process starts with its clock at T0 (which need not agree with the old one's).
    const b = setup({ minGapMs: 5000 }, FrontierStore.open(path));
    const ready = T0 + 5000 + DEFAULT_POLICY.gapMarginMs;
    b.clock.now = ready - 0.01;
    expect(b.frontier.nextTasks(10)).toEqual([]);
    b.clock.now = ready;
    expect(
      b.frontier
        .nextTasks(10)
        .map((t) => t.url)
        .sort(),
    ).toEqual([ra!.url, "http://c.test/"]);
    // A later time the old run saved still holds: b.test's gap ran from its end, T0 + 10.
    b.clock.now = ready + 10 - 0.01;
    expect(b.frontier.nextTasks(10)).toEqual([]);
    b.clock.now = ready + 10;
    expect(b.frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://b.test/"]);
    b.store.close();
  });

  test("frontier - a host this frontier saved and forgot keeps its time when it comes back", async () => {
    const { frontier, clock } = setup({ minGapMs: 5000, gapMarginMs: 0 });
    await frontier.addSeeds([url("http://a.test/", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    clock.now += 5010;
    const [page] = frontier.nextTasks(10);
    await frontier.complete(response(page!, clock.now, clock.now + 10), []);
    expect(frontier.snapshot().activeHosts).toBe(0); // nothing queued: saved and forgotten
    clock.now += 3000;
    await frontier.admit([url("http://a.test/more")]);
    clock.now += 2009;
    expect(frontier.nextTasks(10)).toEqual([]);
    clock.now += 1;
    expect(frontier.nextTasks(10).map((t) => t.url)).toEqual(["http://a.test/more"]);
  });

  test("frontier - a task given back on stop leaves its URL queued for the next run", async () => {
    const { frontier, clock } = setup({ minGapMs: 0 });
    await frontier.addSeeds([url("http://a.test/", 0)]);
    const [r] = frontier.nextTasks(10);
    await frontier.complete(robots(r!, clock.now), []);
    clock.now += 1000;
    const [page] = frontier.nextTasks(10);
    frontier.abandon(page!);
    expect(frontier.inFlight).toBe(0);
    expect(frontier.snapshot().queued).toBe(1);
  });

  test("handoff - a host handed over waits a full gap from when its new owner loads it, whatever the old owner's clock said", async () => {
    const from = setup({ minGapMs: 1000 });
    await from.frontier.admit([url("http://h.test/a"), url("http://h.test/b")]);
    const [r] = from.frontier.nextTasks(1);
    await from.frontier.complete(robots(r!, from.clock.now), []); // the old owner allows h.test from T0 + 1,015
    const to = FrontierStore.open(":memory:");
    for (const chunk of exportPartition(from.store, r!.partition)) importChunk(to, chunk);
    from.store.deletePartition(r!.partition);
    // The new owner's clock reads T0 + 500 when it takes the partition: 500 ms ahead of the old owner's.
    const clock = { now: T0 + 500 };
    const owner = new Frontier({
      store: to,
      seen: LocalBloomSeenSet.open(undefined, 10_000),
      policy: { ...DEFAULT_POLICY, minGapMs: 1000, sitemaps: "robots" },
      partitions: 16,
      maxQueued: 1_000_000,
      now: () => clock.now,
      newTaskId: () => "n0",
      serving: [r!.partition],
    });
    clock.now = T0 + 500 + 1000 + DEFAULT_POLICY.gapMarginMs - 0.01;
    expect(owner.nextTasks(10)).toEqual([]);
    clock.now += 0.01;
    expect(owner.nextTasks(10).map((t) => t.url)).toEqual(["http://h.test/a"]);
  });

  test("handoff - moves a partition's queue, URL states and host state to another store, nothing lost or doubled", async () => {
    const from = setup({ minGapMs: 0 });
    await from.frontier.admit(Array.from({ length: 50 }, (_, i) => url(`http://h${i % 5}.test/p${i}`)));
    const [t] = from.frontier.nextTasks(1);
    await from.frontier.complete(robots(t!, from.clock.now), []);
    const partition = t!.partition;
    const to = FrontierStore.open(":memory:");
    let chunks = 0;
    for (const chunk of exportPartition(from.store, partition, 7)) {
      importChunk(to, chunk);
      importChunk(to, chunk); // a retried stream must not duplicate anything
      chunks++;
    }
    expect(chunks).toBeGreaterThan(1);
    const fromQueued = [...from.store.queuedByHost(partition)];
    expect([...to.queuedByHost(partition)].sort()).toEqual(fromQueued.sort());
    expect(to.loadRobots(t!.host)?.verdict).toBe("parse");
    expect(to.loadHost(t!.host)).toEqual(from.store.loadHost(t!.host));
    expect(to.urlCount()).toBe(from.store.urlsInPartition(partition, "", 1000).length);
    from.store.deletePartition(partition);
    expect(from.store.queuedByHost(partition).size).toBe(0);
  });
});

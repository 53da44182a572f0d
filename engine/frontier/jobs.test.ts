/**
 * Crawl jobs in the frontier: a URL's job travels with it (queue row, fetch task, result, the links of its
 * page, a redirect target, a retry's schedule), each job's page results are counted where results are
 * applied, and the counts and job numbers survive the change journal's replay and a partition's handoff.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { Frontier, type FrontierOptions } from "./frontier.ts";
import { exportPartition, importChunk } from "./handoff.ts";
import { applyChanges } from "./store/changes.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

function setup(store = FrontierStore.open(":memory:", { journal: true }), feed?: FrontierOptions["feed"]) {
  const clock = { now: T0 };
  let n = 0;
  const frontier = new Frontier({
    feed,
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, sitemaps: "off", minGapMs: 0, gapMarginMs: 0 },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, clock, store };
}

function seed(u: string, job?: number): DiscoveredUrl {
  return { url: u, host: hostKeyOf(u), depth: 0, redirectHops: 0, isSeed: true, ...(job ? { job } : {}) };
}

function answer(task: FetchTask, at: number, status = 200, extra: Partial<FetchResult> = {}): FetchResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status,
    startedAt: at,
    endedAt: at + 1,
    linksFound: 0,
    bytes: 10,
    ...(task.kind === "robots" ? { robots: { verdict: "parse" as const, text: "User-agent: *\nDisallow: /private/\n" } } : {}),
    ...(task.job ? { job: task.job } : {}),
    ...extra,
  } as FetchResult;
}

/** Runs the crawl until no task is left, answering each with `respond`; returns every task handed out. */
async function crawl(
  frontier: Frontier,
  clock: { now: number },
  respond: (t: FetchTask) => { status?: number; links?: DiscoveredUrl[]; extra?: Partial<FetchResult> } = () => ({}),
) {
  const tasks: FetchTask[] = [];
  for (let round = 0; round < 200; round++) {
    clock.now += 10_000;
    const batch = frontier.nextTasks(100);
    if (batch.length === 0 && round > 5) break;
    for (const t of batch) {
      tasks.push(t);
      const r = respond(t);
      // A fetch worker gives its links the task's job (engine/fetch/pipeline/worker.ts).
      const links = (r.links ?? []).map((l) => (t.job ? { ...l, job: t.job } : l));
      await frontier.complete(answer(t, clock.now, r.status, r.extra), links);
    }
  }
  return tasks;
}

describe("frontier jobs", () => {
  test("jobs - a URL's job goes out on its task, its page's links and a redirect's target are the job's, and each job's page results are counted", async () => {
    const { frontier, clock, store } = setup();
    await frontier.addSeeds([seed("http://a.test/", 3), seed("http://a.test/other"), seed("http://b.test/", 3)]);
    const tasks = await crawl(frontier, clock, (t) => {
      if (t.url === "http://a.test/") return { links: [{ url: "http://a.test/found", host: "a.test", depth: 1, redirectHops: 0 }] };
      if (t.url === "http://b.test/") return { status: 301, extra: { redirectTo: "http://b.test/moved" } };
      if (t.url === "http://a.test/found") return { status: 404 };
      return {};
    });
    const pages = tasks.filter((t) => t.kind === "page").map((t) => [t.url, t.job ?? 0]);
    expect(pages.toSorted()).toEqual(
      [
        ["http://a.test/", 3],
        ["http://a.test/found", 3],
        ["http://a.test/other", 0],
        ["http://b.test/", 3],
        ["http://b.test/moved", 3],
      ].toSorted(),
    );
    // Robots tasks are the host's, no job's.
    expect(tasks.filter((t) => t.kind === "robots").every((t) => t.job === undefined)).toBe(true);
    // The 404 is an error. A page's refetch is scheduled as its job's.
    const sums = store.jobCounts.sums();
    expect(Object.fromEntries(sums)).toEqual({ 0: { pages: 1, errors: 0 }, 3: { pages: 4, errors: 1 } });
    const refetch = store.scheduledInPartition(tasks.find((t) => t.url === "http://a.test/")!.partition);
    expect(
      refetch
        .filter((s) => s.url.startsWith("http://a.test/"))
        .map((s) => [s.url, s.job ?? 0])
        .toSorted(),
    ).toEqual([
      ["http://a.test/", 3],
      ["http://a.test/other", 0],
    ]);
  });

  test("jobs - a URL robots.txt forbids is not one of its job's pages: pages count what the web was asked", async () => {
    const { frontier, clock, store } = setup();
    await frontier.addSeeds([seed("http://a.test/private/1", 5), seed("http://a.test/ok", 5)]);
    const tasks = await crawl(frontier, clock);
    expect(tasks.filter((t) => t.kind === "page").map((t) => t.url)).toEqual(["http://a.test/ok"]);
    expect(store.jobCounts.sums().get(5)).toEqual({ pages: 1, errors: 0 });
  });

  test("jobs - the change journal's replay and a partition's handoff keep each queued URL's job and each job's counts", async () => {
    const { frontier, clock, store } = setup();
    await frontier.addSeeds([seed("http://a.test/", 7), seed("http://a.test/two", 7), seed("http://a.test/three")]);
    clock.now += 10_000;
    const [r] = frontier.nextTasks(10);
    await frontier.complete(answer(r!, clock.now), []);
    clock.now += 10_000;
    const [page] = frontier.nextTasks(10);
    expect(page!.job).toBe(7);
    await frontier.complete(answer(page!, clock.now, 404), []);
    const p = page!.partition;

    // Replay: the journal's batches applied to an empty store give the same queue and counts.
    const replica = FrontierStore.open(":memory:");
    for (const row of store.journal!.rows(p, 0, 1_000)) applyChanges(replica, p, JSON.parse(row.body) as unknown[]);
    const queued = (s: FrontierStore) => s.queuedInPartition(p, undefined, 100).map((q) => [q.url, q.job ?? 0]);
    expect(queued(replica)).toEqual(queued(store));
    expect(queued(store)).toEqual([
      ["http://a.test/two", 7],
      ["http://a.test/three", 0],
    ]);
    expect(replica.jobCounts.inPartition(p)).toEqual([{ job: 7, pages: 1, errors: 1 }]);

    // Handoff: exported chunks imported into another store.
    const next = FrontierStore.open(":memory:");
    for (const chunk of exportPartition(store, p)) importChunk(next, chunk);
    expect(queued(next)).toEqual(queued(store));
    expect(next.jobCounts.inPartition(p)).toEqual([{ job: 7, pages: 1, errors: 1 }]);
  });
});

describe("frontier jobs: feeds and sitemaps", () => {
  test("jobs - a job's feed is read by a task of that job, its items are the job's, and the row keeps its job across the journal and a handoff", async () => {
    const store = FrontierStore.open(":memory:", { journal: true });
    const clock = { now: T0 };
    let n = 0;
    const frontier = new Frontier({
      store,
      seen: LocalBloomSeenSet.open(undefined, 10_000),
      policy: { ...DEFAULT_POLICY, sitemaps: "robots", minGapMs: 0, gapMarginMs: 0 },
      partitions: 16,
      maxQueued: 1_000_000,
      now: () => clock.now,
      newTaskId: () => `t${n++}`,
    });
    const feedUrl = "http://news.test/feed.xml";
    // As screenSeeds makes a job's feed: a sitemap reference marked feed, vouched for by its own origin.
    await frontier.addSeeds([{ ...seed(feedUrl, 4), sitemap: { grants: ["http://news.test/"], feed: true } }]);
    const items = ["http://news.test/a", "http://news.test/b"];
    const tasks = await crawl(frontier, clock, (t) =>
      t.kind === "sitemap"
        ? {
            links: items.map((url) => ({ url, host: hostKeyOf(url), depth: 1, redirectHops: 0, lastmod: T0 })),
            extra: { sitemap: { format: "rss", entries: 2, outOfLocation: 0, invalid: 0 } } as Partial<FetchResult>,
          }
        : {},
    );
    expect(tasks.filter((t) => t.kind === "sitemap").map((t) => [t.url, t.job])).toEqual([[feedUrl, 4]]);
    expect(tasks.filter((t) => t.kind === "page").map((t) => [t.url, t.job])).toEqual(items.map((u) => [u, 4]));
    expect(store.jobCounts.sums().get(4)).toEqual({ pages: 2, errors: 0 });

    const p = tasks.find((t) => t.kind === "sitemap")!.partition;
    const replica = FrontierStore.open(":memory:");
    for (const row of store.journal!.rows(p, 0, 1_000)) applyChanges(replica, p, JSON.parse(row.body) as unknown[]);
    expect(replica.sitemaps.byUrl(p, feedUrl)?.job).toBe(4);
    const next = FrontierStore.open(":memory:");
    for (const chunk of exportPartition(store, p)) importChunk(next, chunk);
    expect(next.sitemaps.byUrl(p, feedUrl)?.job).toBe(4);
  });
});

describe("frontier jobs: an ended job's feed", () => {
  test("jobs - when the reread of an ended job's feed falls due, it is set aside unread and leaves its schedule", async () => {
    const store = FrontierStore.open(":memory:");
    const clock = { now: T0 };
    let n = 0;
    const frontier = new Frontier({
      store,
      seen: LocalBloomSeenSet.open(undefined, 10_000),
      policy: { ...DEFAULT_POLICY, sitemaps: "robots", minGapMs: 0, gapMarginMs: 0 },
      partitions: 16,
      maxQueued: 1_000_000,
      now: () => clock.now,
      newTaskId: () => `t${n++}`,
    });
    const feedUrl = "http://news.test/feed.xml";
    await frontier.addSeeds([{ ...seed(feedUrl, 4), sitemap: { grants: ["http://news.test/"], feed: true } }]);
    // Read once, listing nothing new: it waits for its reread.
    const rss = { sitemap: { format: "rss", entries: 0, outOfLocation: 0, invalid: 0 } } as Partial<FetchResult>;
    const first = await crawl(frontier, clock, (t) => (t.kind === "sitemap" ? { extra: rss } : {}));
    expect(first.filter((t) => t.url === feedUrl).map((t) => t.job)).toEqual([4]);
    const due = store.sitemaps.nextFeedDueAt()!;
    expect(due).toBeGreaterThan(clock.now);

    frontier.setJob({ number: 4, state: "cancelled" });
    clock.now = due + 1;
    const after = await crawl(frontier, clock, (t) => (t.kind === "sitemap" ? { extra: rss } : {}));
    expect(after.filter((t) => t.url === feedUrl)).toEqual([]);
    expect(frontier.counters.get("frontier.sitemaps-of-ended-jobs")).toBe(1);
    expect(store.sitemaps.nextFeedDueAt()).toBeUndefined();
    expect(store.sitemaps.feedCounts()).toEqual({ feeds: 1, waiting: 0 });
  });
});

describe("frontier job report", () => {
  test("jobs - the report gives each job's page results, errors and queued URLs; job default's queued is the rest of the queue", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([seed("http://a.test/", 2), seed("http://a.test/b", 2), seed("http://a.test/c"), seed("http://c.test/", 9)]);
    expect(frontier.jobReport(true)).toEqual({
      "0": { pages: 0, errors: 0, queued: 1 },
      "2": { pages: 0, errors: 0, queued: 2 },
      "9": { pages: 0, errors: 0, queued: 1 },
    });
    await crawl(frontier, clock, (t) => (t.url === "http://c.test/" ? { status: 500 } : {}));
    const report = frontier.jobReport(true);
    expect(report["2"]).toEqual({ pages: 2, errors: 0, queued: 0 });
    expect(report["0"]).toEqual({ pages: 1, errors: 0, queued: 0 });
    // The 500 is retried later: one result so far, an error, and the URL waits on the schedule, not the queue.
    expect(report["9"]).toMatchObject({ errors: report["9"]!.pages, queued: 0 });
    expect(report["9"]!.pages).toBeGreaterThanOrEqual(1);
  });
});

describe("frontier job control", () => {
  /** Two jobs on one host: a.test's URLs 1-3 of job 4, 4-6 of job 5, one of default. */
  async function sharedHost() {
    const t = setup();
    await t.frontier.addSeeds([
      ...[1, 2, 3].map((i) => seed(`http://a.test/j4-${i}`, 4)),
      ...[1, 2, 3].map((i) => seed(`http://a.test/j5-${i}`, 5)),
      seed("http://a.test/d-1"),
    ]);
    return t;
  }

  test("jobs - a paused job's URLs are not handed out while the other jobs of the same host go on; resumed, they are", async () => {
    const { frontier, clock } = await sharedHost();
    frontier.setJob({ number: 4, state: "paused" });
    const first = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.url);
    expect(first.toSorted()).toEqual(["http://a.test/d-1", "http://a.test/j5-1", "http://a.test/j5-2", "http://a.test/j5-3"]);
    expect(frontier.queued).toBe(3);
    frontier.setJob({ number: 4, state: "running" });
    const later = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.url);
    expect(later).toEqual(["http://a.test/j4-1", "http://a.test/j4-2", "http://a.test/j4-3"]);
  });

  test("jobs - one request at a time on a host its jobs share: a held job never lets a second task out", async () => {
    const { frontier, clock } = await sharedHost();
    frontier.setJob({ number: 5, state: "paused" });
    clock.now += 10_000;
    expect(frontier.nextTasks(10).map((t) => t.kind)).toEqual(["robots"]);
    expect(frontier.nextTasks(10)).toEqual([]);
  });

  test("jobs - cancelling drops the job's queued URLs, not those of the other jobs of the same host, nor one in flight; its late links are not queued", async () => {
    const { frontier, clock, store } = await sharedHost();
    clock.now += 10_000;
    const [robotsTask] = frontier.nextTasks(10);
    await frontier.complete(answer(robotsTask!, clock.now), []);
    clock.now += 10_000;
    const [inFlight] = frontier.nextTasks(10);
    expect([inFlight!.url, inFlight!.job]).toEqual(["http://a.test/j4-1", 4]);
    expect(frontier.setJob({ number: 4, state: "cancelled" })).toBe(2);
    expect(frontier.queued).toBe(5);
    // The page in flight ends and is counted; the link it found is not queued: its job has ended.
    await frontier.complete(answer(inFlight!, clock.now), [
      { url: "http://a.test/late", host: "a.test", depth: 1, redirectHops: 0, job: 4 },
    ]);
    expect(store.jobCounts.sums().get(4)).toEqual({ pages: 1, errors: 0 });
    const rest = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.url);
    expect(rest.toSorted()).toEqual(["http://a.test/d-1", "http://a.test/j5-1", "http://a.test/j5-2", "http://a.test/j5-3"]);
    expect(frontier.queued).toBe(0);
    expect(store.getUrl(inFlight!.partition, "http://a.test/j4-2")?.state).toBe("dropped");
  });
});

describe("frontier job scope", () => {
  test("jobs - a job with scope host keeps to its own seeds' hosts, whatever the other jobs' seeds and the fleet's scope", async () => {
    const { frontier, clock } = setup();
    frontier.setJob({ number: 1, state: "running", scope: "host", roots: ["a.test"] });
    frontier.setJob({ number: 2, state: "running", roots: ["b.test"] });
    await frontier.addSeeds([seed("http://a.test/", 1), seed("http://b.test/", 2)]);
    const links = [
      { url: "http://a.test/in", host: "a.test", depth: 1, redirectHops: 0 },
      { url: "http://b.test/out-of-job-1", host: "b.test", depth: 1, redirectHops: 0 },
      { url: "http://c.test/elsewhere", host: "c.test", depth: 1, redirectHops: 0 },
    ];
    const tasks = await crawl(frontier, clock, (t) => (t.url === "http://a.test/" || t.url === "http://b.test/" ? { links } : {}));
    const pages = tasks.filter((t) => t.kind === "page").map((t) => `${t.url} ${t.job}`);
    // Job 1 (scope host, root a.test) keeps to a.test; job 2 has no scope of its own: the fleet's (any) applies.
    expect(pages.toSorted()).toEqual(
      [
        "http://a.test/ 1",
        "http://a.test/in 1",
        "http://b.test/ 2",
        "http://b.test/out-of-job-1 2",
        "http://c.test/elsewhere 2",
      ].toSorted(),
    );
  });
});

describe("frontier job turns", () => {
  test("jobs - a host's jobs take turns by weight: weight 3 gets three requests to every one of weight 1, one at a time", async () => {
    const { frontier, clock } = setup();
    frontier.setJob({ number: 1, state: "running", weight: 1 });
    frontier.setJob({ number: 2, state: "running", weight: 3 });
    await frontier.addSeeds([1, 2, 3, 4].map((i) => seed(`http://a.test/one-${i}`, 1)));
    await frontier.addSeeds([1, 2, 3, 4, 5, 6].map((i) => seed(`http://a.test/three-${i}`, 2)));
    const order = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.job);
    expect(order).toEqual([2, 1, 2, 2, 2, 1, 2, 2, 1, 1]);
  });

  test("jobs - without weights of their own, two jobs of a host alternate; a paused one leaves the turns to the other", async () => {
    const { frontier, clock } = setup();
    await frontier.addSeeds([1, 2, 3].map((i) => seed(`http://a.test/x-${i}`, 1)));
    await frontier.addSeeds([1, 2, 3].map((i) => seed(`http://a.test/y-${i}`, 2)));
    frontier.setJob({ number: 1, state: "paused" });
    const first = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.job);
    expect(first).toEqual([2, 2, 2]);
    frontier.setJob({ number: 1, state: "running" });
    await frontier.addSeeds([4, 5].map((i) => seed(`http://a.test/y-${i}`, 2)));
    const then = (await crawl(frontier, clock)).filter((t) => t.kind === "page").map((t) => t.job);
    expect(then).toEqual([1, 2, 1, 2, 1]);
  });
});

describe("frontier feed", () => {
  test("jobs - each page result goes to the feed with its job's id before it is applied; robots.txt does not; a feed that fails fails the batch, applied later once", async () => {
    const given: Array<[string, string, string]> = [];
    let failNext = false;
    const { frontier, clock, store } = setup(FrontierStore.open(":memory:"), async (items) => {
      if (failNext) {
        failNext = false;
        throw new Error("feed down");
      }
      for (const { result, job } of items) given.push([result.taskId, result.url, job]);
    });
    frontier.setJob({ id: "news", number: 3, state: "running" });
    await frontier.addSeeds([seed("http://a.test/", 3), seed("http://a.test/d")]);
    clock.now += 10_000;
    const [r] = frontier.nextTasks(10);
    await frontier.complete(answer(r!, clock.now), []);
    clock.now += 10_000;
    const [page] = frontier.nextTasks(10);
    failNext = true;
    await expect(frontier.complete(answer(page!, clock.now), [])).rejects.toThrow("feed down");
    expect(store.jobCounts.sums().get(3)).toBeUndefined();
    // The same result again (redelivered): given to the feed again (which keeps one by the task id), applied once.
    await frontier.complete(answer(page!, clock.now), []);
    await crawl(frontier, clock);
    expect(given.map(([, url, job]) => [url, job])).toEqual([
      ["http://a.test/", "news"],
      ["http://a.test/d", "default"],
    ]);
    expect(given[0]![0]).toBe(page!.taskId);
    expect(store.jobCounts.sums().get(3)).toEqual({ pages: 1, errors: 0 });
  });
});

describe("frontier job cancel at size", () => {
  test("jobs - a cancelled job's 12,000 queued URLs go a batch of 5,000 a turn of the event loop; the other job's stay", async () => {
    const { frontier } = setup();
    const urls: DiscoveredUrl[] = [];
    for (let i = 0; i < 12_000; i++) urls.push(seed(`http://h${i % 300}.test/p${i}`, 6));
    for (let i = 0; i < 50; i++) urls.push(seed(`http://h${i}.test/keep${i}`, 7));
    await frontier.addSeeds(urls);
    expect(frontier.queued).toBe(12_050);
    expect(frontier.setJob({ number: 6, state: "cancelled" })).toBe(5_000);
    expect(frontier.queued).toBe(7_050);
    for (let i = 0; i < 50 && frontier.queued > 50; i++) await new Promise((r) => setTimeout(r, 5));
    expect(frontier.queued).toBe(50);
    expect(frontier.jobReport(true)["6"]).toBeUndefined();
    expect(frontier.jobReport(true)["7"]).toEqual({ pages: 0, errors: 0, queued: 50 });
  });
});

/**
 * The refetch loop as the frontier runs it, on a fake clock: a page fetched once is scheduled for its
 * refetch, is not handed out before it is due, comes back with the validators of its last visit (for a
 * conditional GET) when it is, a 304 doubles its interval, a changed page halves it and is lifted to the
 * first front queue, and each time the page is queued again when due. The same loop serves retries.
 */
import { describe, expect, test } from "bun:test";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { FetchTask, ResponseResult } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SECOND = 1_000;
const POLICY: PolicyConfig = {
  ...DEFAULT_POLICY,
  allowShortRefetch: true,
  refetchInitialMs: 10 * SECOND,
  refetchMinMs: 5 * SECOND,
  refetchMaxMs: 60 * SECOND,
  minGapMs: SECOND,
  // The /sitemap.xml probe (the default) is one more task per host; sitemaps.test.ts covers it. These tests step through pages.
  sitemaps: "robots",
};

function setup() {
  const clock = { now: T0 };
  const store = FrontierStore.open(":memory:");
  let n = 0;
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: POLICY,
    partitions: 16,
    maxQueued: 1_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
  });
  return { frontier, store, clock };
}

function answer(task: FetchTask, at: number, extra: Partial<ResponseResult>): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: at,
    endedAt: at + 20,
    linksFound: 0,
    bytes: 100,
    ...extra,
  };
}

const URL = "http://a.test/news";

describe("frontier: the refetch loop", () => {
  test("refetch loop - validators go into the task, a 304 doubles the interval, a change halves it, the page is queued again each time it is due", async () => {
    const { frontier, store, clock } = setup();
    const partition = (url: string) => partitionOf(hostKeyOf(url), 16);
    await frontier.addSeeds([{ url: URL, host: hostKeyOf(URL), depth: 0, redirectHops: 0 }]);
    const [robots] = frontier.nextTasks(10);
    expect(robots?.kind).toBe("robots");
    await frontier.complete(answer(robots!, clock.now, { robots: { verdict: "allow-all" } }), []);

    // First visit: no validators to send; the answer carries them, and the page is scheduled after the initial interval.
    clock.now += 2 * SECOND;
    const [first] = frontier.nextTasks(10);
    expect(first).toMatchObject({ kind: "page", url: URL });
    expect([first!.etag, first!.lastModified, first!.previousFingerprint]).toEqual([undefined, undefined, undefined]);
    await frontier.complete(
      answer(first!, clock.now, { etag: '"v1"', lastModified: "Mon, 05 Jan 2026 08:00:00 GMT", fingerprint: "f1", changed: false }),
      [],
    );
    const fetchedAt = clock.now;
    expect(frontier.queued).toBe(0);
    expect(store.scheduledAt(partition(URL), URL)).toBe(fetchedAt + 10 * SECOND);
    expect(frontier.snapshot(true).scheduled).toBe(1);

    // Not before it is due, and the frontier says when it will be.
    clock.now = fetchedAt + 10 * SECOND - 1;
    expect(frontier.nextTasks(10)).toEqual([]);
    expect(frontier.nextWakeAt()).toBe(fetchedAt + 10 * SECOND);

    // Due: queued again and handed out with the validators and fingerprint of the last visit.
    clock.now = fetchedAt + 10 * SECOND + 1_500;
    const [second] = frontier.nextTasks(10);
    expect(second).toMatchObject({
      kind: "page",
      url: URL,
      etag: '"v1"',
      lastModified: "Mon, 05 Jan 2026 08:00:00 GMT",
      previousFingerprint: "f1",
    });
    expect(frontier.counters.get("frontier.rescheduled")).toBe(1);

    // 304: unchanged, the interval doubles; the validators are kept.
    await frontier.complete(answer(second!, clock.now, { status: 304 }), []);
    const notModifiedAt = clock.now;
    expect(store.getUrl(partition(URL), URL)).toMatchObject({
      refetchMs: 20 * SECOND,
      etag: '"v1"',
      fingerprint: "f1",
      changedLastVisit: false,
    });
    expect(store.scheduledAt(partition(URL), URL)).toBe(notModifiedAt + 20 * SECOND);

    clock.now = notModifiedAt + 20 * SECOND + 1_500;
    const [third] = frontier.nextTasks(10);
    expect(third).toMatchObject({ etag: '"v1"', previousFingerprint: "f1" });

    // Changed: the interval halves, and the page goes to the first front queue.
    await frontier.complete(answer(third!, clock.now, { etag: '"v2"', fingerprint: "f2", changed: true }), []);
    const changedAt = clock.now;
    expect(store.getUrl(partition(URL), URL)).toMatchObject({
      refetchMs: 10 * SECOND,
      etag: '"v2"',
      fingerprint: "f2",
      changedLastVisit: true,
    });
    expect(store.scheduledAt(partition(URL), URL)).toBe(changedAt + 10 * SECOND);
    expect(store.scheduledInPartition(partition(URL))[0]?.priority).toBe(1);

    clock.now = changedAt + 10 * SECOND + 1_500;
    const [fourth] = frontier.nextTasks(10);
    expect(fourth).toMatchObject({ url: URL, etag: '"v2"', previousFingerprint: "f2" });
    expect(frontier.counters.get("frontier.rescheduled")).toBe(3);
  });

  test("refetch loop - a page that keeps changing stops at the shortest interval, one that never changes at the longest", async () => {
    const { frontier, store, clock } = setup();
    const p = partitionOf(hostKeyOf(URL), 16);
    await frontier.addSeeds([{ url: URL, host: hostKeyOf(URL), depth: 0, redirectHops: 0 }]);
    const [robots] = frontier.nextTasks(10);
    await frontier.complete(answer(robots!, clock.now, { robots: { verdict: "allow-all" } }), []);
    const visit = async (extra: Partial<ResponseResult>) => {
      clock.now += 120 * SECOND;
      const [task] = frontier.nextTasks(10);
      expect(task?.url).toBe(URL);
      await frontier.complete(answer(task!, clock.now, extra), []);
      return store.getUrl(p, URL)!.refetchMs;
    };
    await visit({ fingerprint: "f0" });
    const changing = [];
    for (let i = 1; i <= 3; i++) changing.push(await visit({ fingerprint: `f${i}`, changed: true }));
    expect(changing).toEqual([5 * SECOND, 5 * SECOND, 5 * SECOND]);
    const steady = [];
    for (let i = 0; i < 5; i++) steady.push(await visit({ status: 304 }));
    expect(steady).toEqual([10, 20, 40, 60, 60].map((s) => s * SECOND));
  });
});

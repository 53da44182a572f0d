/**
 * A URL's captures through the frontier: each result that stored a record adds one, newest first, to the
 * URL's row; a result that stored none leaves them; they survive closing and reopening the store, and
 * travel with the row in a partition handoff and in the replica's change journal.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../../core/config/index.ts";
import type { FetchResult, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { Frontier } from "./frontier.ts";
import { exportPartition, importChunk } from "./handoff.ts";
import { applyChanges } from "./store/changes.ts";
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
  sitemaps: "robots",
};
const URL_A = "http://a.test/news";
const PARTITIONS = 16;
const partition = partitionOf(hostKeyOf(URL_A), PARTITIONS);

function open(store: FrontierStore, clock: { now: number }) {
  let n = 0;
  return new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: POLICY,
    partitions: PARTITIONS,
    maxQueued: 1_000,
    now: () => clock.now,
    newTaskId: () => `t${clock.now}-${n++}`,
  });
}

function answer(task: FetchTask, at: number, extra: Partial<ResponseResult> = {}): ResponseResult {
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

const stored = (i: number): Partial<ResponseResult> => ({
  fingerprint: `f${i}`,
  contentType: "text/html",
  warc: { file: `crawl-${i}.warc.gz`, offset: 100 * i, length: 10 + i },
  text: { file: `crawl-${i}.warc.wet.gz`, offset: 50 * i, length: 5 + i },
});

/** Crawls URL_A `visits` times (a refetch each time it is due); `results(i)` says what visit i stored. */
async function crawl(
  frontier: Frontier,
  clock: { now: number },
  visits: number,
  results: (i: number, task: FetchTask) => FetchResult,
  job?: number,
) {
  await frontier.addSeeds([{ url: URL_A, host: hostKeyOf(URL_A), depth: 0, redirectHops: 0, job }]);
  const [robots] = frontier.nextTasks(10);
  await frontier.complete(answer(robots!, clock.now, { robots: { verdict: "allow-all" } }), []);
  for (let i = 1; i <= visits; i++) {
    clock.now += 2 * 3_600 * SECOND; // past a refetch (at most 60 s) and a retry (1 h)
    const [task] = frontier.nextTasks(10);
    expect(task?.url).toBe(URL_A);
    await frontier.complete(results(i, task!), []);
  }
}

describe("frontier: a URL's captures", () => {
  test("captures - each stored visit adds one, newest first; a visit that stored nothing leaves them as they were", async () => {
    const clock = { now: T0 };
    const frontier = open(FrontierStore.open(":memory:"), clock);
    expect(frontier.urlCaptures(URL_A, "a.test")).toEqual([]);
    await crawl(frontier, clock, 3, (i, task) =>
      i === 2 ? { ...answer(task, clock.now), kind: "network-error", status: 0, error: "timeout" } : answer(task, clock.now, stored(i)),
    );
    const captures = frontier.urlCaptures(URL_A, "a.test");
    expect(captures.map((c) => c.warc)).toEqual([stored(3).warc!, stored(1).warc!]);
    expect(captures[0]).toMatchObject({ status: 200, contentType: "text/html", digest: "f3", job: "default" });
    expect(captures[0]!.fetchedAt).toBeGreaterThan(captures[1]!.fetchedAt);
  });

  test("captures - a capture names the crawl job of its URL by id (#N while the frontier has not heard of job N)", async () => {
    const clock = { now: T0 };
    const frontier = open(FrontierStore.open(":memory:"), clock);
    frontier.setJob({ number: 3, id: "news", state: "running" });
    await crawl(frontier, clock, 1, (i, task) => answer(task, clock.now, stored(i)), 3);
    expect(frontier.urlCaptures(URL_A, "a.test").map((c) => c.job)).toEqual(["news"]);

    const later = { now: T0 };
    const unheard = open(FrontierStore.open(":memory:"), later);
    await crawl(unheard, later, 1, (i, task) => answer(task, later.now, stored(i)), 5);
    expect(unheard.urlCaptures(URL_A, "a.test").map((c) => c.job)).toEqual(["#5"]);
  });

  test("captures - they survive closing and reopening the store, and move with the partition in a handoff", async () => {
    const dir = mkdtempSync(join(tmpdir(), "captures-"));
    try {
      const clock = { now: T0 };
      const path = join(dir, "frontier.sqlite");
      const first = FrontierStore.open(path);
      await crawl(open(first, clock), clock, 2, (i, task) => answer(task, clock.now, stored(i)));
      first.close();
      const reopened = FrontierStore.open(path);
      const again = open(reopened, clock);
      expect(again.urlCaptures(URL_A, "a.test").map((c) => c.warc.file)).toEqual(["crawl-2.warc.gz", "crawl-1.warc.gz"]);

      const to = FrontierStore.open(":memory:");
      for (const chunk of exportPartition(reopened, partition)) importChunk(to, chunk);
      expect(
        open(to, clock)
          .urlCaptures(URL_A, "a.test")
          .map((c) => c.warc.file),
      ).toEqual(["crawl-2.warc.gz", "crawl-1.warc.gz"]);
      reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("captures - the replica's change journal carries them; a row change from before captures still applies", async () => {
    const clock = { now: T0 };
    const source = FrontierStore.open(":memory:", { journal: true });
    await crawl(open(source, clock), clock, 2, (i, task) => answer(task, clock.now, stored(i)));
    const replica = FrontierStore.open(":memory:");
    const journal = source.journal!;
    for (const row of journal.rows(partition, 0, 1_000)) applyChanges(replica, partition, JSON.parse(row.body) as unknown[]);
    expect(
      open(replica, clock)
        .urlCaptures(URL_A, "a.test")
        .map((c) => c.warc.file),
    ).toEqual(["crawl-2.warc.gz", "crawl-1.warc.gz"]);

    const old = FrontierStore.open(":memory:");
    applyChanges(old, partition, [["u", URL_A, "a.test", "fetched", 0, 0, 200, T0, 10_000, null, null, "f", null, 0, null]]);
    expect(old.getUrl(partition, URL_A)?.state).toBe("fetched");
    expect(open(old, clock).urlCaptures(URL_A, "a.test")).toEqual([]);
  });
});

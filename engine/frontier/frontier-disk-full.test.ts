/**
 * The frontier on a full disk (its store on a small tmpfs, tests/support/small-disk.ts): a batch of results
 * that cannot be committed rolls back whole, the frontier hands out no task until a probe write succeeds,
 * and then the same page is fetched again (its URL stayed queued, its host waited a full gap) and its links
 * are admitted although the seen-set already saw them.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { FetchTask, ResponseResult } from "../../core/model/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { mountSmallDisk, type SmallDisk } from "../../tests/support/small-disk.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

let disk: SmallDisk | undefined;
afterEach(() => {
  disk?.unmount();
  disk = undefined;
});

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

function ok(task: FetchTask, at: number): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: task.kind === "robots" ? 404 : 200,
    startedAt: at,
    endedAt: at + 10,
    linksFound: 0,
    bytes: 100,
    ...(task.kind === "robots" ? { robots: { verdict: "allow-all" as const } } : {}),
  };
}

test("frontier - a full disk rolls the failed batch back, stops the tasks until there is room, then the page is fetched again and its links admitted", async () => {
  disk = mountSmallDisk(8 * 1024 * 1024);
  const store = FrontierStore.open(join(disk.dir, "frontier.sqlite"));
  const clock = { now: T0 };
  let n = 0;
  const events: string[] = [];
  const frontier = new Frontier({
    store,
    seen: LocalBloomSeenSet.open(undefined, 10_000),
    policy: { ...DEFAULT_POLICY, minGapMs: 1_000 },
    partitions: 16,
    maxQueued: 1_000_000,
    now: () => clock.now,
    newTaskId: () => `t${n++}`,
    onDisk: (full) => events.push(full ? "full" : "room"),
  });
  const seed = "http://a.test/";
  await frontier.addSeeds([{ url: seed, host: "a.test", depth: 0, redirectHops: 0 }]);
  const [robots] = frontier.nextTasks(10);
  await frontier.complete(ok(robots!, clock.now), []);
  clock.now += 2_000;
  const [page] = frontier.nextTasks(10);
  expect(page!.url).toBe(seed);

  // The page's result and its links cannot be committed: nothing of them is, and the tasks stop.
  disk.fill(0);
  const links = Array.from({ length: 200 }, (_, i) => `http://a.test/${"long-path-".repeat(20)}${i}`);
  const found = links.map((u) => ({ url: u, host: hostKeyOf(u), depth: 1, redirectHops: 0 }));
  await expect(frontier.complete(ok(page!, clock.now), found)).rejects.toThrow(/full/);
  expect(events).toEqual(["full"]);
  expect(frontier.diskFull).toBe(true);
  expect(frontier.inFlight).toBe(0);
  expect(frontier.queued).toBe(1);
  clock.now += 5_000;
  expect(frontier.nextTasks(10)).toEqual([]);

  // Room again: the probe finds it, the page is handed out again (after its gap), and its links are
  // admitted although the seen-set answered "seen" for them the first time.
  disk.free();
  clock.now += 5_000;
  const again = frontier.nextTasks(10);
  expect(events).toEqual(["full", "room"]);
  expect(again.map((t) => t.url)).toEqual([seed]);
  await frontier.complete(ok(again[0]!, clock.now), found);
  expect(frontier.queued).toBe(links.length);
  store.close();
  // The store is whole.
  const reopened = FrontierStore.open(join(disk.dir, "frontier.sqlite"));
  expect(reopened.totalQueued()).toBe(links.length);
  reopened.close();
});

/**
 * The frontier over a seen-set in a real Redis that loses what it held (FLUSHALL: what an empty restart
 * leaves). The store is the truth: a partition Redis lost admits nothing until it is rebuilt from the
 * store, after which every URL the store knows is seen again and new URLs are admitted; and an admission
 * that got its answers just before the loss is in the rebuild even though it committed after it. Then the
 * same over a Redis that crashes and restarts from its AOF, which the seen-set's writes are kept out of.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectRedis, type RedisClient } from "../../adapters/redis/connect.ts";
import { RedisSeenSet } from "../../adapters/redis/redis-seen-set.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import type { DiscoveredUrl, FetchTask, ResponseResult } from "../../core/model/index.ts";
import { SeenSetLostError, type SeenSet } from "../../core/ports/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { hostKeyOf } from "../../core/url/index.ts";
import { startRedis, type RedisServer } from "../../tests/support/redis.ts";
import { Frontier } from "./frontier.ts";
import { FrontierStore } from "./store/frontier-store.ts";

const P = 4;
let server: RedisServer;
let client: RedisClient;
let prefixes = 0;

beforeAll(async () => {
  server = await startRedis();
  client = await connectRedis(server.url);
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

function setup(seen: SeenSet, serving?: number[]) {
  const store = FrontierStore.open(":memory:");
  let n = 0;
  const now = { t: Date.UTC(2026, 0, 1) };
  const frontier = new Frontier({
    store,
    seen,
    policy: { ...DEFAULT_POLICY, minGapMs: 0 },
    partitions: P,
    maxQueued: 1_000_000,
    now: () => now.t,
    newTaskId: () => `t${n++}`,
    serving,
  });
  return { frontier, store, now };
}

const url = (u: string): DiscoveredUrl => ({ url: u, host: hostKeyOf(u), depth: 1, redirectHops: 0 });
const pages = (from: number, to: number, tag = "p") =>
  Array.from({ length: to - from }, (_, k) => url(`http://h${(from + k) % 23}.test/${tag}/${from + k}`));

async function rebuildsDone(frontier: Frontier): Promise<void> {
  for (let i = 0; frontier.partitionsRebuildingSeen.length > 0; i++) {
    if (i > 500) throw new Error(`seen-set rebuilds still running: ${frontier.partitionsRebuildingSeen}`);
    await Bun.sleep(10);
  }
}

/** Admits `urls`, waiting out the rebuilds a lost partition starts (as a nak'ed message comes back). */
async function admitEventually(frontier: Frontier, urls: DiscoveredUrl[]): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await frontier.admit(urls, { confirmSeen: attempt > 0 });
    } catch (error) {
      if (!(error instanceof SeenSetLostError) || attempt > 5) throw error;
      await rebuildsDone(frontier);
    }
  }
}

function response(task: FetchTask, at: number): ResponseResult {
  return {
    taskId: task.taskId,
    kind: "response",
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    status: 200,
    startedAt: at,
    endedAt: at + 5,
    linksFound: 0,
    bytes: 100,
  };
}

describe("frontier over a Redis seen-set that loses its keys", () => {
  test("a partition Redis lost admits nothing until it is rebuilt from the store; then the store's URLs stay seen", async () => {
    const seen = new RedisSeenSet(client, { keyPrefix: `recovery-${++prefixes}`, initialCapacity: 1_000 });
    const { frontier, now } = setup(seen);
    // A partition never built is started from the (empty) store on first use, without alarm.
    const known = pages(0, 300);
    expect(await admitEventually(frontier, known)).toBe(known.length);
    expect(frontier.counters.get("seen.partitions-started")).toBe(P);
    expect(frontier.counters.get("seen.partitions-rebuilt")).toBe(0);
    // Some of them fetched: they move from the queue to the URL states.
    for (let round = 0; round < 5; round++) {
      for (const task of frontier.nextTasks(100)) await frontier.complete(response(task, now.t), []);
      now.t += 1_000;
    }
    expect(frontier.counters.get("fetch.pages")).toBeGreaterThan(20);

    expect(await server.command("FLUSHALL")).toBe("+OK\r\n");
    const fresh = pages(0, 40, "new");
    const error = await frontier.admit([...known.slice(0, 10), ...fresh]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeenSetLostError);
    await rebuildsDone(frontier);
    expect(frontier.counters.get("seen.partitions-rebuilt")).toBe(P);
    expect(frontier.counters.get("seen.rebuilt-urls")).toBe(known.length);
    // Nothing the store knows is admitted again; the new URLs are.
    expect(await admitEventually(frontier, known)).toBe(0);
    expect(await admitEventually(frontier, fresh)).toBe(fresh.length);
  });

  test("a partition the frontier starts serving is probed: one Redis never built is started before its first URL, admitted at its first try", async () => {
    const seen = new RedisSeenSet(client, { keyPrefix: `recovery-${++prefixes}`, initialCapacity: 1_000 });
    const { frontier } = setup(seen, []);
    frontier.setServing([0, 1, 2, 3]);
    for (let i = 0; (frontier.counters.get("seen.partitions-started") ?? 0) < P || frontier.partitionsRebuildingSeen.length > 0; i++) {
      if (i > 500) throw new Error("the served partitions were not started");
      await Bun.sleep(10);
    }
    const urls = pages(0, 100);
    expect(await frontier.admit(urls)).toBe(urls.length);
    expect(frontier.counters.get("seen.lost.missing")).toBe(P);
    expect(frontier.counters.get("seen.partitions-rebuilt")).toBe(0);
    // Serving a partition again (it left and came back) probes it again: it answers, nothing to rebuild.
    frontier.setServing([0, 1, 2]);
    frontier.setServing([0, 1, 2, 3]);
    expect(await frontier.admit(pages(100, 140))).toBe(40);
    expect(frontier.counters.get("seen.partitions-started")).toBe(P);
  });

  test("an admission answered just before the loss and committed after it is in the rebuild", async () => {
    const inner = new RedisSeenSet(client, { keyPrefix: `recovery-${++prefixes}`, initialCapacity: 1_000 });
    // Holds the answer of the first call for partition `slow` until released: the admission sits between
    // its seen check and its commit.
    let hold: Promise<void> | undefined;
    let release!: () => void;
    let answered!: () => void;
    const answeredNow = new Promise<void>((r) => (answered = r));
    const seen: SeenSet = {
      checkAndAdd: async (p, keys) => {
        const answers = await inner.checkAndAdd(p, keys);
        if (hold && keys.some((k) => k.includes("/held/"))) {
          answered();
          await hold;
        }
        return answers;
      },
      // Reads the store at once, as a fast rebuild would: whatever is committed later is not in it.
      rebuild: (p, keys) => inner.rebuild(p, [...(keys as Iterable<readonly string[]>)]),
      release: (p) => inner.release(p),
      close: () => inner.close(),
    };
    const { frontier } = setup(seen);
    expect(await admitEventually(frontier, pages(0, 50))).toBe(50);

    const held = [url("http://slow.test/held/1"), url("http://slow.test/held/2")];
    const other = url("http://slow.test/later");
    expect(partitionOf("slow.test", P)).toBe(partitionOf(other.host, P));
    hold = new Promise<void>((r) => (release = r));
    const admitting = frontier.admit(held);
    await answeredNow;
    // Redis loses everything while that admission waits to commit; the next admission notices.
    await server.command("FLUSHALL");
    expect(await frontier.admit([other]).catch((e: unknown) => e)).toBeInstanceOf(SeenSetLostError);
    expect(frontier.seenRebuilding(partitionOf("slow.test", P))).toBe(true);
    release();
    expect(await admitting).toBe(2);
    await rebuildsDone(frontier);
    // The held URLs were committed after the loss, yet the rebuild has them: never admitted twice.
    expect(await admitEventually(frontier, held)).toBe(0);
    expect(await admitEventually(frontier, [other])).toBe(1);
  });
});

describe("frontier over a Redis seen-set whose Redis crashes and restarts from its AOF", () => {
  test("URLs admitted after the AOF's last rewrite are refused until the partition is rebuilt from the store, never admitted twice", async () => {
    const dir = mkdtempSync(join(tmpdir(), "seen-recovery-aof-"));
    let aofServer = await startRedis({ appendOnly: true, dir });
    const aofClient = await connectRedis(aofServer.url, { commandTimeoutMs: 10_000 });
    try {
      const seen = new RedisSeenSet(aofClient, { keyPrefix: "recovery-aof", initialCapacity: 1_000 });
      const { frontier } = setup(seen);
      const early = pages(0, 200, "early");
      expect(await admitEventually(frontier, early)).toBe(early.length);
      // The rewrite catches the early URLs' bits; the late ones live in Redis's memory only.
      await aofClient.sendCommand(["BGREWRITEAOF"]);
      for (
        let i = 0;
        !/aof_rewrite_in_progress:0[\s\S]*aof_rewrite_scheduled:0/.test(await aofClient.sendCommand<string>(["INFO", "persistence"]));
        i++
      ) {
        if (i > 500) throw new Error("AOF rewrite did not finish");
        await Bun.sleep(10);
      }
      const late = pages(0, 200, "late");
      expect(await admitEventually(frontier, late)).toBe(late.length);
      await Bun.sleep(1_100);
      await aofServer.kill();
      aofServer = await startRedis({ appendOnly: true, port: aofServer.port, dir });
      // Redis came back with the early URLs' bits only: the late URLs would read "not seen" there. (The
      // client answers URLs it knows are in without asking; a new URL makes it ask.)
      const error = await frontier.admit([...late.slice(0, 20), ...pages(0, 20, "after")]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SeenSetLostError);
      expect((error as SeenSetLostError).reason).toBe("restarted");
      await rebuildsDone(frontier);
      expect(frontier.counters.get("seen.lost.restarted")).toBeGreaterThan(0);
      expect(await admitEventually(frontier, [...early, ...late])).toBe(0);
      expect(await admitEventually(frontier, pages(0, 30, "new"))).toBe(30);
      // A frontier node started after the restart (nothing known in its client) sees the late URLs as seen.
      const other = setup(new RedisSeenSet(aofClient, { keyPrefix: "recovery-aof", initialCapacity: 1_000, cacheSlotsPerPartition: 0 }));
      expect(await admitEventually(other.frontier, late)).toBe(0);
    } finally {
      if (aofClient.isOpen) await aofClient.close();
      await aofServer.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

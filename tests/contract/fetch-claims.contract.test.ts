/**
 * The FetchClaims contract (core/ports/fetch-claims.ts), one suite run against every implementation: the
 * in-memory `MemoryFetchClaims` and `RedisFetchClaims` on a real redis-server (two connections: two fetch
 * nodes). The first copy to claim a task holds it, a repeat of it is told so and how long ago it claimed,
 * any other copy hears "other-copy", a task marked done is done for every copy, racing claims agree on one
 * holder, a copy whose attempt says it holds the outputs is "held" until that word lapses, and claims expire. Then Redis-only properties: the key and its TTL, a dropped connection and an
 * emptied script cache, a server that does not answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { MemoryFetchClaims } from "../../adapters/memory/index.ts";
import { connectRedis, RedisFetchClaims, type RedisClient } from "../../adapters/redis/index.ts";
import type { FetchClaim, FetchClaims } from "../../core/ports/index.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

interface Implementation {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** Two handles on one store (two fetch nodes); may be the same object. */
  make(): [FetchClaims, FetchClaims];
}

let redis: RedisServer | undefined;
let clients: RedisClient[] = [];
let prefixes = 0;
const freshPrefix = () => `crawler:fetch-claim-test-${++prefixes}:`;

const implementations: Implementation[] = [
  {
    name: "MemoryFetchClaims (in-process)",
    setup: async () => {},
    teardown: async () => {},
    make: () => {
      const claims = new MemoryFetchClaims();
      return [claims, claims];
    },
  },
  {
    name: "RedisFetchClaims (redis-server)",
    setup: async () => {
      redis = await startRedis();
      clients = await Promise.all([connectRedis(redis.url), connectRedis(redis.url)]);
    },
    teardown: async () => {
      for (const c of clients) if (c.isOpen) await c.close();
      await redis?.stop();
    },
    make: () => {
      const keyPrefix = freshPrefix();
      const ownerEpochPrefix = `${keyPrefix}owner-epoch:`;
      return [
        new RedisFetchClaims(clients[0]!, { keyPrefix, ownerEpochPrefix }),
        new RedisFetchClaims(clients[1]!, { keyPrefix, ownerEpochPrefix }),
      ];
    },
  },
];

const MINUTE = 60_000;

/** Resolves once `cond` holds, polling (no fixed sleep). */
async function waitFor(cond: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const NEW: FetchClaim = { kind: "new" };
const OTHER: FetchClaim = { kind: "other-copy" };
const DONE: FetchClaim = { kind: "done" };
/** A repeat, of any age (`expect.any` stands for the number). */
const again = (): FetchClaim => ({ kind: "again", ageMs: expect.any(Number) as number });

for (const impl of implementations) {
  describe(`FetchClaims contract: ${impl.name}`, () => {
    beforeAll(() => impl.setup());
    afterAll(() => impl.teardown());

    test("the first copy to claim a task holds it; its repeats are told so; another copy is not let in", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("t1", 17, MINUTE)).toEqual(NEW);
      // A repeat of the same copy, here or on another node.
      expect(await a.claim("t1", 17, MINUTE)).toEqual(again());
      expect(await b.claim("t1", 17, MINUTE)).toEqual(again());
      // A second stored copy of the same task.
      expect(await b.claim("t1", 42, MINUTE)).toEqual(OTHER);
      expect(await a.claim("t1", 42, MINUTE)).toEqual(OTHER);
      expect(await a.claim("t1", 17, MINUTE)).toEqual(again());
      // Tasks are independent, whatever their copies' numbers.
      expect(await b.claim("t2", 42, MINUTE)).toEqual(NEW);
      expect(await a.claim("t3", 17, MINUTE)).toEqual(NEW);
    });

    test("a repeat is told how long ago its copy claimed the task", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("aged", 3, MINUTE)).toEqual(NEW);
      const claimedAt = performance.now();
      await waitFor(async () => performance.now() - claimedAt > 120, "some time to pass");
      const repeat = await b.claim("aged", 3, MINUTE);
      const elapsed = performance.now() - claimedAt;
      expect(repeat.kind).toBe("again");
      const ageMs = repeat.kind === "again" ? repeat.ageMs : -1;
      // On the store's clock (ms resolution): at least the time waited, at most the time since the claim.
      expect(ageMs).toBeGreaterThanOrEqual(100);
      expect(ageMs).toBeLessThanOrEqual(elapsed + 2);
    });

    test("a task marked done is done for every copy, the one that held it included", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("d1", 5, MINUTE)).toEqual(NEW);
      await a.done("d1", MINUTE);
      expect(await a.claim("d1", 5, MINUTE)).toEqual(DONE);
      expect(await b.claim("d1", 6, MINUTE)).toEqual(DONE);
      await b.done("d1", MINUTE);
      expect(await b.claim("d1", 5, MINUTE)).toEqual(DONE);
      // Marked done without a claim (fetched while the claims could not answer).
      await b.done("d2", MINUTE);
      expect(await a.claim("d2", 1, MINUTE)).toEqual(DONE);
    });

    test("two copies racing for one task: exactly one holds it", async () => {
      const [a, b] = impl.make();
      for (let round = 0; round < 50; round++) {
        const id = `race-${round}`;
        const answers = await Promise.all([a.claim(id, 1_000 + round, MINUTE), b.claim(id, 2_000 + round, MINUTE)]);
        expect(answers.filter((x) => x.kind === "new")).toHaveLength(1);
        expect(answers.filter((x) => x.kind === "other-copy")).toHaveLength(1);
      }
    });

    test("a claim and a done mark last their TTL: then the task is free, and the next copy to claim it holds it", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("short", 5, 150)).toEqual(NEW);
      expect(await b.claim("short", 6, 150)).toEqual(OTHER);
      // Claiming again does not extend it.
      expect(await a.claim("short", 5, 150)).toEqual(again());
      await waitFor(async () => (await b.claim("short", 6, 150)).kind === "new", "the claim to expire and copy 6 to take the task");
      expect(await a.claim("short", 5, 150)).toEqual(OTHER);
      await b.done("short", 150);
      expect(await a.claim("short", 5, 60_000)).toEqual(DONE);
      await waitFor(async () => (await a.claim("short", 5, 60_000)).kind === "new", "the done mark to expire");
    });

    test("while a copy's attempt says it holds the outputs, a repeat of that copy hears held, with the time left; then again", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("h1", 8, MINUTE)).toEqual(NEW);
      await a.hold("h1", 8, 400);
      const repeat = await b.claim("h1", 8, MINUTE);
      expect(repeat.kind).toBe("held");
      const forMs = repeat.kind === "held" ? repeat.forMs : -1;
      expect(forMs).toBeGreaterThan(0);
      expect(forMs).toBeLessThanOrEqual(400);
      // Another copy is still another copy, and done still wins.
      expect(await b.claim("h1", 9, MINUTE)).toEqual(OTHER);
      // The word lapses unless it is said again: then the repeat hears again, with the age of the claim.
      await waitFor(async () => (await b.claim("h1", 8, MINUTE)).kind === "again", "the hold to lapse");
      await a.hold("h1", 8, MINUTE);
      expect((await b.claim("h1", 8, MINUTE)).kind).toBe("held");
      await a.done("h1", MINUTE);
      expect(await b.claim("h1", 8, MINUTE)).toEqual(DONE);
    });

    test("a hold changes nothing but the holding copy's own claim, and does not extend its TTL", async () => {
      const [a, b] = impl.make();
      // No claim: nothing to hold, the next claim is new.
      await a.hold("h2", 1, MINUTE);
      expect(await b.claim("h2", 1, MINUTE)).toEqual(NEW);
      // Another copy's word does not touch the holder's claim.
      await b.hold("h2", 2, MINUTE);
      expect(await a.claim("h2", 1, MINUTE)).toEqual(again());
      // A done task stays done.
      await a.done("h3", MINUTE);
      await a.hold("h3", 1, MINUTE);
      expect(await b.claim("h3", 1, MINUTE)).toEqual(DONE);
      // The claim still ends with its own TTL, held or not.
      expect(await a.claim("h4", 4, 150)).toEqual(NEW);
      await a.hold("h4", 4, MINUTE);
      await waitFor(async () => (await b.claim("h4", 5, MINUTE)).kind === "new", "the held claim to expire with its TTL");
    });

    test("a task of an older ownership epoch than one already claimed for its partition is stale and takes nothing; others are not fenced", async () => {
      const [a, b] = impl.make();
      // The partition's first owner (epoch 3), then a new owner (epoch 5) after it was declared dead.
      expect(await a.claim("old-1", 1, MINUTE, { partition: 7, epoch: 3 })).toEqual(NEW);
      expect(await b.claim("new-1", 2, MINUTE, { partition: 7, epoch: 5 })).toEqual(NEW);
      // The former owner, thawed, still hands out tasks stamped with 3: refused, on either node, with the epoch that fences them.
      expect(await a.claim("old-2", 3, MINUTE, { partition: 7, epoch: 3 })).toEqual({ kind: "stale", ownerEpoch: 5 });
      expect(await b.claim("old-2", 3, MINUTE, { partition: 7, epoch: 3 })).toEqual({ kind: "stale", ownerEpoch: 5 });
      // Nothing was set for it: once it is no longer stale (never, here) it would be new. Its own claim of
      // before the new owner came is a plain repeat only if asked without an owner.
      expect(await a.claim("old-2", 3, MINUTE)).toEqual(NEW);
      // The current owner's tasks, and the same epoch again, pass; a higher one raises the fence.
      expect(await a.claim("new-2", 4, MINUTE, { partition: 7, epoch: 5 })).toEqual(NEW);
      expect(await b.claim("newer", 5, MINUTE, { partition: 7, epoch: 6 })).toEqual(NEW);
      expect(await a.claim("new-3", 6, MINUTE, { partition: 7, epoch: 5 })).toEqual({ kind: "stale", ownerEpoch: 6 });
      // Partitions are fenced apart: an old epoch of another partition is not stale.
      expect(await a.claim("other-partition", 7, MINUTE, { partition: 8, epoch: 1 })).toEqual(NEW);
    });

    test("a TTL that is not a positive whole number of ms is refused", async () => {
      const [a] = impl.make();
      await expect(a.claim("bad", 1, 0)).rejects.toThrow(RangeError);
      await expect(a.claim("bad", 1, 1.5)).rejects.toThrow(RangeError);
      await expect(a.done("bad", -1)).rejects.toThrow(RangeError);
      await expect(a.hold("bad", 1, 0)).rejects.toThrow(RangeError);
      expect(await a.claim("bad", 1, MINUTE)).toEqual(NEW);
    });
  });
}

describe("RedisFetchClaims: Redis-specific properties", () => {
  let server: RedisServer;
  let client: RedisClient;
  beforeAll(async () => {
    server = await startRedis();
    client = await connectRedis(server.url);
  });
  afterAll(async () => {
    if (client.isOpen) await client.close();
    await server.stop();
  });

  test("a claim is one key under the crawler's namespace, holding the copy, expiring in Redis within its TTL", async () => {
    const claims = new RedisFetchClaims(client);
    expect(claims.keyPrefix).toBe("crawler:fetch-claim:");
    const key = "crawler:fetch-claim:frontier-a-k2-1f";
    expect(await claims.claim("frontier-a-k2-1f", 123_456, 10 * MINUTE)).toEqual(NEW);
    expect(await client.sendCommand<string>(["GET", key])).toMatch(/^123456@\d{13}$/);
    const pttl = await client.sendCommand<number>(["PTTL", key]);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(10 * MINUTE);
    await claims.done("frontier-a-k2-1f", 5 * MINUTE);
    expect(await client.sendCommand<string>(["GET", key])).toBe("done");
    expect(await client.sendCommand<number>(["PTTL", key])).toBeLessThanOrEqual(5 * MINUTE);
  });

  test("the claims and done marks of one turn reach Redis as one script call, applied in the order they were made", async () => {
    const claims = new RedisFetchClaims(client, { keyPrefix: freshPrefix() });
    // Loads the script, so the turn below is not split by a NOSCRIPT retry.
    expect(await claims.claim("warm", 1, MINUTE)).toEqual(NEW);
    await client.sendCommand(["CONFIG", "RESETSTAT"]);
    const answers = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => claims.claim(`b${i}`, 100 + i, MINUTE)),
      // Two copies of one task in the same turn: the first made holds it.
      claims.claim("twin", 7, MINUTE),
      claims.claim("twin", 8, MINUTE),
      // A claim, its done mark and a repeat, in that order.
      claims.claim("later", 3, MINUTE),
      claims.done("later", MINUTE),
      claims.claim("later", 3, MINUTE),
      ...Array.from({ length: 10 }, (_, i) => claims.done(`b${i}`, MINUTE)),
    ]);
    expect(answers.slice(0, 20)).toEqual(Array.from({ length: 20 }, () => NEW));
    expect(answers.slice(20, 25)).toEqual([NEW, OTHER, NEW, undefined, DONE]);
    const stats = await client.sendCommand<string>(["INFO", "commandstats"]);
    const calls = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    expect(calls("evalsha") + calls("eval")).toBe(1);
    expect(calls("set")).toBe(20 + 2 + 3 + 10);
    // What the batch wrote is what one call at a time writes.
    expect(await claims.claim("b0", 100, MINUTE)).toEqual(DONE);
    expect(await claims.claim("b19", 119, MINUTE)).toEqual(again());
    expect(await client.sendCommand<string>(["GET", `${claims.keyPrefix}twin`])).toMatch(/^7@\d{13}$/);
  });

  test("a dropped connection is repaired and the claims are still there", async () => {
    const claims = await RedisFetchClaims.connect(server.url, { keyPrefix: freshPrefix() });
    expect(await claims.claim("t", 1, MINUTE)).toEqual(NEW);
    await server.command("CLIENT KILL TYPE normal");
    // The script cache is gone too (as after a restart): the script is sent again.
    await server.command("SCRIPT FLUSH");
    // While it reconnects, claims fail at once (see below); then they answer again.
    await waitFor(async () => (await claims.claim("t", 2, MINUTE).catch(() => undefined)) !== undefined, "the connection to be back");
    expect(await claims.claim("t", 2, MINUTE)).toEqual(OTHER);
    expect(await claims.claim("t", 1, MINUTE)).toEqual(again());
    await claims.close();
    // The connection it built is closed with it.
    await expect(claims.claim("t", 1, MINUTE)).rejects.toThrow(/closed/);
    await client.ping();
  });

  test("a Redis that is down makes claims and done marks reject at once (not after the command timeout), saying which server", async () => {
    // A command timeout far beyond the test's own: waiting for it would fail the test.
    const own = await connectRedis(server.url, { commandTimeoutMs: 120_000, idleTimeoutMs: 0 });
    const claims = new RedisFetchClaims(own, { keyPrefix: freshPrefix() });
    const port = server.port;
    await server.kill();
    // Down: the client saw it drop (a command sent in the very moment of the crash waits for its timeout).
    await waitFor(async () => !own.isReady, "the client to see the connection drop");
    try {
      const error = await claims.claim("t", 1, MINUTE).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain("the fetch claim of task t");
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      await expect(claims.done("t", MINUTE)).rejects.toThrow(/marking task t done/);
    } finally {
      await claims.close();
      own.destroy();
      const killed = server.dir;
      server = await startRedis({ port });
      rmSync(killed, { recursive: true, force: true });
      if (client.isOpen) await client.close();
      client = await connectRedis(server.url);
    }
  });
});

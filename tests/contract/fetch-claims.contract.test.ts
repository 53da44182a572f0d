/**
 * The FetchClaims contract (core/ports/fetch-claims.ts), one suite run against every implementation: the
 * in-memory `MemoryFetchClaims` and `RedisFetchClaims` on a real redis-server. The first copy to claim a
 * task holds it, claiming again with it is still "mine", any other copy hears "other-copy" until the claim
 * expires, and racing claims agree on one holder. Then Redis-only properties: fetch nodes on two
 * connections share the claims, keys expire in Redis itself, and a restarted connection keeps them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryFetchClaims } from "../../adapters/memory/index.ts";
import { connectRedis, RedisFetchClaims, type RedisClient } from "../../adapters/redis/index.ts";
import type { FetchClaims } from "../../core/ports/index.ts";
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
      return [new RedisFetchClaims(clients[0]!, { keyPrefix }), new RedisFetchClaims(clients[1]!, { keyPrefix })];
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

for (const impl of implementations) {
  describe(`FetchClaims contract: ${impl.name}`, () => {
    beforeAll(() => impl.setup());
    afterAll(() => impl.teardown());

    test("the first copy to claim a task holds it; claiming again with it is still mine; another copy is not", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("t1", 17, MINUTE)).toBe("mine");
      // A redelivery of the same copy, here or on another node.
      expect(await a.claim("t1", 17, MINUTE)).toBe("mine");
      expect(await b.claim("t1", 17, MINUTE)).toBe("mine");
      // A second stored copy of the same task.
      expect(await b.claim("t1", 42, MINUTE)).toBe("other-copy");
      expect(await a.claim("t1", 42, MINUTE)).toBe("other-copy");
      expect(await a.claim("t1", 17, MINUTE)).toBe("mine");
      // Tasks are independent, whatever their copies' numbers.
      expect(await b.claim("t2", 42, MINUTE)).toBe("mine");
      expect(await a.claim("t3", 17, MINUTE)).toBe("mine");
    });

    test("two copies racing for one task: exactly one holds it", async () => {
      const [a, b] = impl.make();
      for (let round = 0; round < 50; round++) {
        const id = `race-${round}`;
        const answers = await Promise.all([a.claim(id, 1_000 + round, MINUTE), b.claim(id, 2_000 + round, MINUTE)]);
        expect(answers.filter((x) => x === "mine")).toHaveLength(1);
      }
    });

    test("a claim lasts its TTL: then the task is free, and the next copy to claim it holds it", async () => {
      const [a, b] = impl.make();
      expect(await a.claim("short", 5, 150)).toBe("mine");
      expect(await b.claim("short", 6, 150)).toBe("other-copy");
      // Claiming again does not extend it.
      expect(await a.claim("short", 5, 150)).toBe("mine");
      await waitFor(async () => (await b.claim("short", 6, 60_000)) === "mine", "the claim to expire and copy 6 to take the task");
      expect(await a.claim("short", 5, 60_000)).toBe("other-copy");
    });

    test("a TTL that is not a positive whole number of ms is refused", async () => {
      const [a] = impl.make();
      await expect(a.claim("bad", 1, 0)).rejects.toThrow(RangeError);
      await expect(a.claim("bad", 1, 1.5)).rejects.toThrow(RangeError);
      expect(await a.claim("bad", 1, MINUTE)).toBe("mine");
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
    expect(await claims.claim("frontier-a-k2-1f", 123_456, 10 * MINUTE)).toBe("mine");
    expect(await client.sendCommand<string>(["GET", "crawler:fetch-claim:frontier-a-k2-1f"])).toBe("123456");
    const pttl = await client.sendCommand<number>(["PTTL", "crawler:fetch-claim:frontier-a-k2-1f"]);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(10 * MINUTE);
  });

  test("a dropped connection is repaired and the claims are still there", async () => {
    const claims = await RedisFetchClaims.connect(server.url, { keyPrefix: freshPrefix() });
    expect(await claims.claim("t", 1, MINUTE)).toBe("mine");
    await server.command("CLIENT KILL TYPE normal");
    expect(await claims.claim("t", 2, MINUTE)).toBe("other-copy");
    expect(await claims.claim("t", 1, MINUTE)).toBe("mine");
    await claims.close();
    // The connection it built is closed with it.
    await expect(claims.claim("t", 1, MINUTE)).rejects.toThrow(/closed/);
    await client.ping();
  });

  test("a Redis that does not answer makes the claim reject with a message saying which server and why", async () => {
    const claims = await RedisFetchClaims.connect(server.url, { keyPrefix: freshPrefix() }, { commandTimeoutMs: 300, idleTimeoutMs: 0 });
    const port = server.port;
    await server.kill();
    try {
      const error = await claims.claim("t", 1, MINUTE).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain("the fetch claim of task t");
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    } finally {
      await claims.close();
      server = await startRedis({ port });
      if (client.isOpen) await client.close();
      client = await connectRedis(server.url);
    }
  });
});

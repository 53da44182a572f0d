/**
 * The AddressGate contract (core/ports/address-gate.ts), one suite run against every implementation: the
 * in-memory `MemoryAddressGate` and `RedisAddressGate` on a real redis-server (two connections: two fetch
 * nodes). Many holders hammer one address: never more passes held at once than the cap, never two passes
 * closer than the gap (as each holder sees its request go out), none given while a request is on its way, other addresses not held up, a waiter
 * with no pass in time hears "none", an abort rejects. Then Redis-only: a killed holder's passes lapse once
 * it stops beating (not at the lease), a live holder's last their lease, and a Redis restarted empty forgets
 * them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryAddressGate } from "../../adapters/memory/index.ts";
import { connectRedis, RedisAddressGate, type RedisClient } from "../../adapters/redis/index.ts";
import type { AddressGate, AddressGateLimits, AddressPass } from "../../core/ports/index.ts";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Implementation {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** Two handles on one store (two fetch nodes); may be the same object. */
  make(limits: AddressGateLimits): [AddressGate, AddressGate];
}

let redis: RedisServer | undefined;
let clients: RedisClient[] = [];
let prefixes = 0;

async function redisTime(client: RedisClient): Promise<number> {
  const [s, us] = await client.sendCommand<[string, string]>(["TIME"]);
  return Number(s) * 1000 + Number(us) / 1000;
}

const implementations: Implementation[] = [
  {
    name: "MemoryAddressGate (in-process)",
    setup: async () => {},
    teardown: async () => {},
    make: (limits) => {
      const gate = new MemoryAddressGate(limits);
      return [gate, gate];
    },
  },
  {
    name: "RedisAddressGate (redis-server)",
    setup: async () => {
      redis = await startRedis();
      clients = await Promise.all([connectRedis(redis.url), connectRedis(redis.url), connectRedis(redis.url)]);
    },
    teardown: async () => {
      for (const c of clients) if (c.isOpen) await c.close();
      await redis?.stop();
    },
    make: (limits) => {
      const keyPrefix = `crawler:address-test-${++prefixes}`;
      return [
        new RedisAddressGate(clients[0]!, { ...limits, leaseMs: 60_000, keyPrefix }),
        new RedisAddressGate(clients[1]!, { ...limits, leaseMs: 60_000, keyPrefix }),
      ];
    },
  },
];

for (const impl of implementations) {
  describe(`AddressGate contract: ${impl.name}`, () => {
    beforeAll(() => impl.setup());
    afterAll(() => impl.teardown());

    test("many holders on two nodes never hold more than the cap at once, nor get two passes closer than the gap", async () => {
      // The crawler gives the gate its gap plus the margin it adds to every wait (--gap-margin), so the gap
      // holds as the server sees requests arrive, not only as the gate gives passes.
      const [a, b] = impl.make({ maxInFlight: 2, gapMs: 30 + DEFAULT_POLICY.gapMarginMs });
      let held = 0;
      let most = 0;
      const givenAt: number[] = [];
      const holder = async (gate: AddressGate, i: number): Promise<void> => {
        const pass = await gate.enter("ip:192.0.2.1", 20_000);
        expect(pass).toBeDefined();
        // Some holders are slow to get their request to the server once they have the pass (a busy fetch
        // thread): the gap runs from the arrival, so this delay must not bring two arrivals closer than the gap.
        if (i % 4 === 1) await new Promise((r) => setTimeout(r, 12));
        givenAt.push(performance.now());
        pass!.arrived();
        held++;
        most = Math.max(most, held);
        // Hold it a while (some longer than the gap, so the cap and not only the gap is what holds them back).
        await new Promise((r) => setTimeout(r, i % 3 === 0 ? 90 : 5));
        held--;
        pass!.leave();
      };
      await Promise.all(Array.from({ length: 16 }, (_, i) => holder(i % 2 === 0 ? a : b, i)));
      expect(most).toBeGreaterThanOrEqual(1);
      expect(most).toBeLessThanOrEqual(2);
      givenAt.sort((x, y) => x - y);
      // As the holders saw it (each request timed as it reached the server): never closer than the gap.
      for (let i = 1; i < givenAt.length; i++) expect(givenAt[i]! - givenAt[i - 1]!).toBeGreaterThanOrEqual(30);
      await Promise.all([a.close(), b.close()]);
    }, 30_000);

    test("inspect reads the passes held and when the gap allows the next, from the other node too, changing nothing", async () => {
      const [a, b] = impl.make({ maxInFlight: 2, gapMs: 400 });
      expect(await b.inspect!("ip:192.0.2.9")).toEqual({ holders: 0, nextAllowedAt: 0 });
      const pass = await a.enter("ip:192.0.2.9", 1_000);
      pass!.arrived();
      const arrivedAt = Date.now();
      const held = await b.inspect!("ip:192.0.2.9");
      expect(held?.holders).toBe(1);
      // The gap of 400 ms runs from the arrival (a few ms of clock reading either side).
      expect(held!.nextAllowedAt).toBeGreaterThan(arrivedAt + 300);
      expect(held!.nextAllowedAt).toBeLessThanOrEqual(Date.now() + 400);
      pass!.leave();
      expect((await a.inspect!("ip:192.0.2.9"))?.holders).toBe(0);
      await new Promise((r) => setTimeout(r, 450));
      expect(await b.inspect!("ip:192.0.2.9")).toEqual({ holders: 0, nextAllowedAt: 0 });
      await Promise.all([a.close(), b.close()]);
    });

    test("the cap holds with no gap, and a pass given back lets the next one in", async () => {
      const [a, b] = impl.make({ maxInFlight: 2, gapMs: 0 });
      const first = await a.enter("ip:192.0.2.2", 1_000);
      first?.arrived();
      const second = await b.enter("ip:192.0.2.2", 1_000);
      second?.arrived();
      expect(first).toBeDefined();
      expect(second).toBeDefined();
      const third = a.enter("ip:192.0.2.2", 5_000);
      // Another address is not held up by this one's cap.
      const other = await b.enter("ip:192.0.2.3", 100);
      expect(other).toBeDefined();
      other!.arrived();
      other!.leave();
      let got: AddressPass | undefined;
      void third.then((p) => (got = p));
      await new Promise((r) => setTimeout(r, 100));
      expect(got).toBeUndefined();
      first!.leave();
      first!.leave(); // twice changes nothing
      const pass = await third;
      expect(pass).toBeDefined();
      pass!.arrived();
      // Still two held (second and third): a fourth waits.
      expect(await b.enter("ip:192.0.2.2", 100)).toBeUndefined();
      second!.leave();
      pass!.leave();
      const again = await b.enter("ip:192.0.2.2", 1_000);
      expect(again).toBeDefined();
      again!.leave();
      await Promise.all([a.close(), b.close()]);
    });

    test("no pass is given while an earlier request is on its way, and the gap runs from its arrival", async () => {
      const [a, b] = impl.make({ maxInFlight: 2, gapMs: 100 });
      const first = await a.enter("ip:192.0.2.4", 1_000);
      expect(first).toBeDefined();
      // Room under the cap, but the first request is not known to have arrived: the second waits, past the gap.
      expect(await b.enter("ip:192.0.2.4", 250)).toBeUndefined();
      const arrivedAt = performance.now();
      first!.arrived();
      const second = await b.enter("ip:192.0.2.4", 1_000);
      expect(second).toBeDefined();
      expect(performance.now() - arrivedAt).toBeGreaterThanOrEqual(100);
      second!.leave(); // left before its arrival was told: counts as arrived now
      first!.leave();
      await Promise.all([a.close(), b.close()]);
    });

    test("a waiter with no pass within its wait hears none, and an abort rejects", async () => {
      const [a, b] = impl.make({ maxInFlight: 1, gapMs: 0 });
      const holding = await a.enter("domain:example.test", 1_000);
      expect(holding).toBeDefined();
      expect(await b.enter("domain:example.test", 50)).toBeUndefined();
      const controller = new AbortController();
      const waiting = b.enter("domain:example.test", 10_000, controller.signal);
      controller.abort(new Error("stopping"));
      await expect(waiting).rejects.toThrow("stopping");
      holding!.leave();
      const next = await b.enter("domain:example.test", 1_000);
      expect(next).toBeDefined();
      next!.leave();
      await Promise.all([a.close(), b.close()]);
    });
  });
}

describe("RedisAddressGate: faults", () => {
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

  test("the passes of a holder killed without giving them back lapse once it stops beating, not at the lease", async () => {
    const keyPrefix = "crawler:address-killed";
    const limits = { maxInFlight: 1, gapMs: 0, leaseMs: 60_000, holderTtlMs: 1_500, keyPrefix };
    // A fetch node of its own: its connection dies with it.
    const own = await connectRedis(server.url);
    const killed = new RedisAddressGate(own, limits);
    // It takes the only pass and dies holding it (never says it arrived, never leaves, never beats again).
    expect(await killed.enter("ip:198.51.100.7", 100)).toBeDefined();
    own.destroy();
    const survivor = new RedisAddressGate(client, limits);
    const askedAt = await redisTime(client);
    const pass = await survivor.enter("ip:198.51.100.7", 10_000);
    const givenAt = await redisTime(client);
    expect(pass).toBeDefined();
    // Once its holder key lapsed (1.5 s after its last beat, which was before askedAt), long before the 60 s lease.
    expect(givenAt - askedAt).toBeGreaterThanOrEqual(1_000);
    expect(givenAt - askedAt).toBeLessThan(5_000);
    pass!.leave();
    killed.close();
    survivor.close();
    // Nothing is left behind once it is given back and the gap is over.
    await waitFor(async () => (await client.sendCommand<number>(["EXISTS", `${keyPrefix}:ip:198.51.100.7`])) === 0);
  });

  test("the pass of a holder that is alive lasts its lease, however long its request takes", async () => {
    const keyPrefix = "crawler:address-alive";
    const limits = { maxInFlight: 1, gapMs: 0, leaseMs: 4_000, holderTtlMs: 500, keyPrefix };
    const alive = new RedisAddressGate(client, limits);
    const other = new RedisAddressGate(client, limits);
    const askedAt = await redisTime(client);
    expect(await alive.enter("ip:198.51.100.8", 100)).toBeDefined();
    // Several holder lives pass while its request is out (it beats): no pass for anyone else until the lease.
    const pass = await other.enter("ip:198.51.100.8", 10_000);
    const givenAt = await redisTime(client);
    expect(pass).toBeDefined();
    expect(givenAt - askedAt).toBeGreaterThanOrEqual(3_500);
    pass!.leave();
    alive.close();
    other.close();
  });

  test("Redis restarted without its data forgets the passes held, and the gate goes on from there", async () => {
    const keyPrefix = "crawler:address-restart";
    const gate = new RedisAddressGate(client, { maxInFlight: 1, gapMs: 0, leaseMs: 60_000, keyPrefix });
    const before = await gate.enter("ip:203.0.113.9", 100);
    expect(before).toBeDefined();
    before!.arrived();
    expect(await gate.enter("ip:203.0.113.9", 50)).toBeUndefined();
    const port = server.port;
    await server.kill();
    server = await startRedis({ port });
    await waitFor(async () => client.isReady, 10_000);
    // The pass held across the restart is forgotten: a new one is given at once (for at most the lease, two
    // requests can be in flight to this address), and the cap holds again from there.
    const after = await gate.enter("ip:203.0.113.9", 1_000);
    expect(after).toBeDefined();
    expect(after!.unguarded).toBeUndefined();
    after!.arrived();
    expect(await gate.enter("ip:203.0.113.9", 50)).toBeUndefined();
    before!.leave();
    after!.leave();
  }, 30_000);

  test("while Redis cannot answer, a pass is given unguarded and counted", async () => {
    const unguarded: unknown[] = [];
    const gate = new RedisAddressGate(client, {
      maxInFlight: 1,
      gapMs: 0,
      leaseMs: 60_000,
      keyPrefix: "crawler:address-down",
      onUnguarded: (e) => unguarded.push(e),
    });
    const port = server.port;
    await server.kill();
    const pass = await gate.enter("ip:203.0.113.10", 1_000);
    expect(pass?.unguarded).toBe(true);
    pass!.arrived();
    pass!.leave();
    expect(unguarded.length).toBe(1);
    server = await startRedis({ port });
    await waitFor(async () => client.isReady, 10_000);
  }, 30_000);
});

describe("RedisAddressGate: Redis restarted with its AOF", () => {
  test("a pass given back while Redis was away is given back again once it answers, not left to its lease", async () => {
    const dir = mkdtempSync(join(tmpdir(), "address-gate-aof-"));
    let server = await startRedis({ appendOnly: true, dir });
    const client = await connectRedis(server.url);
    try {
      // A holder key that outlives the outage: the holder is known alive throughout, so only its words can free the pass.
      const limits = { maxInFlight: 1, gapMs: 0, leaseMs: 60_000, holderTtlMs: 60_000, keyPrefix: "crawler:address-aof" };
      const gate = new RedisAddressGate(client, limits);
      const pass = await gate.enter("ip:203.0.113.20", 100);
      expect(pass).toBeDefined();
      // The gate's writes are kept out of the AOF; an AOF rewrite still snapshots them whole, and a restart
      // brings back that older state: the pass and its mark are on disk this way.
      await client.sendCommand(["BGREWRITEAOF"]);
      await waitFor(async () =>
        /aof_rewrite_in_progress:0[\s\S]*aof_rewrite_scheduled:0/.test(await client.sendCommand<string>(["INFO", "persistence"])),
      );
      const { port } = server;
      await server.kill();
      // Its request arrives and ends while Redis is away, longer than a command waits for the connection
      // (node-redis's offline queue, 5 s): both words fail.
      pass!.arrived();
      pass!.leave();
      await Bun.sleep(6_000);
      server = await startRedis({ appendOnly: true, dir, port });
      await waitFor(async () => client.isReady, 10_000);
      // Redis came back with the pass and its mark (the rewrite's); the holder says its words again once
      // Redis is back.
      const other = new RedisAddressGate(client, limits);
      const again = await other.enter("ip:203.0.113.20", 8_000);
      expect(again).toBeDefined();
      again!.leave();
      gate.close();
      other.close();
    } finally {
      if (client.isOpen) await client.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The SeenSet contract (core/ports/seen-set.ts), one suite run against every implementation: the
 * in-process `LocalBloomSeenSet` of embedded mode and `RedisSeenSet` on a real redis-server. Both are
 * Bloom filters, so "maybe seen" may be wrong only towards `true`, never towards `false`.
 *
 * Partitions: `RedisSeenSet` keeps one filter per partition, so a key is new again in another partition.
 * `LocalBloomSeenSet` shares one filter across partitions (embedded mode serves them all), so it answers
 * `true` there; the contract allows that, since it is an error in the "maybe seen" direction only.
 *
 * A set that can lose keys (Redis) answers for a partition only once it has been built (`rebuild`, from
 * the keys the caller knows): the shared suite builds partitions 0-15 of each fresh Redis set from no keys,
 * as a frontier node does for a partition it starts.
 *
 * After the shared suite, Redis-only properties: bit-for-bit agreement with core's ScalableBloomFilter,
 * atomicity between two frontier nodes racing on one partition across growth, reconnects and an emptied
 * script cache, a refused plan mismatch, and the loss guard: a partition Redis lost (emptied, or behind
 * what this client was told, as after a failover to a lagging replica) is refused rather than answered
 * "not seen" until it is rebuilt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Buffer } from "node:buffer";
import { RESP_TYPES } from "redis";
import { connectRedis, RedisCommandError, RedisUnavailableError, type RedisClient } from "../../adapters/redis/connect.ts";
import { RedisSeenSet, SeenPlanMismatchError, type RedisSeenSetOptions } from "../../adapters/redis/redis-seen-set.ts";
import { hash64pairInto } from "../../core/hash/index.ts";
import { ScalableBloomFilter } from "../../core/seen/index.ts";
import { LocalBloomSeenSet } from "../../adapters/memory/index.ts";
import { SeenSetLostError, type SeenSet } from "../../core/ports/index.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

interface Subject {
  set: SeenSet;
  /** Whether a key added in one partition is new in another. */
  partitionsIndependent: boolean;
}

interface Implementation {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  /** A fresh, empty set whose first slice plans for `initialCapacity` keys (bound 1 %, growth 2). */
  make(initialCapacity: number): Promise<Subject>;
}

let redis: RedisServer | undefined;
let sharedClient: RedisClient | undefined;
let prefixes = 0;
const freshPrefix = () => `seen-test-${++prefixes}`;

const implementations: Implementation[] = [
  {
    name: "LocalBloomSeenSet (in-process)",
    setup: async () => {},
    teardown: async () => {},
    make: async (initialCapacity) => ({ set: LocalBloomSeenSet.open(undefined, initialCapacity), partitionsIndependent: false }),
  },
  {
    name: "RedisSeenSet (redis-server)",
    setup: async () => {
      redis = await startRedis();
      sharedClient = await connectRedis(redis.url);
    },
    teardown: async () => {
      if (sharedClient?.isOpen) await sharedClient.close();
      await redis?.stop();
    },
    make: async (initialCapacity) => {
      const set = new RedisSeenSet(sharedClient!, { keyPrefix: freshPrefix(), initialCapacity });
      for (let p = 0; p < 16; p++) await set.rebuild(p, []);
      return { set, partitionsIndependent: true };
    },
  },
];

const urlKey = (i: number) => `https://host${i % 997}.example/path/${i}?q=${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}`;
const freshKey = (i: number) => `https://other${i % 113}.example.net/fresh/${i}`;
const range = (from: number, to: number, make: (i: number) => string) => Array.from({ length: to - from }, (_, k) => make(from + k));

/** Sends keys in batches of `batch`, `inFlight` calls at a time, and returns the answers in order. */
async function addAll(set: SeenSet, partition: number, keys: string[], batch = 500, inFlight = 1): Promise<boolean[]> {
  const out: boolean[] = [];
  for (let i = 0; i < keys.length; i += batch * inFlight) {
    const calls = [];
    for (let j = 0; j < inFlight && i + j * batch < keys.length; j++) {
      calls.push(set.checkAndAdd(partition, keys.slice(i + j * batch, i + (j + 1) * batch)));
    }
    for (const answers of await Promise.all(calls)) for (const a of answers) out.push(a);
  }
  return out;
}

const countTrue = (xs: boolean[]) => xs.reduce((n, x) => n + (x ? 1 : 0), 0);

for (const impl of implementations) {
  describe(`SeenSet contract: ${impl.name}`, () => {
    beforeAll(() => impl.setup());
    afterAll(() => impl.teardown());

    test("a key is new at its first sighting and seen at every later one", async () => {
      const { set } = await impl.make(1_000);
      expect(await set.checkAndAdd(3, ["https://a.example/"])).toEqual([false]);
      expect(await set.checkAndAdd(3, ["https://a.example/"])).toEqual([true]);
      expect(await set.checkAndAdd(3, ["https://a.example/", "https://b.example/"])).toEqual([true, false]);
      expect(await set.checkAndAdd(3, [])).toEqual([]);
      await set.close();
    });

    test("a key repeated in one batch reports true for its later copies", async () => {
      const { set } = await impl.make(1_000);
      const answers = await set.checkAndAdd(0, [
        "https://x.example/1",
        "https://x.example/2",
        "https://x.example/1",
        "https://x.example/1",
        "https://x.example/2",
      ]);
      expect(answers).toEqual([false, false, true, true, true]);
      await set.close();
    });

    test("no false negatives for 50,000 keys while the filter grows from a 2,000-key first slice", async () => {
      const { set } = await impl.make(2_000);
      const keys = range(0, 50_000, urlKey);
      const first = await addAll(set, 7, keys, 500, 4);
      // Every key is distinct, so each `true` on the way in is a false positive: a few, never many.
      expect(countTrue(first)).toBeLessThan(keys.length * 0.01);
      const again = await addAll(set, 7, keys, 500, 4);
      expect(again.every((x) => x)).toBe(true);
      await set.close();
    }, 60_000);

    test("partitions: a key is never reported new twice in its own partition; other partitions per implementation", async () => {
      const { set, partitionsIndependent } = await impl.make(1_000);
      const keys = range(0, 300, urlKey);
      expect(countTrue(await set.checkAndAdd(1, keys))).toBeLessThan(5);
      const elsewhere = await set.checkAndAdd(2, keys);
      if (partitionsIndependent) expect(countTrue(elsewhere)).toBeLessThan(5);
      else expect(elsewhere.every((x) => x)).toBe(true);
      expect((await set.checkAndAdd(1, keys)).every((x) => x)).toBe(true);
      expect((await set.checkAndAdd(2, keys)).every((x) => x)).toBe(true);
      await set.close();
    });

    test("the measured false-positive rate after growth stays under the 1 % bound", async () => {
      const { set } = await impl.make(5_000);
      await addAll(set, 4, range(0, 60_000, urlKey), 1_000, 2);
      const fresh = range(0, 20_000, freshKey);
      const rate = countTrue(await addAll(set, 4, fresh, 1_000, 2)) / fresh.length;
      console.log(`${impl.name}: measured false-positive rate ${(rate * 100).toFixed(3)} % (bound 1 %)`);
      expect(rate).toBeLessThan(0.01);
      // A rate of zero would mean the filter is far larger than planned (or not a filter at all).
      expect(rate).toBeGreaterThan(0.0001);
      await set.close();
    }, 60_000);
  });
}

describe("RedisSeenSet: Redis-specific properties", () => {
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

  test("slices hold the same bytes as an in-process ScalableBloomFilter fed the same keys", async () => {
    const options: RedisSeenSetOptions = { keyPrefix: freshPrefix(), initialCapacity: 700 };
    const set = new RedisSeenSet(client, options);
    await set.rebuild(9, []);
    const local = new ScalableBloomFilter({ initialCapacity: 700 });
    const keys = range(0, 12_000, urlKey);
    for (const k of range(0, 500, urlKey)) keys.push(k); // some repeats, which must not change either filter
    const remote = await addAll(set, 9, keys, 333);
    expect(remote).toEqual(keys.map((k) => local.add(k)));

    const info = await set.describe(9);
    expect(info.slices).toBe(local.sliceCount);
    expect(info.slices).toBeGreaterThanOrEqual(4);
    expect(info.keys).toBe(local.count);
    const bodies = sliceBodies(local);
    for (let i = 0; i < info.slices; i++) {
      expect(info.shapes[i]!.bits).toBe(local.describeSlices()[i]!.bits);
      expect(Buffer.from(await set.readSlice(9, i)).equals(Buffer.from(bodies[i]!))).toBe(true);
    }
    await set.close();
  }, 60_000);

  test("large batches with keys repeated in them, one crossing into a new slice, give the same answers and bytes as the in-process filter", async () => {
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 1_000, maxKeysPerScript: 5_000 });
    await set.rebuild(3, []);
    const local = new ScalableBloomFilter({ initialCapacity: 1_000 });
    const check = async (keys: string[]) => expect(await set.checkAndAdd(3, keys)).toEqual(keys.map((k) => local.add(k)));

    // A fresh partition: the first key makes slice 0. Keys repeat within the batch: their later copies
    // report seen because the same call set their bits.
    await check([...range(0, 300, urlKey), ...range(0, 50, urlKey), ...range(300, 350, urlKey)]);
    // Seen, fresh and repeated keys mixed.
    await check([...range(100, 200, urlKey), ...range(350, 450, urlKey), ...range(380, 400, urlKey)]);
    // 1,600 keys cannot fit in slice 0 (about 450 in it): slice 1 starts within the call. Repeats of keys
    // from earlier calls, from this call's part in slice 0 and from its part in slice 1.
    const crossing = range(450, 1_950, urlKey);
    crossing.splice(1_200, 0, ...range(0, 40, urlKey), ...range(460, 480, urlKey), ...range(1_100, 1_140, urlKey));
    await check(crossing);

    const info = await set.describe(3);
    expect(info.slices).toBe(2);
    expect(info.slices).toBe(local.sliceCount);
    expect(info.keys).toBe(local.count);
    const bodies = sliceBodies(local);
    for (let i = 0; i < info.slices; i++) expect(Buffer.from(await set.readSlice(3, i)).equals(Buffer.from(bodies[i]!))).toBe(true);
    await set.close();
  });

  test("a batch of keys already seen writes nothing: no change for the AOF or a replica to copy", async () => {
    const changes = async () => {
      const info = await client.sendCommand<string>(["INFO", "persistence"]);
      return Number(/^rdb_changes_since_last_save:(\d+)/m.exec(info)?.[1]);
    };
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 500 });
    await set.rebuild(6, []);
    const keys = range(0, 1_500, urlKey);
    await addAll(set, 6, keys, 300);
    expect((await set.describe(6)).slices).toBeGreaterThanOrEqual(2);
    const before = await changes();
    expect((await addAll(set, 6, keys, 300)).every((x) => x)).toBe(true);
    expect(await changes()).toBe(before);
    // A batch with one new key among seen ones writes.
    expect(await set.checkAndAdd(6, [keys[0]!, "https://new.example/", keys[1]!])).toEqual([true, false, true]);
    expect(await changes()).toBeGreaterThan(before);
    await set.close();
  });

  test("a partition rebuilt after Redis lost it holds the same bytes again, though the client sends the old slice count", async () => {
    // One script call per rebuild (several in flight would apply a batch's rest after the next batch
    // whenever one of them needs a slice its call had no offsets for: other bytes, the same keys).
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 500, maxKeysPerScript: 5_000 });
    await set.rebuild(4, []);
    const keys = range(0, 4_000, urlKey);
    await addAll(set, 4, keys, 400);
    const slices = (await set.describe(4)).slices;
    expect(slices).toBeGreaterThanOrEqual(3);
    expect(await server.command("FLUSHALL")).toBe("+OK\r\n");
    // The client still counts `slices` slices, so the rebuild makes slices 0 .. slices - 2 from the
    // offsets it sent for old slices (packed), not for the newest.
    await set.rebuild(4, [keys]);
    const local = new ScalableBloomFilter({ initialCapacity: 500 });
    for (const k of keys) local.add(k);
    const info = await set.describe(4);
    expect(info.slices).toBe(slices);
    expect(info.slices).toBe(local.sliceCount);
    const bodies = sliceBodies(local);
    for (let i = 0; i < info.slices; i++) expect(Buffer.from(await set.readSlice(4, i)).equals(Buffer.from(bodies[i]!))).toBe(true);
    await set.close();
  });

  test("two frontier nodes racing on one partition across growth report each key new exactly once", async () => {
    const other = await connectRedis(server.url);
    const prefix = freshPrefix();
    const a = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    const b = new RedisSeenSet(other, { keyPrefix: prefix, initialCapacity: 1_000 });
    await a.rebuild(5, []);
    const keys = range(0, 20_000, urlKey);
    // Both nodes see every key, in different orders and batch sizes, interleaved on two connections.
    const [fromA, fromB] = await Promise.all([addAll(a, 5, keys, 50, 4), addAll(b, 5, [...keys].reverse(), 70, 3)]);
    fromB.reverse();
    let newTwice = 0;
    let neverNew = 0;
    for (let i = 0; i < keys.length; i++) {
      if (!fromA[i] && !fromB[i]) newTwice++;
      if (fromA[i] && fromB[i]) neverNew++;
    }
    expect(newTwice).toBe(0);
    // Keys that were false positives before either node added them are "seen" by both: a handful.
    expect(neverNew).toBeLessThan(keys.length * 0.01);
    expect((await b.describe(5)).slices).toBeGreaterThanOrEqual(4);
    await a.close();
    await b.close();
    await other.close();
  }, 60_000);

  test("keys stay seen across a dropped connection and an emptied script cache", async () => {
    const own = await RedisSeenSet.connect(server.url, { keyPrefix: freshPrefix(), initialCapacity: 1_000 });
    await own.rebuild(1, []);
    const before = range(0, 3_000, urlKey);
    await addAll(own, 1, before, 250);
    expect((await server.command("CLIENT KILL TYPE normal")).startsWith(":")).toBe(true);
    expect(await server.command("SCRIPT FLUSH")).toBe("+OK\r\n");
    // node-redis reconnects on its own; commands sent meanwhile wait in its offline queue.
    expect((await addAll(own, 1, before, 250)).every((x) => x)).toBe(true);
    const after = range(3_000, 6_000, urlKey);
    expect(countTrue(await addAll(own, 1, after, 250))).toBeLessThan(60);
    expect((await addAll(own, 1, [...before, ...after], 500)).every((x) => x)).toBe(true);
    await own.close();
  }, 30_000);

  test("a node configured with another plan for the same keys is refused", async () => {
    const prefix = freshPrefix();
    const a = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    const b = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 2_000 });
    await a.rebuild(0, []);
    await a.checkAndAdd(0, ["https://a.example/"]);
    await expect(b.checkAndAdd(0, ["https://a.example/"])).rejects.toBeInstanceOf(SeenPlanMismatchError);
    // Another partition has no filter yet, so it takes b's plan.
    await b.rebuild(1, []);
    expect(await b.checkAndAdd(1, ["https://a.example/"])).toEqual([false]);
  });

  test("connectRedis gives up after its initial timeout and names the address when nothing listens there", async () => {
    // It gives up rather than retrying forever: otherwise this await would never settle.
    const error = await connectRedis("redis://127.0.0.1:1", { initialTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    const m = /^Redis at redis:\/\/127\.0\.0\.1:1 is unreachable after ([\d.]+) s \(.*ECONNREFUSED/.exec((error as Error).message);
    expect(m).not.toBeNull();
    // ... and only once the timeout has passed.
    expect(Number(m![1])).toBeGreaterThanOrEqual(0.3);
  });
});

describe("RedisSeenSet: Redis is a cache (the loss guard)", () => {
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

  const lossOf = async (set: SeenSet, partition: number, keys: string[]): Promise<SeenSetLostError> => {
    const error = await set.checkAndAdd(partition, keys).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SeenSetLostError);
    return error as SeenSetLostError;
  };

  test("a partition never built refuses to answer, and adds nothing, until it is built", async () => {
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 1_000 });
    const loss = await lossOf(set, 2, ["https://a.example/"]);
    expect(loss.partition).toBe(2);
    expect(loss.reason).toBe("missing");
    expect((await set.describe(2)).keys).toBe(0);
    expect(await set.rebuild(2, [])).toBe(0);
    expect(await set.checkAndAdd(2, ["https://a.example/"])).toEqual([false]);
    expect(await set.checkAndAdd(2, ["https://a.example/"])).toEqual([true]);
  });

  test("a probe says whether a partition can answer, adding nothing: refused never built, after a loss or another client's rebuild", async () => {
    const prefix = freshPrefix();
    const set = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    const probeLoss = () =>
      set.probe(7).then(
        () => undefined,
        (e: unknown) => e as SeenSetLostError,
      );
    expect((await probeLoss())?.reason).toBe("missing");
    expect(await set.rebuild(7, [["https://a.example/"]])).toBe(1);
    await set.probe(7);
    await set.probe(7);
    expect((await set.describe(7)).keys).toBe(1);
    expect(await set.checkAndAdd(7, ["https://a.example/", "https://b.example/"])).toEqual([true, false]);
    // The client adopted the generation at its first answer: another client's rebuild is a change.
    const other = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    await other.rebuild(7, []);
    expect((await probeLoss())?.reason).toBe("changed");
    expect(await server.command("FLUSHALL")).toBe("+OK\r\n");
    expect((await probeLoss())?.reason).toBe("missing");
    expect((await set.describe(7)).keys).toBe(0);
  });

  // Without the client's cache of keys it knows are in (tested on its own below), every call asks Redis.
  test("an emptied Redis is reported lost on every call, never as 'not seen'; a rebuild from the known keys brings them back", async () => {
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    await set.rebuild(3, []);
    const known = range(0, 2_000, urlKey);
    await addAll(set, 3, known, 250);
    expect(await server.command("FLUSHALL")).toBe("+OK\r\n");
    expect((await lossOf(set, 3, known.slice(0, 10))).reason).toBe("missing");
    // Asking again does not turn the loss into "not seen", and nothing was added meanwhile.
    expect((await lossOf(set, 3, known.slice(0, 10))).reason).toBe("missing");
    expect((await set.describe(3)).keys).toBe(0);
    expect(await set.rebuild(3, [known.slice(0, 1_200), known.slice(1_200)])).toBe(known.length);
    expect((await addAll(set, 3, known, 250)).every((x) => x)).toBe(true);
    expect(countTrue(await set.checkAndAdd(3, range(0, 300, freshKey)))).toBeLessThan(10);
  });

  test("a Redis holding less than this client was told (a failover to a replica that lagged) is reported lost", async () => {
    const prefix = freshPrefix();
    const set = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    await set.rebuild(6, []);
    const early = range(0, 1_000, urlKey);
    const late = range(1_000, 1_500, urlKey);
    await addAll(set, 6, early, 250);
    // What a replica that stopped here holds: the partition's keys as they are now.
    const slices = (await set.describe(6)).slices;
    const names = [`${prefix}:6`, ...Array.from({ length: slices }, (_, i) => `${prefix}:6:${i}`)];
    const binary = { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } };
    const dumps = await Promise.all(names.map((k) => client.sendCommand<Buffer>(["DUMP", k], binary)));
    await addAll(set, 6, late, 250);
    // The failover: the server now holds the replica's older state.
    for (let i = 0; i < names.length; i++) await client.sendCommand(["RESTORE", names[i]!, "0", dumps[i]!, "REPLACE"]);
    const loss = await lossOf(set, 6, late.slice(0, 5));
    expect(loss.reason).toBe("lagging");
    expect(loss.message).toContain("confirmed");
    await set.rebuild(6, [[...early, ...late]]);
    expect((await addAll(set, 6, late, 250)).every((x) => x)).toBe(true);
  });

  test("keys the client knows are in answer 'seen' without Redis; the first call that asks Redis reports its loss and forgets them", async () => {
    const slots = 4_096;
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 1_000, cacheSlotsPerPartition: slots });
    await set.rebuild(5, []);
    // Keys that share no slot of the client's table (a newer key takes an older one's slot).
    const lanes = new Uint32Array(2);
    const slotOf = (key: string) => (hash64pairInto(key, lanes), lanes[1]! & (slots - 1));
    const bySlot = new Map<number, string[]>();
    for (const key of range(0, 400, urlKey)) bySlot.set(slotOf(key), [...(bySlot.get(slotOf(key)) ?? []), key]);
    const known = [...bySlot.values()]
      .filter((keys) => keys.length === 1)
      .map((keys) => keys[0]!)
      .slice(0, 200);
    expect(known.length).toBe(200);
    expect(countTrue(await addAll(set, 5, known, 50))).toBe(0);
    // Redis loses everything. What the client knows is still true of the crawl (those keys were added),
    // and it answers without asking: asked, Redis would report the loss.
    await server.command("FLUSHALL");
    expect((await set.checkAndAdd(5, known.slice(0, 50))).every((x) => x)).toBe(true);
    // ...and a key it must ask about finds the loss, after which it vouches for nothing until a rebuild.
    expect((await lossOf(set, 5, [known[0]!, freshKey(0)])).reason).toBe("missing");
    expect((await lossOf(set, 5, known.slice(0, 5))).reason).toBe("missing");
    await set.rebuild(5, [known.slice(0, 100)]);
    const answers = await set.checkAndAdd(5, known);
    expect(countTrue(answers.slice(0, 100))).toBe(100);
    expect(countTrue(answers.slice(100))).toBeLessThan(5);
  });

  test("a client that adopted a partition refuses to answer once another client has rebuilt it, then adopts the new generation", async () => {
    const prefix = freshPrefix();
    const owner = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    const other = new RedisSeenSet(client, { keyPrefix: prefix, initialCapacity: 1_000 });
    await owner.rebuild(4, []);
    expect(await other.checkAndAdd(4, ["https://a.example/1"])).toEqual([false]);
    await server.command("FLUSHALL");
    expect((await lossOf(owner, 4, ["https://a.example/2"])).reason).toBe("missing");
    await owner.rebuild(4, [["https://a.example/1"]]);
    expect((await lossOf(other, 4, ["https://a.example/2"])).reason).toBe("changed");
    expect(await other.checkAndAdd(4, ["https://a.example/1", "https://a.example/2"])).toEqual([true, false]);
    expect(await owner.checkAndAdd(4, ["https://a.example/2"])).toEqual([true]);
  });

  test("a rebuild that Redis loses before it finishes is refused; the next one finishes", async () => {
    const set = new RedisSeenSet(client, { keyPrefix: freshPrefix(), initialCapacity: 1_000, maxKeysPerScript: 100 });
    const known = range(0, 1_000, urlKey);
    async function* flushedHalfway(): AsyncGenerator<string[]> {
      yield known.slice(0, 500);
      await server.command("FLUSHALL");
      yield known.slice(500);
    }
    const error = await set.rebuild(8, flushedHalfway()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeenSetLostError);
    expect((error as SeenSetLostError).reason).toBe("rebuilding");
    expect((await lossOf(set, 8, known.slice(0, 3))).reason).toBe("missing");
    expect(await set.rebuild(8, [known])).toBe(known.length);
    expect((await addAll(set, 8, known, 250)).every((x) => x)).toBe(true);
  });

  test("a command that cannot be sent says which command, which server and why", async () => {
    const lonely = await startRedis();
    const impatient = await connectRedis(lonely.url, { commandTimeoutMs: 200 });
    try {
      const set = new RedisSeenSet(impatient, { keyPrefix: freshPrefix(), initialCapacity: 1_000 });
      await set.rebuild(0, []);
      await lonely.stop();
      const error = await set.checkAndAdd(0, ["https://a.example/"]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisCommandError);
      expect((error as Error).message).toMatch(
        /^the seen-set check of partition 0 on Redis at redis:\/\/127\.0\.0\.1:\d+\/? failed: not sent within 200 ms; the connection is down and being re-established$/,
      );
    } finally {
      await impatient.close().catch(() => {});
      await lonely.stop();
    }
  });

  test("a server that stops answering is noticed by the idle timeout, with a message", async () => {
    const impatient = await connectRedis(server.url, { idleTimeoutMs: 300 });
    try {
      const set = new RedisSeenSet(impatient, { keyPrefix: freshPrefix(), initialCapacity: 1_000 });
      await set.rebuild(0, []);
      // Every client's commands wait for 2 s: the written command gets no reply, the connection goes quiet.
      expect(await server.command("CLIENT PAUSE 2000 ALL")).toBe("+OK\r\n");
      const error = await set.checkAndAdd(0, ["https://a.example/"]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisCommandError);
      expect((error as Error).message).toMatch(/^the seen-set check of partition 0 on Redis at .* failed: .*timeout/i);
    } finally {
      await server.command("CLIENT UNPAUSE");
      await impatient.close().catch(() => {});
    }
  });
});

/** The body of each slice in `ScalableBloomFilter.toBytes()`: 48-byte header, then per slice a uint32
 * length and `BloomFilter.toBytes()` (a 32-byte header and the bits). */
function sliceBodies(filter: ScalableBloomFilter): Uint8Array[] {
  const bytes = filter.toBytes();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let at = 48;
  for (let i = 0; i < view.getUint32(40, true); i++) {
    const length = view.getUint32(at, true);
    out.push(bytes.subarray(at + 4 + 32, at + 4 + length));
    at += 4 + length;
  }
  return out;
}

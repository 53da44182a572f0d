/**
 * Benchmark of the Redis adapters against a real redis-server on loopback (`bun bench/redis.bench.ts`):
 *
 *  - RedisSeenSet check-and-add in keys/s, batches of 50 keys per call with a few calls in flight (what a
 *    frontier node admitting discovered links does), for fresh keys and for keys already seen, on a
 *    one-slice filter and on one grown to several slices (old slices cost a few GETBITs per key); every
 *    call passes the loss guard (generation and change count, seen-script.ts);
 *  - RedisSeenSet rebuild in keys/s: a partition re-added from a frontier store's pages after Redis lost
 *    it (how long a partition admits nothing after an empty restart);
 *  - RedisContentIndex exact claims/s and near claims/s with several claims in flight (fetch nodes), near
 *    claims both on sparse buckets and on buckets filled to their cap (the worst case);
 *  - RedisFetchClaims per task as a cluster makes them: the fetch node's claim and done mark, then the
 *    frontier node's done mark; and the claim of a task already done (a repeat, dropped unfetched);
 *  - RedisAddressGate per request as a fetch node makes them (64 at once, each on its own server address, as
 *    in a crawl where every host has its own): enter, arrived when the answer begins, leave when it ends.
 *
 * One connection, as in a node. Redis and the bench share the box, so figures are floors. Sizes scale
 * with BENCH_SCALE (e.g. 0.2); BENCH_ONLY=seen,content,claims,address runs some of the parts.
 */
import { connectRedis } from "../adapters/redis/connect.ts";
import { RedisContentIndex } from "../adapters/redis/redis-content-index.ts";
import { RedisAddressGate } from "../adapters/redis/redis-address-gate.ts";
import { RedisFetchClaims } from "../adapters/redis/redis-fetch-claims.ts";
import { RedisSeenSet } from "../adapters/redis/redis-seen-set.ts";
import { startRedis } from "../tests/support/redis.ts";

const scale = Number(process.env.BENCH_SCALE ?? "1");
const only = process.env.BENCH_ONLY?.split(",");
const runs = (part: string) => only === undefined || only.includes(part);
const SEEN_KEYS = Math.round(400_000 * scale);
const CLAIMS = Math.round(100_000 * scale);
const CROWDED = Math.round(20_000 * scale);
const BATCH = 50;
const IN_FLIGHT = 4;

const url = (i: number) =>
  `https://www.host${i % 20_011}.example.com/news/${i}/article-${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}.html`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** What a phase cost: its rate, and CPU per item of this process and of redis-server (which share the box). */
interface Cost {
  perSecond: number;
  clientUs: number;
  serverUs: number;
}

/** redis-server's CPU so far (user + system, all its threads), in µs. */
async function serverCpuUs(client: Client): Promise<number> {
  const info = await client.sendCommand<string>(["INFO", "cpu"]);
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? "0");
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1e6;
}

/**
 * Runs `phase` over `items` items and measures it. CPU is the better figure on a shared box: other load
 * moves the rate far more than the CPU each item takes.
 */
async function measure(client: Client, items: number, phase: () => Promise<void>): Promise<Cost> {
  const server0 = await serverCpuUs(client);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await phase();
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const server = (await serverCpuUs(client)) - server0;
  return { perSecond: items / seconds, clientUs: (cpu.user + cpu.system) / items, serverUs: server / items };
}

const costText = (c: Cost, unit: string) =>
  `${fmt(c.perSecond)} ${unit}/s, CPU per ${unit.replace(/s$/, "")}: client ${c.clientUs.toFixed(2)} µs, redis-server ${c.serverUs.toFixed(2)} µs`;

/** Runs `count` operations numbered 0..count-1, `inFlight` at a time. */
async function pump(count: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await op(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

async function benchSeen(client: Client, label: string, initialCapacity: number): Promise<void> {
  const set = new RedisSeenSet(client, { keyPrefix: `bench-seen-${initialCapacity}`, initialCapacity });
  await set.rebuild(0, []);
  const batches = Math.ceil(SEEN_KEYS / BATCH);
  const batchOf = (b: number) => Array.from({ length: Math.min(BATCH, SEEN_KEYS - b * BATCH) }, (_, k) => url(b * BATCH + k));
  let falsePositives = 0;
  const fresh = await measure(client, SEEN_KEYS, () =>
    pump(batches, IN_FLIGHT, async (b) => {
      for (const seen of await set.checkAndAdd(0, batchOf(b))) if (seen) falsePositives++;
    }),
  );
  let misses = 0;
  const seen = await measure(client, SEEN_KEYS, () =>
    pump(batches, IN_FLIGHT, async (b) => {
      for (const s of await set.checkAndAdd(0, batchOf(b))) if (!s) misses++;
    }),
  );
  const info = await set.describe(0);
  // The same keys re-added after a loss, from pages of 2,000 as the frontier store yields them.
  const prefix = `bench-seen-${initialCapacity}:0`;
  await client.sendCommand(["DEL", prefix, ...Array.from({ length: info.slices }, (_, i) => `${prefix}:${i}`)]);
  const pages = Array.from({ length: Math.ceil(SEEN_KEYS / 2_000) }, (_, b) =>
    Array.from({ length: Math.min(2_000, SEEN_KEYS - b * 2_000) }, (_, k) => url(b * 2_000 + k)),
  );
  const rebuilt = await measure(client, SEEN_KEYS, async () => {
    await set.rebuild(0, pages);
  });
  console.log(
    `RedisSeenSet ${label}: ${fmt(SEEN_KEYS)} keys, batches of ${BATCH}, ${IN_FLIGHT} in flight, ${info.slices} slice(s) at the end\n` +
      `  fresh keys   ${costText(fresh, "keys")}  (false positives ${((falsePositives / SEEN_KEYS) * 100).toFixed(3)} %)\n` +
      `  seen keys    ${costText(seen, "keys")}  (false negatives ${misses})\n` +
      `  rebuild      ${costText(rebuilt, "keys")}  (a lost partition re-added from the store)`,
  );
}

async function benchContent(client: Client): Promise<void> {
  const index = new RedisContentIndex(client, { keyPrefix: "bench-content:" });
  const inFlight = 16;
  const exact = await measure(client, CLAIMS, () => pump(CLAIMS, inFlight, (i) => index.claimExact(`fp${(i * 7) % (CLAIMS / 2)}`, url(i))));
  // Random 64-bit hashes: about CLAIMS * 4 / 65536 entries per bucket at the end.
  let state = 0x2545f491;
  const nextU32 = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const hashes = Array.from({ length: CLAIMS }, () => (BigInt(nextU32()) << 32n) | BigInt(nextU32()));
  let dups = 0;
  const near = await measure(client, CLAIMS, () =>
    pump(CLAIMS, inFlight, async (i) => {
      if ((await index.claimNear(i % 10 === 9 ? hashes[i - 1]! ^ 5n : hashes[i]!, url(i))) !== undefined) dups++;
    }),
  );
  // Crowded: every block takes one of 32 values, so each bucket soon holds `bucketCap` records and
  // every claim reads four full buckets: the worst case the cap allows.
  const crowdedIndex = new RedisContentIndex(client, { keyPrefix: "bench-crowded:" });
  const palette = Array.from({ length: 32 }, () => BigInt(nextU32() & 0xffff));
  const pick = () => palette[nextU32() % 32]!;
  const crowdedHashes = Array.from({ length: CROWDED }, () => (pick() << 48n) | (pick() << 32n) | (pick() << 16n) | pick());
  const crowded = await measure(client, CROWDED, () => pump(CROWDED, inFlight, (i) => crowdedIndex.claimNear(crowdedHashes[i]!, url(i))));
  console.log(
    `RedisContentIndex: ${fmt(CLAIMS)} claims, ${inFlight} in flight\n` +
      `  claimExact   ${costText(exact, "claims")}\n` +
      `  claimNear    ${costText(near, "claims")}  (${fmt(dups)} near duplicates found, ${fmt(CLAIMS / 10)} planted; ~${fmt((CLAIMS * 4) / 65536)} entries per bucket)\n` +
      `  claimNear    ${costText(crowded, "claims")}  crowded: ${fmt(CROWDED)} claims into buckets at their cap of ${crowdedIndex.bucketCap}`,
  );
}

async function benchClaims(client: Client): Promise<void> {
  const claims = new RedisFetchClaims(client, { keyPrefix: "bench-claim:" });
  const ttl = 600_000;
  const inFlight = 16;
  const task = (i: number) => `p${i % 64}-${(Math.imul(i, 0x9e3779b1) >>> 0).toString(36)}-${i}`;
  const perTask = await measure(client, CLAIMS, () =>
    pump(CLAIMS, inFlight, async (i) => {
      await claims.claim(task(i), i, ttl);
      await claims.done(task(i), ttl);
      await claims.done(task(i), ttl);
    }),
  );
  const repeats = await measure(client, CLAIMS, () => pump(CLAIMS, inFlight, (i) => claims.claim(task(i), i + 1, ttl)));
  console.log(
    `RedisFetchClaims: ${fmt(CLAIMS)} tasks, ${inFlight} in flight\n` +
      `  per task     ${costText(perTask, "tasks")}  (claim, done by the fetch node, done by the frontier node)\n` +
      `  repeat       ${costText(repeats, "claims")}  (the claim of a task done)`,
  );
}

async function benchAddressGate(client: Client): Promise<void> {
  const gate = new RedisAddressGate(client, { maxInFlight: 2, gapMs: 250, leaseMs: 35_000, keyPrefix: "bench-address" });
  const inFlight = 64;
  // A request: its answer begins a tick after it is sent, and ends a tick later (the turns a fetch node sees).
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  let refused = 0;
  // 20,000 servers: one is asked again only after 20,000 requests, far beyond its gap, as hosts are in a crawl.
  const perRequest = await measure(client, CLAIMS, () =>
    pump(CLAIMS, inFlight, async (i) => {
      const pass = await gate.enter(`site${i % 20_000}.example`, 5_000);
      if (!pass) {
        refused++;
        return;
      }
      await tick();
      pass.arrived();
      await tick();
      pass.leave();
    }),
  );
  gate.close();
  console.log(
    `RedisAddressGate: ${fmt(CLAIMS)} requests, ${inFlight} in flight, ${refused} refused\n` +
      `  per request  ${costText(perRequest, "requests")}  (enter, arrived, leave)`,
  );
}

type Client = Awaited<ReturnType<typeof connectRedis>>;

/** Runs `phase` and prints the server's own time per command, to tell Redis's share from the client's. */
async function withServerStats(client: Client, phase: () => Promise<void>): Promise<void> {
  await client.sendCommand(["CONFIG", "RESETSTAT"]);
  await phase();
  const info = await client.sendCommand<string>(["INFO", "commandstats"]);
  for (const line of info.split("\r\n")) {
    const m = /^cmdstat_(evalsha|set):calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/.exec(line);
    if (m) console.log(`  server: ${m[1]} ${fmt(Number(m[2]))} calls, ${m[4]} us per call, ${(Number(m[3]) / 1e6).toFixed(2)} s busy`);
  }
}

const server = await startRedis();
const client = await connectRedis(server.url);
try {
  if (runs("seen")) {
    await withServerStats(client, () => benchSeen(client, "one slice", SEEN_KEYS * 2));
    await withServerStats(client, () => benchSeen(client, "grown", Math.ceil(SEEN_KEYS / 30)));
  }
  if (runs("content")) await withServerStats(client, () => benchContent(client));
  if (runs("claims")) await withServerStats(client, () => benchClaims(client));
  if (runs("address")) await withServerStats(client, () => benchAddressGate(client));
} finally {
  await client.close();
  await server.stop();
}

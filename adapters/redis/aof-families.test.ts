/**
 * What each key family of the crawler's Redis leaves in the AOF (docs/cluster.md, "What Redis keeps across
 * a restart"), on a real redis-server with AOF as the fleet runs it: the work of a few pages through every
 * Redis adapter (seen checks, both content claims, a fetch claim and its done mark, an address pass taken,
 * arrived and given back), then the AOF's commands read back by key. The exact fingerprints and the fetch
 * claims are there; the seen-sets, the near-duplicate buckets and the address cap's passes are not (only
 * the address gate's holder beat is). Then kill -9 and a restart: what was in the AOF is back.
 *
 * Not checked here: a key that expires is deleted by Redis itself, which writes a DEL to the AOF whoever
 * wrote the key (a fetch claim 10 min after its task, an address's last arrival after its gap); the gap
 * here is long enough that none expires during the test.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedis, type RedisServer } from "../../tests/support/redis.ts";
import { connectRedis, type RedisClient } from "./connect.ts";
import { RedisAddressGate } from "./redis-address-gate.ts";
import { RedisContentIndex } from "./redis-content-index.ts";
import { RedisFetchClaims } from "./redis-fetch-claims.ts";
import { RedisSeenSet } from "./redis-seen-set.ts";

let dir: string;
let server: RedisServer;
let client: RedisClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aof-families-"));
  server = await startRedis({ appendOnly: true, dir });
  client = await connectRedis(server.url, { commandTimeoutMs: 10_000 });
});
afterAll(async () => {
  if (client.isOpen) await client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The commands of the AOF's incremental files, as [command, key] pairs (RESP arrays, as Redis writes them). */
function aofCommands(): Array<[string, string]> {
  const files = join(dir, "appendonlydir");
  const out: Array<[string, string]> = [];
  for (const name of readdirSync(files).filter((n) => n.endsWith(".incr.aof"))) {
    const data = readFileSync(join(files, name)).toString("latin1");
    let at = 0;
    const line = (): string => {
      const end = data.indexOf("\r\n", at);
      const text = data.slice(at, end);
      at = end + 2;
      return text;
    };
    while (at < data.length) {
      const argc = Number(line().slice(1));
      const args: string[] = [];
      for (let i = 0; i < argc; i++) {
        const length = Number(line().slice(1));
        args.push(data.slice(at, at + length));
        at += length + 2;
      }
      out.push([args[0]!.toUpperCase(), args[1] ?? ""]);
    }
  }
  return out;
}

test("the AOF holds the exact fingerprints, the fetch claims and the address gate's beat; not the seen-sets, near-duplicate buckets or address passes", async () => {
  const seen = new RedisSeenSet(client, { initialCapacity: 1_000 });
  const content = new RedisContentIndex(client);
  const claims = new RedisFetchClaims(client);
  const gate = new RedisAddressGate(client, { maxInFlight: 1, gapMs: 60_000, leaseMs: 30_000 });
  try {
    await seen.rebuild(0, []);
    for (let page = 0; page < 5; page++) {
      const url = `https://h${page}.example/page`;
      expect(await claims.claim(`task-${page}`, 1, 60_000)).toEqual({ kind: "new" });
      const pass = await gate.enter(`ip:192.0.2.${page}`, 1_000);
      expect(pass).toBeDefined();
      pass!.arrived();
      pass!.leave();
      expect(await content.claimExact(`fingerprint-${page}`, url)).toBeUndefined();
      expect(await content.claimNear(BigInt(page) * 0x0123_4567_89ab_cdefn, url)).toBeUndefined();
      const links = Array.from({ length: 30 }, (_, i) => `https://h${page}.example/link/${i}`);
      expect((await seen.checkAndAdd(0, links)).some((x) => x)).toBe(false);
      await claims.done(`task-${page}`, 60_000);
    }
  } finally {
    await gate.close();
  }
  // The gate's arrival and leave are said without being awaited: wait until Redis has them, then for the
  // AOF's once-a-second write.
  for (let i = 0; (await client.sendCommand<number>(["EXISTS", "crawler:address-last:ip:192.0.2.4"])) === 0; i++) {
    if (i > 200) throw new Error("the last arrival never reached Redis");
    await Bun.sleep(5);
  }
  await Bun.sleep(1_100);

  const families = new Map<string, Set<string>>();
  for (const [command, key] of aofCommands()) {
    if (command === "SELECT" || command === "MULTI" || command === "EXEC") continue;
    const family = key.replace(/^(crawler:[a-z-]+|[a-z]+).*$/, "$1");
    if (!families.has(family)) families.set(family, new Set());
    families.get(family)!.add(command);
  }
  expect(Object.fromEntries([...families].map(([family, commands]) => [family, [...commands].sort()]))).toEqual({
    fp: ["SET"],
    "crawler:fetch-claim": ["SET"],
    "crawler:address-holder": ["SET"],
  });

  // Killed and restarted from that AOF: the fingerprints and claims are back; the seen-set is not, and says so.
  await server.kill();
  server = await startRedis({ appendOnly: true, port: server.port, dir });
  for (let i = 0; !client.isReady; i++) {
    if (i > 500) throw new Error("the client did not reconnect");
    await Bun.sleep(10);
  }
  const content2 = new RedisContentIndex(client);
  expect(await content2.claimExact("fingerprint-3", "https://elsewhere.example/")).toBe("https://h3.example/page");
  expect(await new RedisFetchClaims(client).claim("task-3", 2, 60_000)).toEqual({ kind: "done" });
  const loss = await new RedisSeenSet(client, { initialCapacity: 1_000 })
    .checkAndAdd(0, ["https://h0.example/link/0"])
    .catch((e: unknown) => e);
  expect((loss as Error).name).toBe("SeenSetLostError");
}, 30_000);

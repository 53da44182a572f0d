/**
 * The seen-set across a restart of its Redis from disk, on a real redis-server with AOF as the fleet runs
 * it. The seen-set's writes are kept out of the AOF (seen-script.ts), so what a restart brings back of a
 * partition is at most what an AOF rewrite (or an RDB snapshot) caught: an older filter. These tests check
 * that such a filter is never answered from: every call, from a client that outlived the restart or from
 * one started after it, is refused (SEENLOST) until the partition is rebuilt, and a key once answered
 * "seen" is never answered "not seen". Last, a Redis user that may not run INFO (which the script reads the
 * live run_id with) is told what to allow.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SeenSetLostError } from "../../core/ports/index.ts";
import { startRedis, type RedisServer } from "../../tests/support/redis.ts";
import { connectRedis, type RedisClient } from "./connect.ts";
import { RedisSeenSet } from "./redis-seen-set.ts";

const keys = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `https://h${i % 37}.example/${tag}/${i}`);

let server: RedisServer | undefined;
let dir: string | undefined;
const clients: RedisClient[] = [];

/** A redis-server with AOF in a directory of this test's own, which outlives the server's restarts. */
async function startServer(): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), "seen-restart-"));
  server = await startRedis({ appendOnly: true, dir });
}

afterEach(async () => {
  for (const client of clients.splice(0)) if (client.isOpen) await client.close();
  await server?.stop();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function client(): Promise<RedisClient> {
  const c = await connectRedis(server!.url, { commandTimeoutMs: 10_000 });
  clients.push(c);
  return c;
}

/** BGREWRITEAOF and waits until the new base is written: the dataset as it is now is on disk. */
async function rewriteAof(c: RedisClient): Promise<void> {
  await c.sendCommand(["BGREWRITEAOF"]);
  for (let i = 0; ; i++) {
    const info = await c.sendCommand<string>(["INFO", "persistence"]);
    if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info) && /aof_last_bgrewrite_status:ok/.test(info)) return;
    if (i > 500) throw new Error(`AOF rewrite did not finish:\n${info}`);
    await Bun.sleep(10);
  }
}

/** Kills the server as a crash would (after the AOF's once-a-second fsync) and starts it again on its directory. */
async function crashAndRestart(): Promise<void> {
  await Bun.sleep(1_100);
  await server!.kill();
  server = await startRedis({ appendOnly: true, port: server!.port, dir });
}

/** Every byte the server's AOF files hold (the RDB base and the incremental command logs). */
function aofText(): string {
  const dir = join(server!.dir, "appendonlydir");
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString("latin1"))
    .join("");
}

async function lossOf(set: RedisSeenSet, partition: number, batch: string[]): Promise<SeenSetLostError> {
  const error = await set.checkAndAdd(partition, batch).then(
    (answers) => new Error(`answered instead of refusing: ${answers.filter((x) => !x).length} of ${answers.length} "not seen"`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SeenSetLostError);
  return error as SeenSetLostError;
}

describe("RedisSeenSet across a restart of Redis from its AOF", () => {
  test("keys added after an AOF rewrite are not in the AOF; restarted, the partition answers SEENLOST restarted to old and new clients, then a rebuild brings every key back", async () => {
    await startServer();
    const prefix = "seen-restart-a";
    const c = await client();
    const set = new RedisSeenSet(c, { keyPrefix: prefix, initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    await set.rebuild(3, []);
    const early = keys("early", 400);
    const late = keys("late", 400);
    expect((await set.checkAndAdd(3, early)).filter((x) => x).length).toBeLessThan(5);
    await rewriteAof(c);
    const aofAfterRewrite = aofText().length;
    expect((await set.checkAndAdd(3, late)).filter((x) => x).length).toBeLessThan(5);
    expect((await set.checkAndAdd(3, late)).every((x) => x)).toBe(true);
    // The late keys' bits are in memory only: the AOF did not grow by a byte for them (a BITFIELD per key
    // would be ~400 B each), and holds nothing of the partition beyond the rewrite's base.
    const plain = "plain-key-written-after-the-seen-keys";
    await c.sendCommand(["SET", plain, "1"]);
    await Bun.sleep(1_100);
    const aof = aofText();
    expect(aof).toContain(plain);
    expect(aof.length - aofAfterRewrite).toBeLessThan(200);

    await crashAndRestart();
    // The partition came back as the rewrite left it (early keys only, gen and ver of that moment): a
    // filter that would answer "not seen" for the late keys. Every client is refused instead.
    const survivor = await lossOf(set, 3, late.slice(0, 20));
    expect(survivor.reason).toBe("restarted");
    const newcomer = new RedisSeenSet(await client(), { keyPrefix: prefix, initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    expect((await lossOf(newcomer, 3, late.slice(0, 20))).reason).toBe("restarted");
    expect((await lossOf(newcomer, 3, early.slice(0, 20))).reason).toBe("restarted");
    // Refused calls add nothing; a rebuild from what the store knows lets it answer, every key seen.
    await newcomer.rebuild(3, [early, late]);
    expect((await newcomer.checkAndAdd(3, [...early, ...late])).every((x) => x)).toBe(true);
    // The client that outlived the restart dropped its guard at the refusal and adopts the rebuilt one.
    expect((await set.checkAndAdd(3, late)).every((x) => x)).toBe(true);
  }, 30_000);

  test("without a rewrite, a restart from the AOF holds nothing of the partition: SEENLOST missing", async () => {
    await startServer();
    const set = new RedisSeenSet(await client(), { keyPrefix: "seen-restart-b", initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    await set.rebuild(1, []);
    const added = keys("b", 300);
    await set.checkAndAdd(1, added);
    expect(aofText()).not.toContain("seen-restart-b");
    await crashAndRestart();
    expect((await lossOf(set, 1, added.slice(0, 10))).reason).toBe("missing");
  }, 30_000);

  test("a rebuild that Redis restarts in the middle of is refused, not finished half done; the next one finishes", async () => {
    await startServer();
    const c = await client();
    const set = new RedisSeenSet(c, { keyPrefix: "seen-restart-c", initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    const first = keys("first", 300);
    const second = keys("second", 300);
    let restarted!: () => void;
    const restart = new Promise<void>((resolve) => (restarted = resolve));
    async function* store(): AsyncGenerator<string[]> {
      yield first;
      // The rebuild's first half is caught by a rewrite, then Redis crashes and comes back from it.
      await rewriteAof(c);
      await crashAndRestart();
      restarted();
      yield second;
    }
    const error = await set.rebuild(2, store()).catch((e: unknown) => e);
    await restart;
    expect(error).toBeInstanceOf(SeenSetLostError);
    expect((error as SeenSetLostError).reason).toBe("rebuilding");
    // Nothing answers from the half-built partition meanwhile.
    const other = new RedisSeenSet(await client(), { keyPrefix: "seen-restart-c", initialCapacity: 1_000, cacheSlotsPerPartition: 0 });
    expect((await lossOf(other, 2, second.slice(0, 10))).reason).toBe("rebuilding");
    await set.rebuild(2, [first, second]);
    expect((await other.checkAndAdd(2, [...first, ...second])).every((x) => x)).toBe(true);
  }, 30_000);
});

describe("RedisSeenSet and the INFO its script needs", () => {
  test("a Redis user that may not run INFO gets an error that says to allow it, and nothing is answered", async () => {
    await startServer();
    const admin = await client();
    await admin.sendCommand(["ACL", "SETUSER", "no-info", "on", ">secret", "~seen:*", "+@all", "-@dangerous"]);
    const url = server!.url.replace("redis://", "redis://no-info:secret@");
    const limited = await connectRedis(url);
    clients.push(limited);
    const set = new RedisSeenSet(limited, { initialCapacity: 1_000 });
    const error = await set.rebuild(0, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("must be allowed INFO: add +info");
    const check = await set.checkAndAdd(0, ["https://example.com/"]).catch((e: unknown) => e);
    expect((check as Error).message).toContain("+info");
  });
});

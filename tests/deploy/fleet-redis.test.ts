/**
 * The fleet module's Redis, started for real: a region with a primary and a replica rendered onto
 * 127.0.0.1, each run with its rendered argv and redis.conf, its users written by its rendered
 * load-secrets. The crawler's ACL user runs the real seen-set and content index (adapters/redis) with the
 * URL the fleet renders for frontier and fetch nodes; the default user and a wrong password are refused;
 * the replica follows the primary through its own ACL user (the seen-set's writes too, which are kept out
 * of the AOF); and across a restart of the primary the AOF brings back the exact fingerprints while the
 * seen-set, not in it, refuses to answer until it is rebuilt.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectRedis, RedisContentIndex, RedisSeenSet } from "../../adapters/redis/index.ts";
import { loopbackOverrides, nodeIds, provisionMachine, startProcess, type RunningProcess } from "./support/loopback-fleet.ts";
import { renderFleet, type FleetOutput } from "./support/terraform.ts";

const REGIONS = { "us-east-1": { nats: 1, redis: 2, frontier: 1, fetch: 1 } };
const SECRETS = {
  admin_token: "test/admin-token",
  redis_password: "test/redis",
  nats_coordinator_password: "test/nats-coordinator",
  nats_frontier_password: "test/nats-frontier",
  nats_fetch_password: "test/nats-fetch",
  nats_system_password: "test/nats-system",
};
const VALUES: Record<string, string> = Object.fromEntries(Object.values(SECRETS).map((name) => [name, `v-${crypto.randomUUID()}`]));

let root: string;
let fleet: FleetOutput;
const running = new Map<string, RunningProcess>();
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "fleet-redis-"));
  fleet = renderFleet({
    fleet: {
      name: "test",
      crawler_version: "test",
      artifact_url: "https://releases.example.org/crawler.tar.gz",
      artifact_sha256: "0".repeat(64),
      default_region: "us-east-1",
      control_region: "us-east-1",
      coordinators: 1,
      regions: REGIONS,
    },
    secrets: SECRETS,
    paths: { redis: process.env["REDIS_SERVER"] ?? "/usr/bin/redis-server" },
    listen_host: "127.0.0.1",
    machine_overrides: await loopbackOverrides(nodeIds(1, REGIONS), root),
  });
}, 120_000);

// Each stop may take its 5 s grace (a primary shutting down waits for its replica's acknowledgement): more
// than a hook's default 5 s, which failed about one run in four on a loaded box.
afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
  for (const p of running.values()) await p.stop();
  if (root) rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Starts a rendered Redis machine as its unit would (state directory made first, as ExecStartPre does). */
async function boot(id: string): Promise<void> {
  const m = fleet.machines[id]!;
  const env = provisionMachine(m, VALUES);
  const p = startProcess(m.argv, { ...m.env, ...env }, join(m.dirs.state, "redis"));
  running.set(id, p);
  await p.waitFor(/Ready to accept connections/, 20_000, `${id} ready`);
}

/** What a frontier node's CRAWL_REDIS_URL becomes on its machine once load-secrets has run. */
function crawlerRedisUrl(): string {
  const env = provisionMachine(fleet.machines["us-east-1-frontier-1"]!, VALUES);
  return env["CRAWL_REDIS_URL"]!;
}

/** One inline command over a bare socket (no client library, no AUTH) and the first reply line. */
function raw(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1", () => sock.write(`${line}\r\n`));
    sock.once("data", (d) => {
      resolve(d.toString().split("\r\n")[0]!);
      sock.destroy();
    });
    sock.once("error", reject);
  });
}

test("fleet Redis - the rendered primary and replica start with persistence and the crawler's ACL user", async () => {
  const conf = fleet.redis_configs["us-east-1-redis-1"]!;
  expect(conf).toContain("appendonly yes\n");
  await boot("us-east-1-redis-1");
  await boot("us-east-1-redis-2");

  const url = crawlerRedisUrl();
  expect(url).toStartWith(`redis://crawler:${VALUES["test/redis"]}@127.0.0.1:`);
  const seen = await RedisSeenSet.connect(url);
  closers.push(() => seen.close());
  // A frontier node starts a partition by building it from its store (empty here).
  await seen.rebuild(3, []);
  expect(await seen.checkAndAdd(3, ["https://example.com/a", "https://example.com/b"])).toEqual([false, false]);
  expect(await seen.checkAndAdd(3, ["https://example.com/a", "https://example.com/c"])).toEqual([true, false]);
  const content = await RedisContentIndex.connect(url);
  closers.push(() => content.close());
  expect(await content.claimExact("f".repeat(64), "https://example.com/a")).toBeUndefined();
  expect(await content.claimExact("f".repeat(64), "https://example.com/copy")).toBe("https://example.com/a");
  expect(await content.claimNear(0x0123456789abcdefn, "https://example.com/a")).toBeUndefined();
}, 60_000);

test("fleet Redis - the default user and a wrong password are refused; the crawler user cannot run admin commands", async () => {
  const primary = fleet.machines["us-east-1-redis-1"]!.ports["redis"]!;
  expect(await raw(primary, "PING")).toStartWith("-NOAUTH");
  expect(await raw(primary, "AUTH default anything")).toStartWith("-WRONGPASS");
  const wrong = crawlerRedisUrl().replace(VALUES["test/redis"]!, "not-the-password");
  await expect(connectRedis(wrong, { initialTimeoutMs: 1_000 })).rejects.toThrow();
  const client = await connectRedis(crawlerRedisUrl());
  closers.push(() => client.close());
  await expect(client.sendCommand(["FLUSHALL"])).rejects.toThrow(/NOPERM/);
  await expect(client.sendCommand(["SET", "other:key", "x"])).rejects.toThrow(/NOPERM/);
}, 30_000);

test("fleet Redis - the replica follows the primary through its replication user", async () => {
  const replicaUrl = crawlerRedisUrl().replace(/:(\d+)$/, `:${fleet.machines["us-east-1-redis-2"]!.ports["redis"]}`);
  const replica = await connectRedis(replicaUrl);
  closers.push(() => replica.close());
  const deadline = Date.now() + 20_000;
  let copy: unknown = null;
  while (copy !== "https://example.com/a" && Date.now() < deadline) {
    copy = await replica.sendCommand(["GET", `fp:${"f".repeat(64)}`]);
    if (copy !== "https://example.com/a") await new Promise((r) => setTimeout(r, 50));
  }
  expect(copy).toBe("https://example.com/a");
  // The seen-set's writes reach the replica though they are kept out of the AOF (REPL_REPLICA).
  expect(await replica.sendCommand<string | null>(["HGET", "seen:3", "keys"])).toBe("3");
}, 30_000);

test("fleet Redis - across a restart of the primary the AOF brings the fingerprints back; the seen-set says it lost its partition until it is rebuilt", async () => {
  const m = fleet.machines["us-east-1-redis-1"]!;
  expect(existsSync(join(m.dirs.state, "redis", "appendonlydir"))).toBe(true);
  for (const close of closers.splice(0)) await close();
  await running.get("us-east-1-redis-1")!.stop();
  await boot("us-east-1-redis-1");
  const seen = await RedisSeenSet.connect(crawlerRedisUrl());
  closers.push(() => seen.close());
  // Redis 7.0 replays the AOF as the default user; no entry of it may be refused.
  expect(running.get("us-east-1-redis-1")!.log()).not.toContain("NOPERM");
  const content = await RedisContentIndex.connect(crawlerRedisUrl());
  closers.push(() => content.close());
  expect(await content.claimExact("f".repeat(64), "https://example.com/copy")).toBe("https://example.com/a");
  // The seen-set was not in the AOF: lost, never "not seen", until the frontier rebuilds it from its store.
  const lost = await seen.checkAndAdd(3, ["https://example.com/a", "https://example.com/d"]).catch((e: unknown) => e);
  expect((lost as Error).name).toBe("SeenSetLostError");
  await seen.rebuild(3, [["https://example.com/a", "https://example.com/b", "https://example.com/c"]]);
  expect(await seen.checkAndAdd(3, ["https://example.com/a", "https://example.com/b", "https://example.com/d"])).toEqual([
    true,
    true,
    false,
  ]);
}, 60_000);

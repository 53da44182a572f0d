/**
 * The servers of `cluster up` keep their data: after a crawl, nats-server and redis-server are killed with
 * SIGKILL; the launcher starts them again on the same ports over the same directories, the nodes
 * reconnect by themselves, and nothing was forgotten: Redis holds the same keys of the families its
 * append-only file keeps (exact fingerprints, fetch claims; the seen-sets are not in it and are rebuilt from
 * the frontier nodes' stores), the ring and the node records are still in NATS (its JetStream store), and
 * seeding the same URLs again fetches nothing. Then the whole launcher is stopped and started again on the same DIR: every process
 * gets the ports and the token it had, the frontier nodes still know what they fetched (`url explain`),
 * and seeding again still fetches nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sendInline } from "../../support/redis.ts";
import { pageRequests, useCluster, waitForIdle, waitForPages, waitUntil, type ClusterUp } from "./harness.ts";
import type { TestWeb } from "../../testweb/index.ts";

const cluster = useCluster();

/**
 * The keys of the Redis on `port` of the families its append-only file keeps, once it answers (it replays
 * the file first): exact fingerprints and fetch claims (docs/cluster.md, "What Redis keeps across a
 * restart"). The seen-sets, near-duplicate buckets and address passes are kept out of it.
 */
const DATA_KEYS = `EVAL "local n = 0 for _, k in ipairs(redis.call('KEYS', '*')) do if string.find(k, '^fp:') or string.find(k, '^crawler:fetch%-') then n = n + 1 end end return n" 0`;
async function dbsize(port: number): Promise<number> {
  let reply = "";
  await waitUntil(
    async () => {
      reply = await sendInline(port, DATA_KEYS);
      return /^:\d+/.test(reply);
    },
    { timeoutMs: 20_000, what: `redis on port ${port} to answer DBSIZE`, detail: () => reply },
  );
  return Number(reply.slice(1));
}

/**
 * Seeds `seeds` again and waits until the frontier nodes have judged every one of them seen
 * (`seen.skipped` grew by their number): then they will never be fetched. Returns the counters' growth.
 */
async function seedAgain(c: ClusterUp, seeds: readonly string[]): Promise<{ skipped: number; admitted: number }> {
  const count = async (name: string) => (await c.stats()).counters[name] ?? 0;
  const [skipped, admitted] = [await count("seen.skipped"), await count("frontier.admitted")];
  await c.seed(seeds);
  await waitUntil(async () => (await count("seen.skipped")) - skipped >= seeds.length || (await count("frontier.admitted")) > admitted, {
    timeoutMs: 30_000,
    what: "the seeds to be judged",
    procs: [c.proc],
  });
  return { skipped: (await count("seen.skipped")) - skipped, admitted: (await count("frontier.admitted")) - admitted };
}

/** Nothing requested since `before` requests, and nothing queued or in flight. */
async function nothingFetched(c: ClusterUp, web: TestWeb, before: number): Promise<void> {
  const stats = await c.stats();
  expect([stats.queued, stats.inFlight]).toEqual([0, 0]);
  expect(pageRequests(web).length).toBe(before);
}

describe("cluster up: servers keep their data", () => {
  test("nats-server and redis-server killed come back on their ports with their data, and so does a whole new cluster up on the same DIR", async () => {
    const web = await cluster.web({ hosts: 4, pagesPerHost: 15, linksPerPage: 6, pageBytes: 2000 });
    const seeds = Array.from({ length: 4 }, (_, i) => web.url(`site${i}.test`));
    const expected = web.expectedPages(seeds);
    const c = await cluster.up({ web, noDeno: true });
    await c.seed(seeds);
    await waitForPages(web, expected.pages, { timeoutMs: 90_000, what: "every expected page", procs: [c.proc] });
    await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });
    const fetched = pageRequests(web).length;
    const redis = c.file.processes.find((p) => p.role === "redis")!;
    const keys = await dbsize(redis.ports["redis"]!);
    expect(keys).toBeGreaterThan(0);
    const ring = await c.ring();

    const natsKill = c.kill("nats-region-1");
    const redisKill = c.kill("redis-region-1");
    const nats = await c.waitRestarted("nats-region-1", natsKill.pid);
    const redisAgain = await c.waitRestarted("redis-region-1", redisKill.pid);
    expect(nats.ports).toEqual(c.file.processes.find((p) => p.role === "nats")!.ports);
    expect(redisAgain.ports).toEqual(redis.ports);
    expect(await dbsize(redis.ports["redis"]!)).toBe(keys);
    // The cluster state came back from the JetStream store: the same ring, and every node still there.
    await waitUntil(async () => (await c.crawlctl(["status"])).code === 0, {
      timeoutMs: 30_000,
      what: "crawlctl status to answer again",
      procs: [c.proc],
    });
    // crawlctl status answers from the coordinator's cached totals; its first reads of the restarted
    // JetStream store may still fail for a moment, so wait for one before comparing.
    let after: Awaited<ReturnType<typeof c.ring>> | undefined;
    await waitUntil(async () => (after = await c.ring()) !== undefined, { timeoutMs: 30_000, what: "the ring to be read again" });
    expect(after!.epoch).toBe(ring.epoch);
    expect(after!.regions).toEqual(ring.regions);
    await waitUntil(async () => (await c.nodes()).filter((n) => n.state === "live").length === 5, {
      timeoutMs: 30_000,
      what: "every node live",
      procs: [c.proc],
    });
    // Seeds seen before are still seen (their partitions' seen-sets rebuilt from the stores): nothing is
    // fetched again.
    expect(await seedAgain(c, seeds)).toEqual({ skipped: seeds.length, admitted: 0 });
    await nothingFetched(c, web, fetched);

    // The whole launcher, stopped and started again on the same directory.
    c.proc.signal("SIGTERM");
    expect(await c.proc.waitExit(90_000)).toEqual({ code: 0, signal: null });
    // The DIR's partition count is fixed: another one is refused before anything starts, saying which.
    const layout = readFileSync(join(c.dir, "layout.json"), "utf8");
    expect((JSON.parse(layout) as { partitions: number }).partitions).toBe(16);
    const refused = Bun.spawnSync(["bun", "run", "cluster", "up", "--dir", c.dir, "--partitions", "64"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr.toString()).toContain("--partitions 64: this DIR's cluster has 16 partitions, fixed for its life");
    expect(readFileSync(join(c.dir, "layout.json"), "utf8")).toBe(layout);
    expect(existsSync(join(c.dir, "cluster.json"))).toBe(false);
    const again = await cluster.up({ web, noDeno: true, dir: c.dir });
    expect(again.file.token).toBe(c.file.token);
    expect(again.file.processes.map((p) => [p.id, p.ports])).toEqual(c.file.processes.map((p) => [p.id, p.ports]));
    expect(again.file.grpcAddress).toBe(c.file.grpcAddress);
    expect(await dbsize(redis.ports["redis"]!)).toBe(keys);
    const home = web.url("site0.test");
    const explained = await again.crawlctlJson<{ state: string }>(["url", "explain", home]);
    expect(explained.state).toBe("fetched");
    expect(await seedAgain(again, seeds)).toEqual({ skipped: seeds.length, admitted: 0 });
    await nothingFetched(again, web, fetched);
  }, 300_000);
});

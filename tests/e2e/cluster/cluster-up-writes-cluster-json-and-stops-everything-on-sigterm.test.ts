/**
 * The local launcher, `bun run cluster up`: once the cluster is ready it writes DIR/cluster.json with the
 * admin URL, the gRPC address and the token (all three working), logs each process to DIR/logs; and one
 * SIGTERM to the launcher, mid-crawl, stops every process it started (nats-server, redis-server, the
 * coordinator, the frontier nodes, the fetch nodes on Bun and Deno): none of their pids is left, the
 * launcher exits 0 and removes cluster.json (it would point at nothing).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commandOf, requireDeno, descendants, isRunning, pageRequests, useCluster, waitUntil } from "./harness.ts";

const cluster = useCluster();

describe("cluster up", () => {
  test("cluster up writes cluster.json when ready and stops every process it started on SIGTERM", async () => {
    requireDeno(); // one fetch node runs on Deno
    const web = await cluster.web({ hosts: 4, pagesPerHost: 30, linksPerPage: 8, pageBytes: 2000 });
    const c = await cluster.up({ web });

    const info = JSON.parse(readFileSync(join(c.dir, "cluster.json"), "utf8")) as Record<string, string>;
    expect(Object.keys(info).sort()).toEqual(["adminUrl", "grpcAddress", "token"]);
    expect(info["adminUrl"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info["grpcAddress"]).toMatch(/^127\.0\.0\.1:\d+$/);
    // All three work: the admin API with the token, crawlctl over gRPC with it. (The totals are a snapshot
    // up to a second old, which may predate the second frontier node's first heartbeat.)
    await waitUntil(async () => (await c.stats()).frontierNodes === 2, {
      timeoutMs: 10_000,
      what: "the totals to count both frontier nodes",
      procs: [c.proc],
    });
    expect((await c.crawlctl(["status"])).code).toBe(0);
    const nodes = await c.nodes();
    expect(nodes.filter((n) => n.state === "live").map((n) => n.id)).toEqual([
      "coordinator-1",
      "fetch-1",
      "fetch-2",
      "frontier-1",
      "frontier-2",
    ]);

    // Mid-crawl, so the stop has work in flight to wind down.
    await c.seed([0, 1, 2, 3].map((i) => web.url(`site${i}.test`)));
    await waitUntil(() => pageRequests(web).length >= 8, { timeoutMs: 20_000, what: "the crawl to be under way", procs: [c.proc] });

    const tree = descendants(c.proc.pid);
    const commands = tree.map(commandOf);
    const started = (pattern: RegExp) => commands.filter((cmd) => pattern.test(cmd)).length;
    expect(started(/nats-server/)).toBe(1);
    expect(started(/redis-server/)).toBe(1);
    expect(started(/coordinator\/main\.ts/)).toBe(1);
    expect(started(/frontier-node\/main\.ts/)).toBe(2);
    expect(started(/fetch-node\/main\.ts/)).toBe(2);
    expect(started(/^deno run .*fetch-node\/main\.ts/)).toBe(1);
    expect(readdirSync(join(c.dir, "logs")).sort()).toEqual([
      "coordinator.log",
      "fetch-1.log",
      "fetch-2.log",
      "frontier-1.log",
      "frontier-2.log",
    ]);

    c.proc.signal("SIGTERM");
    const exit = await c.proc.waitExit(45_000);
    expect(exit).toEqual({ code: 0, signal: null });
    // Everything it started is gone (reaped, not a zombie), not merely orphaned.
    await waitUntil(() => tree.every((pid) => !isRunning(pid)), {
      timeoutMs: 5_000,
      what: "every process of the cluster to be gone",
      detail: () =>
        tree
          .filter(isRunning)
          .map((pid) => `${pid}: ${commandOf(pid)}`)
          .join("\n"),
    });
    expect(existsSync(join(c.dir, "cluster.json"))).toBe(false);
    expect(c.proc.output()).toContain("cluster: stopped");
    // And nothing answers at the old addresses.
    await expect(fetch(`${info["adminUrl"]}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  }, 120_000);
});

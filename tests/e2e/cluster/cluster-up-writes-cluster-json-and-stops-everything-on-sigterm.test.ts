/**
 * The local launcher, `bun run cluster up`: DIR/cluster.json appears only once every process is up and
 * registered (every node live, the ring settled on the frontier nodes and each serving its share, the
 * totals counting every node), with the admin URL, the gRPC address and the token (all working) and every
 * process (role, id, region, pid, ports, data directory); each process logs to DIR/logs; and one SIGTERM
 * to the launcher, mid-crawl, stops every process it started (nats-server, redis-server, the
 * coordinator, the frontier nodes, the fetch nodes on Bun and Deno): none of their pids is left, the
 * launcher exits 0 and removes cluster.json (it would point at nothing).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commandOf, requireDeno, descendants, isRunning, pageRequests, REGION, useCluster, waitUntil } from "./harness.ts";

const cluster = useCluster();

describe("cluster up", () => {
  test("cluster up writes cluster.json once every process is registered and stops every process it started on SIGTERM", async () => {
    requireDeno(); // one fetch node runs on Deno
    const web = await cluster.web({ hosts: 4, pagesPerHost: 30, linksPerPage: 8, pageBytes: 2000 });
    const c = await cluster.up({ web, frontiers: 3 });

    // What the file said when it appeared was already true: every node live and serving its share.
    const info = c.file;
    expect(Object.keys(info).sort()).toEqual(["adminUrl", "grpcAddress", "processes", "regions", "token", "updatedAt"]);
    expect(info.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.grpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(info.regions).toEqual([REGION]);
    const nodes = await c.nodes();
    expect(nodes.filter((n) => n.state === "live").map((n) => n.id)).toEqual([
      "coordinator-1",
      "fetch-1",
      "fetch-2",
      "frontier-1",
      "frontier-2",
      "frontier-3",
    ]);
    const ring = await c.ring();
    const owners = ring.regions[REGION]!;
    // A new DIR's partition count: 8 per frontier node (at least 16).
    expect(owners.owners.length).toBe(24);
    expect(owners.previous.every((p) => p === "")).toBe(true);
    for (const id of ["frontier-1", "frontier-2", "frontier-3"]) {
      const share = owners.owners.flatMap((o, p) => (o === id ? [p] : []));
      expect(share.length).toBeGreaterThan(0);
      expect(nodes.find((n) => n.id === id)!.partitions.toSorted((a, b) => a - b)).toEqual(share);
    }
    // All three work: the admin API with the token, crawlctl over gRPC with it.
    expect((await c.stats()).frontierNodes).toBe(3);
    expect((await c.crawlctl(["status"])).code).toBe(0);

    // Every process is listed, with the pid that runs it, its ports and its data directory.
    expect(info.processes.map((p) => [p.role, p.id, p.region])).toEqual([
      ["nats", `nats-${REGION}`, REGION],
      ["redis", `redis-${REGION}`, REGION],
      ["coordinator", "coordinator-1", REGION],
      ["fetch", "fetch-1", REGION],
      ["fetch", "fetch-2", REGION],
      ["frontier", "frontier-1", REGION],
      ["frontier", "frontier-2", REGION],
      ["frontier", "frontier-3", REGION],
    ]);
    const tree = descendants(c.proc.pid);
    for (const p of info.processes) {
      expect(tree).toContain(p.pid!);
      expect(p.restarts).toBe(0);
      if (p.role !== "coordinator") expect(p.dataDir).toBe(join(c.dir, p.id));
    }
    const coordinator = info.processes.find((p) => p.id === "coordinator-1")!;
    expect(info.grpcAddress).toBe(`127.0.0.1:${coordinator.ports["grpc"]}`);
    expect(info.adminUrl).toBe(`http://127.0.0.1:${coordinator.ports["http"]}`);
    const frontier1 = info.processes.find((p) => p.id === "frontier-1")!;
    expect(nodes.find((n) => n.id === "frontier-1")!.grpcAddress).toBe(`127.0.0.1:${frontier1.ports["grpc"]}`);

    // Mid-crawl, so the stop has work in flight to wind down.
    await c.seed([0, 1, 2, 3].map((i) => web.url(`site${i}.test`)));
    await waitUntil(() => pageRequests(web).length >= 8, { timeoutMs: 20_000, what: "the crawl to be under way", procs: [c.proc] });

    const commands = tree.map(commandOf);
    const started = (pattern: RegExp) => commands.filter((cmd) => pattern.test(cmd)).length;
    expect(started(/nats-server/)).toBe(1);
    expect(started(/redis-server/)).toBe(1);
    expect(started(/coordinator\/main\.ts/)).toBe(1);
    expect(started(/frontier-node\/main\.ts/)).toBe(3);
    expect(started(/fetch-node\/main\.ts/)).toBe(2);
    expect(started(/^deno run .*fetch-node\/main\.ts/)).toBe(1);
    expect(readdirSync(join(c.dir, "logs")).sort()).toEqual(info.processes.map((p) => `${p.id}.log`).sort());

    c.proc.signal("SIGTERM");
    const exit = await c.proc.waitExit(90_000);
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
    // And nothing answers at the old addresses.
    await expect(fetch(`${info.adminUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    // The layout stays for the next cluster up on this directory: same token, same ports.
    const layout = JSON.parse(readFileSync(join(c.dir, "layout.json"), "utf8")) as {
      token: string;
      ports: Record<string, object>;
      partitions: number;
    };
    expect(layout.token).toBe(info.token);
    expect(layout.partitions).toBe(24);
    expect(layout.ports["coordinator-1"]).toEqual(coordinator.ports);
  }, 180_000);
});

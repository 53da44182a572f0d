/**
 * One truth, two doors: `crawlctl status|nodes|ring --json` (gRPC) and `GET /v1/stats|nodes|ring` (HTTP)
 * show the same numbers. The totals are compared snapshot by snapshot while the crawl runs (the
 * coordinator serves one cached snapshot per second to both, stamped `atMs`, so the admin API is polled
 * while crawlctl runs and the answer with the same stamp must match it field by field); nodes and ring
 * are compared at idle, when nothing moves; and each listing names every node exactly once.
 */
import { describe, expect, test } from "bun:test";
import { NodeRole, NodeState } from "../../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { REGION, useCluster, waitForIdle, waitUntil, type Coordinator, type NodeView, type RingView, type Stats } from "./harness.ts";

const cluster = useCluster();

interface CliStatus extends Omit<Stats, "counters"> {
  counters: Record<string, number>;
}

interface CliNode {
  id: string;
  role: NodeRole;
  region: string;
  runtime: string;
  state: NodeState;
  partitions: number[];
  grpcAddress: string;
  httpAddress: string;
  lastHeartbeatMs: number;
  startedAtMs: number;
  counters: Record<string, number>;
}

interface CliRing {
  partitions: number;
  epoch: number;
  regions: Array<{ region: string; assignments: Array<{ partition: number; owner: string; previousOwner: string }> }>;
}

const ROLE = { coordinator: NodeRole.NODE_ROLE_COORDINATOR, frontier: NodeRole.NODE_ROLE_FRONTIER, fetcher: NodeRole.NODE_ROLE_FETCHER };
const STATE = {
  live: NodeState.NODE_STATE_ACTIVE,
  draining: NodeState.NODE_STATE_DRAINING,
  dead: NodeState.NODE_STATE_DEAD,
  left: NodeState.NODE_STATE_LEFT,
};

/**
 * Runs `crawlctl status --json` while polling /v1/stats, and returns the crawlctl answer with the admin
 * answer of the same snapshot (`atMs`). Undefined when no poll hit that snapshot (crawlctl read right
 * at a cache refresh): the caller tries again.
 */
async function sameSnapshot(c: Coordinator): Promise<{ cli: CliStatus; http: Stats } | undefined> {
  const polled: Stats[] = [];
  let done = false;
  const poller = (async () => {
    while (!done) {
      polled.push(await c.stats());
      await Bun.sleep(50);
    }
  })();
  try {
    const cli = await c.crawlctlJson<CliStatus>(["status"]);
    const http = polled.find((s) => s.atMs === cli.atMs) ?? (await c.stats().then((s) => (s.atMs === cli.atMs ? s : undefined)));
    return http ? { cli, http } : undefined;
  } finally {
    done = true;
    await poller;
  }
}

function cliShapeOfStats(s: Stats): CliStatus {
  const { atMs, counters, pagesFetched, pagesPerSecond, queued, inFlight, errors, frontierNodes, fetchNodes } = s;
  return { atMs, counters, pagesFetched, pagesPerSecond, queued, inFlight, errors, frontierNodes, fetchNodes };
}

function cliShapeOfNode(n: NodeView): CliNode {
  return {
    id: n.id,
    role: ROLE[n.role],
    region: n.region,
    runtime: n.runtime,
    state: STATE[n.state],
    partitions: n.partitions,
    grpcAddress: n.grpcAddress,
    httpAddress: n.httpAddress,
    lastHeartbeatMs: n.heartbeatAt,
    startedAtMs: n.startedAt,
    counters: n.counters,
  };
}

function cliShapeOfRing(r: RingView): CliRing {
  return {
    partitions: r.partitions,
    epoch: r.epoch,
    regions: Object.keys(r.regions)
      .sort()
      .map((region) => ({
        region,
        assignments: r.regions[region]!.owners.map((owner, partition) => ({
          partition,
          owner,
          previousOwner: r.regions[region]!.previous[partition] ?? "",
        })),
      })),
  };
}

describe("cluster: crawlctl and the admin API", () => {
  test("crawlctl status, nodes and ring show the same numbers as the admin API", async () => {
    const web = await cluster.web({ hosts: 4, pagesPerHost: 20, linksPerPage: 8, pageBytes: 2000 });
    const c = await cluster.up({ web });
    await c.seed([0, 1, 2, 3].map((i) => web.url(`site${i}.test`)));

    // While the crawl runs: three snapshots with pages in them, each the same through both doors.
    const pairs: Array<{ cli: CliStatus; http: Stats }> = [];
    await waitUntil(
      async () => {
        const pair = await sameSnapshot(c);
        if (pair && pair.http.pagesFetched > 0 && !pairs.some((p) => p.http.pagesFetched === pair.http.pagesFetched)) pairs.push(pair);
        return pairs.length >= 3;
      },
      { timeoutMs: 40_000, what: "three snapshots taken while pages are being fetched", intervalMs: 200, procs: [c.proc] },
    );
    for (const pair of pairs) expect(pair.cli).toEqual(cliShapeOfStats(pair.http));

    const idle = await waitForIdle(c, web, { timeoutMs: 60_000, procs: [c.proc] });
    expect(pairs.every((p) => p.http.pagesFetched < idle.pagesFetched)).toBe(true);
    let pair: Awaited<ReturnType<typeof sameSnapshot>>;
    await waitUntil(async () => (pair = await sameSnapshot(c)) !== undefined, { timeoutMs: 10_000, what: "a shared snapshot at idle" });
    expect(pair!.cli).toEqual(cliShapeOfStats(pair!.http));
    expect(pair!.cli).toMatchObject({ pagesFetched: idle.pagesFetched, queued: 0, inFlight: 0, frontierNodes: 2, fetchNodes: 2 });

    // Nodes at idle: everything but the heartbeat times and the replicas' snapshot counts is still (frontier
    // nodes snapshot their partitions on an interval, crawling or not); crawlctl's heartbeat times lie between
    // those the admin API showed just before and just after it.
    const httpBefore = (await c.nodes()).map(cliShapeOfNode);
    const cliNodes = await c.crawlctlJson<CliNode[]>(["nodes"]);
    const httpNodes = (await c.nodes()).map(cliShapeOfNode);
    const still = (nodes: CliNode[]) =>
      nodes.map(({ lastHeartbeatMs: _, counters, ...rest }) => ({
        ...rest,
        counters: Object.fromEntries(Object.entries(counters).filter(([name]) => !name.startsWith("replication.snapshot"))),
      }));
    expect(still(cliNodes)).toEqual(still(httpNodes));
    for (const [i, n] of cliNodes.entries()) {
      const within = n.lastHeartbeatMs >= httpBefore[i]!.lastHeartbeatMs && n.lastHeartbeatMs <= httpNodes[i]!.lastHeartbeatMs;
      expect({ node: n.id, within }).toEqual({ node: n.id, within: true });
    }
    expect(cliNodes.map((n) => n.id)).toEqual(["coordinator-1", "fetch-1", "fetch-2", "frontier-1", "frontier-2"]);

    const cliRing = await c.crawlctlJson<CliRing>(["ring"]);
    const httpRing = await c.ring();
    expect(cliRing).toEqual(cliShapeOfRing(httpRing));
    expect(new Set(httpRing.regions[REGION]!.owners)).toEqual(new Set(["frontier-1", "frontier-2"]));
  }, 120_000);

  test("every listing of the nodes names each node once", async () => {
    const web = await cluster.web({ hosts: 1 });
    const c = await cluster.up({ web });
    // Node records are rewritten every heartbeat (500 ms here); a listing taken while one is rewritten
    // must still name that node once.
    const seen: string[][] = [];
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const ids = (await c.nodes()).map((n) => n.id);
      if (new Set(ids).size !== ids.length) seen.push(ids);
      await Bun.sleep(20);
    }
    for (let i = 0; i < 10; i++) {
      const ids = (await c.crawlctlJson<CliNode[]>(["nodes"])).map((n) => n.id);
      if (new Set(ids).size !== ids.length) seen.push(ids);
    }
    expect(seen).toEqual([]);
  }, 60_000);
});

/**
 * A frontier node killed with SIGKILL and never started again: once its heartbeat is older than the
 * death timeout, `crawlctl nodes` (and `/v1/nodes`) show it as dead and holding no partitions, even though
 * its last record listed some, and the ring gives its partitions to the node that is left.
 */
import { describe, expect, test } from "bun:test";
import { NodeState } from "../../../proto/gen/crawler/coordinator/v1/coordinator.ts";
import { useCluster, waitUntil, REGION } from "./harness.ts";

const cluster = useCluster();

interface NodeJson {
  id: string;
  state: NodeState;
  partitions: number[];
}

describe("cluster: a dead node", () => {
  test("crawlctl nodes shows a killed frontier node as dead, with no partitions", async () => {
    const web = await cluster.web({ hosts: 2 });
    const roles = await cluster.roles({
      web,
      frontiers: ["frontier-1", "frontier-2"],
      fetchers: ["fetch-1"],
      coordinatorArgs: ["--death-timeout", "3s"],
    });
    const c = roles.coordinator;
    // A node's record lists the partitions it serves (restored and claimed), a heartbeat behind the ring.
    let before: NodeJson[] = [];
    await waitUntil(
      async () => {
        before = await c.crawlctlJson<NodeJson[]>(["nodes"]);
        const victimBefore = before.find((n) => n.id === "frontier-2");
        return victimBefore?.state === NodeState.NODE_STATE_ACTIVE && victimBefore.partitions.length > 0;
      },
      { timeoutMs: 30_000, what: "frontier-2 to be shown active, serving partitions", detail: () => JSON.stringify(before) },
    );

    const victim = roles.frontiers.get("frontier-2")!;
    victim.signal("SIGKILL");
    await victim.waitExit(10_000);
    let nodes: NodeJson[] = [];
    await waitUntil(
      async () => {
        nodes = await c.crawlctlJson<NodeJson[]>(["nodes"]);
        return nodes.find((n) => n.id === "frontier-2")?.state === NodeState.NODE_STATE_DEAD;
      },
      { timeoutMs: 30_000, what: "frontier-2 to be shown dead", detail: () => JSON.stringify(nodes) },
    );
    expect(nodes.find((n) => n.id === "frontier-2")!.partitions).toEqual([]);
    expect((await c.nodes()).find((n) => n.id === "frontier-2")).toMatchObject({ state: "dead", partitions: [] });

    // The table says so too: dead, and "-" where a live frontier node lists its partitions.
    const table = await c.crawlctl(["nodes"]);
    expect(table.code).toBe(0);
    const row = table.stdout.split("\n").find((l) => l.startsWith("frontier-2"))!;
    expect(row.split(/\s{2,}/).slice(0, 6)).toEqual(["frontier-2", "frontier", REGION, "bun", "dead", "-"]);

    // Its partitions went to the node that is left.
    await waitUntil(async () => (await c.ring()).regions[REGION]!.owners.every((o) => o === "frontier-1"), {
      timeoutMs: 30_000,
      what: "frontier-1 to own every partition",
    });
    const survivor = (await c.crawlctlJson<NodeJson[]>(["nodes"])).find((n) => n.id === "frontier-1")!;
    await waitUntil(
      async () => (await c.crawlctlJson<NodeJson[]>(["nodes"])).find((n) => n.id === "frontier-1")!.partitions.length === 64,
      {
        timeoutMs: 30_000,
        what: "frontier-1 to serve every partition",
        detail: () => JSON.stringify(survivor),
      },
    );
  }, 120_000);
});

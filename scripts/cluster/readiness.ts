/**
 * When a local cluster is ready for its operator, asked through the admin API (the leader answers):
 *
 *  - a coordinator holds the lease and has a ring (`/readyz` of one of them);
 *  - every process of the plan that registers (coordinators, frontier nodes, fetch nodes) is live in
 *    `/v1/nodes`, by id, in its region;
 *  - the ring is settled on exactly the planned frontier nodes: in each region every partition has one
 *    of that region's frontier nodes as owner, no handoff is pending, every frontier node owns some (when
 *    there are enough partitions), and each serves what the ring gives it (its record's partitions);
 *  - the totals (`/v1/stats`: read again once a node has joined or left, else at most a second old) count
 *    every frontier and fetch node.
 *
 * Only then does DIR/cluster.json appear, so a script that waits for the file finds a cluster in which
 * every node has joined and the ring gives each its share.
 */
import { AdminClient } from "../../adapters/http/index.ts";
import type { ProcessPlan } from "./plan.ts";

interface NodeView {
  id: string;
  role: string;
  region: string;
  state: string;
  partitions: number[];
}

interface RingView {
  partitions: number;
  regions: Record<string, { owners: string[]; previous: string[] }>;
}

export type Readiness = { ready: true } | { ready: false; why: string };

/** One look at the cluster: ready, or what it still waits for. */
export async function checkReady(admin: AdminClient, plans: readonly ProcessPlan[]): Promise<Readiness> {
  // Each coordinator's own /readyz: only the leader's says ready (a standby's says not-ready, unrefused).
  const leader = await Promise.all(
    admin.baseUrls.map((base) =>
      fetch(`${base}/readyz`, { ...admin.tlsInit(), signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.ok,
        () => false,
      ),
    ),
  );
  if (!leader.includes(true)) return { ready: false, why: "no coordinator holds the lease with a ring yet" };
  const nodes = (await admin.json<{ nodes: NodeView[] }>("/v1/nodes")).nodes;
  const registered = plans.filter((p) => p.role === "coordinator" || p.role === "frontier" || p.role === "fetch");
  const missing = registered.filter((p) => !nodes.some((n) => n.id === p.id && n.state === "live" && n.region === p.region));
  if (missing.length > 0) return { ready: false, why: `not joined yet: ${missing.map((p) => p.id).join(", ")}` };

  const ring = await admin.json<RingView>("/v1/ring");
  for (const region of new Set(registered.filter((p) => p.role === "frontier").map((p) => p.region))) {
    const planned = registered.filter((p) => p.role === "frontier" && p.region === region).map((p) => p.id);
    const assignment = ring.regions[region];
    if (!assignment) return { ready: false, why: `the ring has no region ${region} yet` };
    if (assignment.previous.some(Boolean)) return { ready: false, why: `handoffs pending in ${region}` };
    const strangers = [...new Set(assignment.owners.filter((o) => !planned.includes(o)))];
    if (strangers.length > 0) return { ready: false, why: `${region}'s ring still names ${strangers.join(", ") || "no owner"}` };
    for (const id of planned) {
      const share = assignment.owners.flatMap((o, p) => (o === id ? [p] : []));
      if (share.length === 0 && ring.partitions >= planned.length) return { ready: false, why: `${id} owns no partition yet` };
      const serving = nodes.find((n) => n.id === id)?.partitions ?? [];
      if (!sameSet(share, serving)) return { ready: false, why: `${id} serves ${serving.length} of its ${share.length} partitions` };
    }
  }

  const totals = await admin.json<{ frontierNodes: number; fetchNodes: number }>("/v1/stats");
  const frontiers = registered.filter((p) => p.role === "frontier").length;
  const fetchers = registered.filter((p) => p.role === "fetch").length;
  if (totals.frontierNodes !== frontiers || totals.fetchNodes !== fetchers) {
    return {
      ready: false,
      why: `the totals count ${totals.frontierNodes}/${frontiers} frontier and ${totals.fetchNodes}/${fetchers} fetch nodes`,
    };
  }
  return { ready: true };
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((x) => set.has(x));
}

/**
 * What the coordinator's two edges (gRPC CoordinatorService and the Hono admin API) are built on. Both
 * take the same object, so they read the same membership, the same totals (`ClusterStats.read`; the admin
 * API's dashboard reads `ClusterDashboard`), and route
 * host questions the same way; neither holds state of its own. `drainNode` is the one operation that
 * spans two parts (the record and the node itself), so it lives here.
 */
import type { NodeRecord, RegionRules } from "../core/cluster/index.ts";
import type { ClusterState, PageFeed } from "../core/ports/index.ts";
import { NotLeaderError } from "../core/errors/index.ts";
import { errorFields, type Log } from "../kit/log/index.ts";
import type { Member, Membership } from "./membership.ts";
import type { Routing } from "./routing.ts";
import type { SeedPublisher } from "./seeds.ts";
import type { JobService } from "./jobs.ts";
import type { ClusterDashboard } from "./dashboard.ts";
import type { ClusterStats } from "./stats.ts";

export interface CoordinatorServices {
  nodeId: string;
  state: ClusterState;
  membership: Membership;
  stats: ClusterStats;
  /** The dashboard's data (admin API `/v1/dashboard`). */
  dashboard: ClusterDashboard;
  seeds: SeedPublisher;
  /** Crawl jobs: the registry in the cluster state and their counters (jobs.ts). */
  jobs: JobService;
  /** The feed of fetched pages (core/feed), read by `GET /v1/jobs/{id}/pages`. */
  feed: PageFeed;
  routing: Routing;
  rules: RegionRules;
  /** Readiness: true while this coordinator holds the lease and a ring exists. */
  ready: () => boolean;
  /** Whether this coordinator held the lease at its last tick: only then does it serve the APIs. */
  isLeader: () => boolean;
  log: Log;
}

/**
 * Refuses a call on a standby with NotLeaderError, before anything is read or done, naming the leader
 * when its record says who it is (gauge `leader` 1) and where its APIs are. Clients that know several
 * coordinators ask the next one (adapters/grpc's CoordinatorLeaderClient, adapters/http's AdminClient).
 * Only the leader serves: it alone writes the ring and remembers drains, and its totals are the ones
 * whose rate window is full, so every client sees one coordinator's answers.
 */
export async function requireLeader(services: Pick<CoordinatorServices, "isLeader" | "membership" | "nodeId">): Promise<void> {
  if (services.isLeader()) return;
  let leader: NodeRecord | undefined;
  try {
    leader = (await services.membership.view()).members.find(
      (m) => m.record.role === "coordinator" && m.state === "live" && m.record.gauges?.["leader"] === 1 && m.record.id !== services.nodeId,
    )?.record;
  } catch {
    // The refusal matters, not the hint.
  }
  const where = leader
    ? `the leader is ${leader.id}${leader.grpcAddress ? ` (gRPC ${leader.grpcAddress}, admin API ${leader.httpAddress})` : ""}`
    : "no coordinator holds the lease right now (one takes it within the lease TTL)";
  throw new NotLeaderError(
    `coordinator ${services.nodeId} is a standby, not the leader; ${where}; ask another coordinator`,
    leader?.id ?? "",
  );
}

/**
 * Drains a node: marks it draining (Membership.drain: its record and the coordinator's memory, so the next
 * rebalance moves its partitions away with a handoff) and, for a frontier node, tells it at once with
 * FrontierService.Drain so it stops dispatching without waiting to notice its record. The call to the node
 * is best effort: the record is the durable signal, and a node that cannot be reached is logged, not failed.
 */
export async function drainNode(services: Pick<CoordinatorServices, "membership" | "routing" | "log">, nodeId: string): Promise<Member> {
  const member = await services.membership.drain(nodeId);
  if (member.record.role === "frontier" && member.record.grpcAddress) {
    try {
      await services.routing.drainFrontier(member.record);
    } catch (error) {
      services.log.warn("drain: the node did not take the Drain call; it will see its record", errorFields(error, { nodeId }));
    }
  }
  return member;
}

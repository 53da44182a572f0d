/**
 * The coordinator role: membership and death detection (membership.ts), the ring kept in step by the
 * lease holder (rebalancer.ts), seeds (seeds.ts), cluster totals (stats.ts), routing of host and URL
 * questions to their frontier node (routing.ts), and its two edges, gRPC CoordinatorService
 * (grpc-service.ts) and the Hono admin API (admin-api.ts, admin-openapi.ts). `main.ts` composes them.
 */
export { adminApp, clusterMetrics, type AdminApiOptions } from "./admin-api.ts";
export { ADMIN_OPENAPI } from "./admin-openapi.ts";
export {
  COORDINATOR_FIELDS,
  CoordinatorConfigError,
  coordinatorUsage,
  randomToken,
  resolveCoordinatorConfig,
  type CoordinatorConfig,
  type ResolvedConfig,
} from "./config.ts";
export { coordinatorGrpcService, nodeInfo, ringResponse, statusResponse, type GrpcServiceOptions } from "./grpc-service.ts";
export { jsonLog, silentLog, type Log } from "../adapters/log/index.ts";
export { classifyNode, Membership, type Member, type MemberState, type MembershipView } from "./membership.ts";
export { COORDINATOR_LEASE, Rebalancer, sameRing, type RebalancerOptions, type TickOutcome } from "./rebalancer.ts";
export { parseHost, Routing, type FrontierPeer, type FrontierPeerFactory, type HostAddress } from "./routing.ts";
export { SeedPublisher, type SeedOutcome } from "./seeds.ts";
export { drainNode, type CoordinatorServices } from "./services.ts";
export { ClusterStats, type ClusterTotals } from "./stats.ts";
export { every, type Ticker } from "./ticker.ts";

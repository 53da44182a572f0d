/**
 * The frontier node role around the Frontier (../frontier): configuration, membership, ring following and
 * partition handoff, the dispatch loop and the FrontierService gRPC API. `main.ts` one level up is the
 * process's composition root; tests start nodes in-process with `FrontierNode.start` over in-memory ports.
 */
export { FrontierNode, type FrontierNodeOptions } from "./frontier-node.ts";
export {
  FRONTIER_NODE_FIELDS,
  FrontierNodeConfigError,
  frontierNodeUsage,
  generateNodeId,
  resolveFrontierNodeConfig,
  type FrontierNodeConfig,
  type ResolvedFrontierNodeConfig,
} from "./config.ts";
export { frontierService, hostArgument, type FrontierServiceDeps } from "./grpc-service.ts";
export type { HandoffOutcome, HandoffPeer } from "./handoff-sender.ts";
export { jsonLog, silentLog, type Log } from "../../adapters/log/index.ts";

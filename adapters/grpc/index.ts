/**
 * The gRPC edge, the only place that imports @grpc/grpc-js: starting servers (`startGrpcServer`, with
 * `unary` to write handlers as async functions), promise facades over the generated clients
 * (`FrontierClient`, `CoordinatorClient`, and `CoordinatorLeaderClient` over a leader and its standbys), and
 * the mapping between the project's errors and gRPC statuses. TLS for both ends, mutual between nodes with
 * the callers' roles checked (tls.ts). The error classes themselves live in core/errors, so HTTP edges and
 * services share them.
 */
export { startGrpcServer, unary, type GrpcServerOptions, type GrpcServiceBinding, type RunningGrpcServer } from "./server.ts";
export type { ClientTls, RefusedCall, ServerTls } from "./tls.ts";
export { CoordinatorClient, FrontierClient, DEFAULT_DEADLINE_MS, type CallOptions, type ClientOptions } from "./clients.ts";
export { CoordinatorLeaderClient, DEFAULT_FAILOVER_MS, type LeaderClientOptions } from "./leader-client.ts";
export { fromGrpcError, logInternalToStderr, toGrpcError, type InternalErrorLog } from "./status-mapping.ts";

/**
 * Starting and stopping a grpc-js server, and the one adapter every service handler goes through. A
 * handler is written as `async (request, call) => response`; `unary` runs it and maps what it throws to a
 * status with `toGrpcError`, so service code throws the project's errors and never builds gRPC statuses.
 * Every server also serves the standard health and reflection services (standard-services.ts); its owner
 * sets the health statuses through `health`.
 * A server is plain text unless given `tls` (tls.ts): TLS, and with `tls.clientRoles` mutual TLS in which
 * only callers whose certificate names one of those roles reach the server's own services.
 */
import {
  Server,
  type handleUnaryCall,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { HealthStatuses } from "./health.ts";
import { serviceNameOf } from "./reflection.ts";
import { standardServices } from "./standard-services.ts";
import { callerRoleInterceptor, serverCredentials, type RefusedCall, type ServerTls } from "./tls.ts";
import { logInternalToStderr, toGrpcError, type InternalErrorLog } from "./status-mapping.ts";
import { formatHostPort, parseHostPort } from "../../core/net/index.ts";

/** A generated service definition (e.g. `CoordinatorServiceService`) and its implementation. */
export interface GrpcServiceBinding {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface RunningGrpcServer {
  /** The bound port (the real one when asked for port 0). */
  readonly port: number;
  /** `host:port` with the bound port, for clients and node records. */
  readonly address: string;
  /** The health statuses this server reports (all NOT_SERVING until the owner sets them). */
  readonly health: HealthStatuses;
  /** Turns every health status NOT_SERVING, stops accepting calls, lets running calls finish for up to `graceMs`, then cancels the rest. */
  close(graceMs?: number): Promise<void>;
}

export interface GrpcServerOptions {
  /** TLS (and with `clientRoles`, mutual TLS with the callers' roles checked); absent: plain text. */
  tls?: ServerTls;
  /** Hears every call refused for its caller's certificate (with `tls.clientRoles`). */
  onRefused?: (refused: RefusedCall) => void;
}

/**
 * Binds `services` on `address` (`127.0.0.1:0` picks a free port) and starts serving. Rejects when the
 * address cannot be bound. The caller owns the result and must `close()` it.
 */
export async function startGrpcServer(
  services: readonly GrpcServiceBinding[],
  address: string,
  opts: GrpcServerOptions = {},
): Promise<RunningGrpcServer> {
  const roles = opts.tls?.clientRoles;
  const guarded = services.map((s) => serviceNameOf(s.definition)).filter((n): n is string => n !== undefined);
  const server = new Server(roles ? { interceptors: [callerRoleInterceptor(guarded, roles, opts.onRefused ?? (() => {}))] } : {});
  const standard = standardServices(services);
  for (const s of [...services, ...standard.bindings]) server.addService(s.definition, s.implementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, serverCredentials(opts.tls), (error, bound) => (error ? reject(error) : resolve(bound)));
  }).catch((error: unknown) => {
    server.forceShutdown();
    throw new Error(`cannot bind gRPC server on ${address}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  // The bound address as host:port with the port chosen (`127.0.0.1:0` becomes `127.0.0.1:40123`).
  const host = parseHostPort(address)?.host ?? address;
  let closing: Promise<void> | undefined;
  return {
    port,
    address: formatHostPort(host, port),
    health: standard.health,
    close(graceMs = 2_000) {
      closing ??= new Promise<void>((resolve) => {
        standard.stop();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return closing;
    },
  };
}

/**
 * A grpc-js unary handler from an async function. What the function throws is sent as a status by
 * `toGrpcError`; errors that are not ApiErrors are logged with `log` and sent as INTERNAL.
 */
export function unary<Req, Res>(
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
  log: InternalErrorLog = logInternalToStderr,
): handleUnaryCall<Req, Res> {
  return function unaryCall(call, callback) {
    let pending: Promise<Res>;
    try {
      pending = handler(call.request, call);
    } catch (error) {
      callback(toGrpcError(error, log));
      return;
    }
    pending.then(
      (response) => callback(null, response),
      (error: unknown) => callback(toGrpcError(error, log)),
    );
  };
}

/**
 * The standard gRPC health service (`grpc.health.v1.Health`) that load balancers, Kubernetes gRPC probes
 * and grpcurl ask. `HealthStatuses` holds one status per service name the server answers for, plus "" for
 * the server as a whole; the process that owns the server decides when it is SERVING (a frontier node once
 * its partitions are settled, the coordinator while it leads) and sets it. Every name starts NOT_SERVING,
 * so a server is never reported ready before its owner says so.
 *
 * Check answers the current status, NOT_FOUND for a name it does not know. Watch sends the current status
 * (SERVICE_UNKNOWN for an unknown name) and then one message per change, until the client cancels or the
 * server stops. On stop every name turns NOT_SERVING first (watchers see it), later changes are ignored,
 * and the Watch streams are ended so a graceful shutdown does not wait for them.
 */
import { status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream } from "@grpc/grpc-js";
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthService,
  type HealthCheckRequest,
  type HealthCheckResponse,
} from "../../proto/gen/grpc/health/v1/health.ts";
import type { GrpcServiceBinding } from "./server.ts";

type Listener = (status: ServingStatus) => void;

export class HealthStatuses {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly streams = new Set<ServerWritableStream<HealthCheckRequest, HealthCheckResponse>>();
  private stopped = false;

  /** `services`: the fully qualified names the server serves; "" is always added. */
  constructor(services: readonly string[]) {
    for (const name of ["", ...services]) this.statuses.set(name, ServingStatus.NOT_SERVING);
  }

  /** Sets one name's status, or every name's when `service` is undefined. Ignored after `stop()`. */
  set(serving: boolean, service?: string): void {
    if (this.stopped) return;
    const next = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    for (const name of service === undefined ? [...this.statuses.keys()] : [service]) this.update(name, next);
  }

  /** The status of `service`, undefined when the server does not answer for it. */
  get(service: string): ServingStatus | undefined {
    return this.statuses.get(service);
  }

  /** Every name NOT_SERVING, told to watchers, then the Watch streams ended. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    for (const name of this.statuses.keys()) this.update(name, ServingStatus.NOT_SERVING);
    this.stopped = true;
    for (const call of this.streams) call.end();
    this.streams.clear();
  }

  /** The service binding that answers Check and Watch from these statuses. */
  binding(): GrpcServiceBinding {
    return {
      definition: HealthService,
      implementation: {
        check: (call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: sendUnaryData<HealthCheckResponse>) => {
          const current = this.get(call.request.service);
          if (current === undefined) callback({ code: status.NOT_FOUND, details: `unknown service: ${call.request.service}` });
          else callback(null, { status: current });
        },
        watch: (call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) => this.watch(call),
      },
    };
  }

  private watch(call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>): void {
    const name = call.request.service;
    if (this.stopped) {
      call.write({ status: this.get(name) ?? ServingStatus.SERVICE_UNKNOWN });
      call.end();
      return;
    }
    let last = this.get(name) ?? ServingStatus.SERVICE_UNKNOWN;
    call.write({ status: last });
    const listener: Listener = (next) => {
      if (next === last) return;
      last = next;
      call.write({ status: next });
    };
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener);
    this.streams.add(call);
    const forget = () => {
      set.delete(listener);
      this.streams.delete(call);
    };
    call.on("cancelled", forget);
    call.on("close", forget);
    call.on("error", forget);
  }

  private update(name: string, next: ServingStatus): void {
    if (this.statuses.get(name) === next) return;
    this.statuses.set(name, next);
    for (const listener of this.listeners.get(name) ?? []) listener(next);
  }
}

/**
 * The services every gRPC server of the cluster serves beside its own, so operators' tools work without
 * our .proto files: health (`grpc.health.v1.Health`, one status per service name, set by the process that
 * owns the server) and reflection (`grpc.reflection.v1` and `v1alpha`). `startGrpcServer` adds them; the
 * owner gets the health statuses to set, and `stop()` ends the long-lived streams (Watch, reflection) so a
 * graceful shutdown does not wait on them.
 */
import { HealthStatuses } from "./health.ts";
import { DescriptorIndex, reflectionBindings, serviceNameOf } from "./reflection.ts";
import type { GrpcServiceBinding } from "./server.ts";

const HEALTH_SERVICE = "grpc.health.v1.Health";

export interface StandardServices {
  bindings: GrpcServiceBinding[];
  health: HealthStatuses;
  /** Every status NOT_SERVING (watchers are told), then the Watch and reflection streams ended. */
  stop(): void;
}

/** Health and reflection for a server that registers `services`. Reads proto/gen/descriptors.binpb. */
export function standardServices(services: readonly GrpcServiceBinding[]): StandardServices {
  const names = services.map((s) => serviceNameOf(s.definition)).filter((n): n is string => n !== undefined);
  const health = new HealthStatuses(names);
  const streams = new Set<{ end(): void }>();
  const reflection = reflectionBindings(DescriptorIndex.load(), [...names, HEALTH_SERVICE], streams);
  return {
    bindings: [health.binding(), ...reflection],
    health,
    stop() {
      health.stop();
      for (const call of streams) call.end();
      streams.clear();
    },
  };
}

/**
 * The one way the crawler connects to NATS: @nats-io/transport-node's `connect`, which runs on Bun and on
 * Deno alike (the Deno transport's registry is unreachable here). A crawler node never gives up on NATS:
 * it reconnects forever, and its loops back off while the connection is down.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { connect, type NodeConnectionOptions } from "@nats-io/transport-node";

export type { NatsConnection };

/**
 * Connects to `servers` (one URL or several of the same region) under the client name `name`, which is
 * what `nats-server`'s monitoring shows for this connection. `overrides` replace any default.
 */
export function connectNats(
  servers: string | string[],
  name: string,
  overrides: Partial<NodeConnectionOptions> = {},
): Promise<NatsConnection> {
  return connect({
    servers,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: false,
    ...overrides,
  });
}

/**
 * The one way the crawler connects to NATS: @nats-io/transport-node's `connect`, which runs on Bun and on
 * Deno alike (the Deno transport's registry is unreachable here). A crawler node never gives up on NATS:
 * it reconnects forever, and its loops back off while the connection is down. With `access` it logs in as
 * its role's user and, given the servers' CA, speaks TLS only. A first connection the server refuses
 * (wrong user or password, a certificate that does not verify, TLS on one side only) fails with an error
 * that says which of these it was.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { connect, type NodeConnectionOptions } from "@nats-io/transport-node";

export type { NatsConnection };

/** A role's way in: its user and password, and the CA of the servers (TLS required when given). */
export interface NatsAccess {
  readonly user?: string;
  readonly password?: string;
  readonly caPem?: string;
}

/**
 * Connects to `servers` (one URL or several of the same region) under the client name `name`, which is
 * what `nats-server`'s monitoring shows for this connection. `overrides` replace any default.
 */
export async function connectNats(
  servers: string | string[],
  name: string,
  overrides: Partial<NodeConnectionOptions> = {},
  access: NatsAccess = {},
): Promise<NatsConnection> {
  const withAccess: Partial<NodeConnectionOptions> = {
    ...(access.user ? { user: access.user, pass: access.password ?? "" } : {}),
    ...(access.caPem ? { tls: { ca: access.caPem } } : {}),
  };
  try {
    return await connect({
      servers,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      waitOnFirstConnect: false,
      ...withAccess,
      ...overrides,
    });
  } catch (error) {
    throw new Error(explain(error, access), { cause: error });
  }
}

/** What a refused first connection means, in words an operator can act on. */
function explain(error: unknown, access: NatsAccess): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/authorization violation|authentication/i.test(message)) {
    return access.user
      ? `NATS refused user "${access.user}" (${message}): check the user and password (CRAWL_NATS_USER, CRAWL_NATS_PASSWORD)`
      : `NATS wants a user and password (${message}): give CRAWL_NATS_USER and CRAWL_NATS_PASSWORD`;
  }
  if (/certificate|self.signed|unable to verify|unknown ca|handshake/i.test(message))
    return `NATS server's TLS certificate was not accepted (${message}): check CRAWL_NATS_TLS_CA_FILE, the CA that signed it`;
  if (/tls/i.test(message))
    return access.caPem
      ? `TLS to NATS failed (${message}): the server must have TLS on, or give no CRAWL_NATS_TLS_CA_FILE`
      : `NATS requires TLS (${message}): give CRAWL_NATS_TLS_CA_FILE, the CA that signs its certificate`;
  return message;
}

/**
 * The one way the crawler connects to NATS: @nats-io/transport-node's `connect`, which runs on Bun and on
 * Deno alike (the Deno transport's registry is unreachable here). A crawler node never gives up on NATS:
 *
 *  - it reconnects forever (`maxReconnectAttempts: -1`), half a second apart plus up to half a second of
 *    jitter, so a fleet's nodes do not all knock at a restarted server at the same instant; given several
 *    URLs (a region's cluster) it tries the next server, and learns the cluster's other servers from it;
 *  - a connection that stops answering (a server that hangs, a network that drops packets without a
 *    reset) is noticed within `pingIntervalMs` x 3 (default 15 s) and reconnected, instead of nats.js's
 *    default of 4 minutes;
 *  - nothing is buffered across an outage: nats.js discards what was written while disconnected when it
 *    dials again, so every publish of the crawler resolves on the server's ack or rejects, and the callers
 *    keep what failed and publish it again (fetch-node/result-outbox.ts, the dispatcher, LinkBatcher).
 *
 * With `access` it logs in as its role's user and, given the servers' CA, speaks TLS only. A first
 * connection the server refuses (wrong user or password, a certificate that does not verify, TLS on one
 * side only) fails with an error that says which of these it was.
 *
 * `watchNatsConnection` logs each outage once when it starts and once when it ends (with its length) and
 * says whether the connection is up, for /readyz.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { connect, type NodeConnectionOptions } from "@nats-io/transport-node";
import { errorFields } from "../../core/errors/index.ts";
import type { Log } from "../../core/ports/index.ts";

export type { NatsConnection };

/** A role's way in: its user and password, and the CA of the servers (TLS required when given). */
export interface NatsAccess {
  readonly user?: string;
  readonly password?: string;
  readonly caPem?: string;
}

/** Between two reconnect attempts to one server; jitter adds up to as much again. */
const RECONNECT_WAIT_MS = 500;
const RECONNECT_JITTER_MS = 500;
/** A PING this often; three unanswered mean the connection is dead. */
const PING_INTERVAL_MS = 5_000;
const MAX_PINGS_OUT = 3;
/** How long one connection attempt (TCP and the NATS handshake) may take. */
const CONNECT_TIMEOUT_MS = 5_000;

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
      reconnectTimeWait: RECONNECT_WAIT_MS,
      reconnectJitter: RECONNECT_JITTER_MS,
      pingInterval: PING_INTERVAL_MS,
      maxPingOut: MAX_PINGS_OUT,
      timeout: CONNECT_TIMEOUT_MS,
      waitOnFirstConnect: false,
      // No stack captured per request and per request timer: nats.js otherwise makes an Error for each
      // (every JetStream publish is a request), a cost paid on every message for a trace read only when
      // one fails; our errors say what failed in their message.
      noAsyncTraces: true,
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

/**
 * Logs `nc`'s outages (one warning when the connection drops, naming the server; one line when it is back,
 * naming the server and how long it was down; a stale connection and server errors as they come) and
 * returns whether it is connected now. Ends when the connection is closed.
 */
export function watchNatsConnection(nc: NatsConnection, log: Log, now: () => number = Date.now): () => boolean {
  let up = true;
  let downSince = 0;
  void (async () => {
    for await (const s of nc.status()) {
      switch (s.type) {
        case "disconnect":
          if (!up) break;
          up = false;
          downSince = now();
          log.warn("NATS connection lost; reconnecting (publishes fail and are retried, nothing is acked meanwhile)", { server: s.server });
          break;
        case "reconnect":
          up = true;
          log.info("NATS connection back", { server: s.server, downMs: now() - downSince });
          break;
        case "staleConnection":
          log.warn("NATS connection stopped answering pings; reconnecting");
          break;
        case "error":
          log.warn("NATS server reported an error", errorFields(s.error));
          break;
      }
    }
  })().catch((error: unknown) => log.warn("watching the NATS connection failed", errorFields(error)));
  return () => up && !nc.isClosed();
}

/**
 * Builds the undici dispatcher the fetcher sends through: an Agent whose connections go through the
 * safe connector, or, with a proxy, plain-HTTP targets on shared connections to the proxy and https ones
 * through a ProxyAgent's CONNECT tunnels (forward-proxy.ts). The Agent and the tunnels keep one pool per
 * target origin limited to `connectionsPerOrigin` (politeness: one connection per host by default) with
 * keep-alive, and idle connections close after `keepAliveTimeoutMs`, which a server's
 * Keep-Alive hint may shorten but never lengthen. HTTP/2 is not negotiated: one connection per host
 * already rules out its multiplexing gain, the WARC records want HTTP/1.1 messages, and undici's
 * HTTP/2 path rests on `node:http2`, whose behaviour on Bun and Deno this project has not measured.
 */
import type { AddressPolicy } from "../../../core/net/index.ts";
import { createSafeConnector } from "./connector.ts";
import type { DnsCache } from "./dns-cache.ts";
import { ForwardProxyDispatcher } from "./forward-proxy.ts";
import { resettingConnector } from "./reset-on-abort.ts";
import { Agent, buildConnector, Client, Pool, ProxyAgent } from "./undici.ts";
import type { Dispatcher } from "./undici.ts";

export interface DispatcherOptions {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  connectionsPerOrigin: number;
  keepAliveTimeoutMs: number;
  proxyUrl?: string;
  /** Connections to the proxy at most for plain-HTTP targets, which share them (the requests in flight at most). */
  proxyConnections: number;
  /** Used only without a proxy. */
  dns: DnsCache;
  /** Judges resolved addresses at connect time; used only without a proxy (the proxy resolves names). */
  addressPolicy: AddressPolicy;
  onConnected: (origin: string, address: string) => void;
}

/** Past the response deadline, plus a pause of the process as long again (deadline.ts gives that much back), plus a minute. */
function backstopMs(responseTimeoutMs: number): number {
  return 2 * responseTimeoutMs + 60_000;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const perConnection = {
    allowH2: false,
    pipelining: 1,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    keepAliveMaxTimeout: options.keepAliveTimeoutMs,
    // The fetcher's own deadline is exact and ends every request; these are only backstops, set well
    // after it so they never decide the outcome: undici's timers are coarse, and they count time the
    // process was stopped, which the deadline gives back to the host (deadline.ts).
    headersTimeout: backstopMs(options.responseTimeoutMs),
    bodyTimeout: backstopMs(options.responseTimeoutMs),
  };

  if (options.proxyUrl) {
    const tunnels = new ProxyAgent({
      uri: options.proxyUrl,
      ...perConnection,
      connectTimeout: options.connectTimeoutMs,
      connections: options.connectionsPerOrigin,
      // ProxyAgent creates one pool per target origin for forwarded http requests but passes it
      // only `{ connect }`, so without this factory the per-origin limit and timeouts would be lost.
      factory: (origin, factoryOptions) => perOriginPool(origin, { ...factoryOptions, ...perConnection }, options.connectionsPerOrigin),
    });
    // Plain-HTTP targets share the proxy connections (forward-proxy.ts); https ones tunnel through the agent.
    // A request given up on resets its connection, so it cannot reach the proxy later (reset-on-abort.ts).
    return new ForwardProxyDispatcher({
      proxyUrl: options.proxyUrl,
      connections: options.proxyConnections,
      perOrigin: options.connectionsPerOrigin,
      connection: { ...perConnection, connect: resettingConnector(buildConnector({ timeout: options.connectTimeoutMs, allowH2: false })) },
      tunnels,
    });
  }

  return new Agent({
    ...perConnection,
    connections: options.connectionsPerOrigin,
    connect: createSafeConnector({
      dns: options.dns,
      addressPolicy: options.addressPolicy,
      connectTimeoutMs: options.connectTimeoutMs,
      onConnected: options.onConnected,
    }),
  });
}

function perOriginPool(origin: string | URL, options: object, connections: number): Dispatcher {
  return connections === 1 ? new Client(origin, options) : new Pool(origin, { ...options, connections });
}

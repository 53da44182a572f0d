/**
 * The safe connector: how undici opens every direct (non-proxied) connection. It resolves the host
 * through the DNS cache, drops addresses the address policy (core/net) refuses, and hands undici's own
 * connector the chosen IP literal, so the socket goes to exactly the address that was checked. No
 * second lookup happens anywhere (no DNS-rebinding gap), and nothing relies on `net.connect`'s
 * `lookup` hook, whose support differs across Bun versions. For https the original name is kept as
 * SNI servername, so certificates are still verified against the name, not the IP.
 */
import { isIP } from "node:net";
import type { AddressPolicy } from "../../../core/net/index.ts";
import type { DnsCache } from "./dns-cache.ts";
import { BlockedAddressError, DnsLookupError } from "./errors.ts";
import { buildConnector } from "./undici.ts";

export type Connector = buildConnector.connector;
export type ConnectOptions = buildConnector.Options;

export interface SafeConnectorOptions {
  dns: DnsCache;
  /** Judges every address the name resolves to (and a literal host). */
  addressPolicy: AddressPolicy;
  /** Bounds the name lookup and, separately, the TCP/TLS handshake. */
  connectTimeoutMs: number;
  /** Told the address each new connection went to, keyed by origin (for `remoteAddress`). */
  onConnected?: (origin: string, address: string) => void;
  /** The connector that dials the checked IP; undici's own by default. Injectable for tests. */
  dial?: Connector;
}

export function createSafeConnector(options: SafeConnectorOptions): Connector {
  const { dns, addressPolicy, connectTimeoutMs, onConnected } = options;
  // allowH2 false: see dispatcher.ts for why HTTP/2 is not negotiated.
  const dial = options.dial ?? buildConnector({ timeout: connectTimeoutMs, allowH2: false });

  return function safeConnect(connectOptions, callback) {
    const host = connectOptions.hostname;
    pickAddress(dns, host, addressPolicy, connectTimeoutMs).then(
      (address) => {
        // SNI (and certificate checks) use the name for https. For http the servername must stay
        // unset: given one that differs from an IP hostname, undici's connector would dial the
        // servername through a lookup hook instead of the IP we checked.
        const servername = connectOptions.protocol === "https:" && isIP(host) === 0 ? connectOptions.servername || host : undefined;
        dial({ ...connectOptions, hostname: address, servername }, (error, socket) => {
          if (error || !socket) return callback(error ?? new Error("connector returned no socket"), null);
          onConnected?.(`${connectOptions.protocol}//${connectOptions.host ?? host}`, address);
          callback(null, socket);
        });
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

/**
 * The first address of `host` the policy allows. An IP literal is judged as it is; a name is
 * resolved and its refused addresses skipped, so a name with one public and one private address
 * still connects, but only to the public one.
 */
export async function pickAddress(dns: DnsCache, host: string, policy: AddressPolicy, timeoutMs: number): Promise<string> {
  if (isIP(host) !== 0) {
    const refusal = policy.checkAddress(host);
    if (refusal) throw new BlockedAddressError(refusal);
    return host;
  }
  const addresses = await resolveWithin(dns, host, timeoutMs);
  let firstRefusal: BlockedAddressError | undefined;
  for (const { address } of addresses) {
    const refusal = policy.checkAddress(address, host);
    if (!refusal) return address;
    firstRefusal ??= new BlockedAddressError(refusal);
  }
  throw firstRefusal ?? new DnsLookupError(host, new Error("no addresses"));
}

async function resolveWithin(dns: DnsCache, host: string, timeoutMs: number) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    return await dns.resolve(host, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

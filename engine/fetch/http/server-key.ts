/**
 * Which server a request goes to, for the cap per server address (core/ports AddressGate). Without a proxy
 * the crawler resolves names itself, so the server is the address the connector will dial: the first one
 * of the name's addresses the address policy allows, from the same DNS cache (no second lookup). Through
 * a proxy the proxy resolves names and the address is never known here, so the server falls back to the
 * host's registrable domain (Public Suffix List): `a.blog.example` and `b.blog.example` share one cap,
 * as they most likely share one origin.
 */
import { registrableDomain } from "../../../core/scope/index.ts";
import type { AddressPolicy } from "../../../core/net/index.ts";
import { pickAddress } from "./connector.ts";
import type { DnsCache } from "./dns-cache.ts";

export interface ServerKeyOptions {
  proxied: boolean;
  dns: DnsCache;
  addressPolicy: AddressPolicy;
  connectTimeoutMs: number;
}

/**
 * `ip:<address>` or `domain:<registrable domain>`; undefined when the name does not resolve to an allowed
 * address (the request then fails at connect, as it would without the cap, and nothing is held).
 */
export async function serverKeyOf(url: URL, opts: ServerKeyOptions): Promise<string | undefined> {
  if (opts.proxied) return `domain:${registrableDomain(url.hostname)}`;
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  try {
    return `ip:${await pickAddress(opts.dns, hostname, opts.addressPolicy, opts.connectTimeoutMs)}`;
  } catch {
    return undefined;
  }
}

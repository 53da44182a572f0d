/**
 * The politeness key: what one request at a time and one gap are kept per (`--politeness-key`).
 *
 *  - `host` (the default): each host key (`name:port`) is its own key, as RFC 9309 and seed 000 read.
 *  - `domain`: every host of one registrable domain (the Public Suffix List, private section included, as
 *    `--scope domain` reads it) shares one key; the port is dropped (`a.blog.example.co.uk:8080` and
 *    `b.blog.example.co.uk` share `example.co.uk`), and a host with no registrable domain (an IP literal,
 *    `localhost`) is its own key by name.
 *  - `ip`: the server address is known only at fetch time (the fetch path resolves it; through a proxy not at
 *    all), so the frontier keys by host and places hosts by host, and the fetch path's address gate holds one
 *    request at a time per address with the host gap (engine/fetch/address-limits.ts). The frontier's key is
 *    then the host's.
 *
 * `frontierKeyOf` is the key the frontier gates by and the ring places by. It is the host key itself for
 * `host` and `ip`, so that default costs nothing per host; for `domain` it is a string the domain memo keeps.
 */
import { DomainMemo, registrableDomain } from "../scope/index.ts";

export type PolitenessKeyMode = "host" | "domain" | "ip";

/** The key the frontier keeps one request at a time and one gap for, and the ring places by. */
export function frontierKeyOf(hostKey: string, mode: PolitenessKeyMode): string {
  return mode === "domain" ? registrableDomain(hostKey) : hostKey;
}

/** `frontierKeyOf` with a bounded memo for the domain mode (the Public Suffix List lookup is the cost). */
export class FrontierKeys {
  private readonly memo: DomainMemo | undefined;

  constructor(readonly mode: PolitenessKeyMode) {
    this.memo = mode === "domain" ? new DomainMemo() : undefined;
  }

  /** True when hosts share keys (the frontier's key gate has work to do). */
  get shared(): boolean {
    return this.memo !== undefined;
  }

  of(hostKey: string): string {
    return this.memo ? this.memo.of(hostKey) : hostKey;
  }
}

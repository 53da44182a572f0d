/**
 * Registrable domains, for `--scope domain`: the part of a host name a registrant controls, one label
 * below its public suffix (`www.example.co.uk` → `example.co.uk`), taken from the Public Suffix List as
 * the `tldts` package ships it, private section included, so `alice.github.io` and `bob.github.io` are
 * two domains, as their owners are two people. A host with no registrable domain (an IP address,
 * `localhost`, a bare public suffix) is its own domain. Every discovered link asks this, and hosts repeat
 * a lot, so answers are memoized in a bounded map.
 */
import { getDomain } from "tldts";

/** The host name of a host key: without its port, IPv6 brackets kept (`[::1]:8080` → `[::1]`). */
export function hostnameOf(hostKey: string): string {
  if (hostKey.startsWith("[")) {
    const end = hostKey.indexOf("]");
    return end < 0 ? hostKey : hostKey.slice(0, end + 1);
  }
  const colon = hostKey.lastIndexOf(":");
  return colon < 0 ? hostKey : hostKey.slice(0, colon);
}

/** The registrable domain of a host key, or its host name when it has none. */
export function registrableDomain(hostKey: string): string {
  const name = hostnameOf(hostKey);
  if (name.startsWith("[")) return name;
  return getDomain(name, { allowPrivateDomains: true }) ?? name;
}

/** `registrableDomain` with a memo of at most `max` hosts (cleared when full: hosts are cheap to redo). */
export class DomainMemo {
  private readonly memo = new Map<string, string>();

  constructor(private readonly max = 100_000) {}

  of(hostKey: string): string {
    let domain = this.memo.get(hostKey);
    if (domain === undefined) {
      domain = registrableDomain(hostKey);
      if (this.memo.size >= this.max) this.memo.clear();
      this.memo.set(hostKey, domain);
    }
    return domain;
  }
}

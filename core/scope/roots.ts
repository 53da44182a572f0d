/**
 * The scope's roots: the hosts of the crawl's seeds, and their registrable domains. `--scope host` keeps
 * a crawl on the root hosts, `--scope domain` on the root domains. Roots only grow: a seed added later
 * widens the scope from then on. Where the roots are kept is the caller's: `crawl` in its frontier store,
 * a cluster in the cluster state, so every frontier node judges links against the same set. In memory a
 * root is kept as a 53-bit hash of its name (core/hash key53) in a Key53Set: a million seeds' hosts and
 * domains take 11-21 bytes each (a JS Set of numbers took 40-50, a Set of strings 175-255 with the string);
 * a host whose name shares a root's hash (about 1 in 9 billion lookups at a million roots) would be taken
 * into scope. Adding a root works its domain out afresh rather than through the memo: seeds rarely repeat,
 * and the memo (up to 100,000 names, ~20 MB) then fills only where links are judged by domain.
 */
import { Key53Set, key53 } from "../hash/index.ts";
import { DomainMemo, hostnameOf, registrableDomain } from "./domain.ts";

export class ScopeRoots {
  private readonly hosts = new Key53Set();
  private readonly domains = new Key53Set();

  constructor(private readonly domainOf: DomainMemo = new DomainMemo()) {}

  /** Adds seed host keys; returns those that were new. */
  add(hostKeys: Iterable<string>): string[] {
    const added: string[] = [];
    for (const key of hostKeys) {
      const host = hostnameOf(key);
      const hashed = key53(host);
      if (this.hosts.has(hashed)) continue;
      this.hosts.add(hashed);
      this.domains.add(key53(registrableDomain(host)));
      added.push(host);
    }
    return added;
  }

  /** Whether the host key's name is a root host (ports aside: a seed's host is in scope on any port). */
  hasHost(hostKey: string): boolean {
    return this.hosts.has(key53(hostnameOf(hostKey)));
  }

  /** Whether the host key's registrable domain is a root domain. */
  hasDomainOf(hostKey: string): boolean {
    return this.domains.has(key53(this.domainOf.of(hostKey)));
  }

  /** The registrable domain of a host key (memoized), for explanations. */
  domainOfHost(hostKey: string): string {
    return this.domainOf.of(hostKey);
  }

  get size(): number {
    return this.hosts.size;
  }
}

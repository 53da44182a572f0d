/**
 * The scope's roots: the hosts of the crawl's seeds, and their registrable domains. `--scope host` keeps
 * a crawl on the root hosts, `--scope domain` on the root domains. Roots only grow: a seed added later
 * widens the scope from then on. Where the roots are kept is the caller's: `crawl` in its frontier store,
 * a cluster in the cluster state, so every frontier node judges links against the same set.
 */
import { DomainMemo, hostnameOf } from "./domain.ts";

export class ScopeRoots {
  private readonly hosts = new Set<string>();
  private readonly domains = new Set<string>();

  constructor(private readonly domainOf: DomainMemo = new DomainMemo()) {}

  /** Adds seed host keys; returns those that were new. */
  add(hostKeys: Iterable<string>): string[] {
    const added: string[] = [];
    for (const key of hostKeys) {
      const host = hostnameOf(key);
      if (this.hosts.has(host)) continue;
      this.hosts.add(host);
      this.domains.add(this.domainOf.of(host));
      added.push(host);
    }
    return added;
  }

  /** Whether the host key's name is a root host (ports aside: a seed's host is in scope on any port). */
  hasHost(hostKey: string): boolean {
    return this.hosts.has(hostnameOf(hostKey));
  }

  /** Whether the host key's registrable domain is a root domain. */
  hasDomainOf(hostKey: string): boolean {
    return this.domains.has(this.domainOf.of(hostKey));
  }

  /** The registrable domain of a host key (memoized), for explanations. */
  domainOfHost(hostKey: string): string {
    return this.domainOf.of(hostKey);
  }

  get size(): number {
    return this.hosts.size;
  }

  /** The root host names, sorted. */
  list(): string[] {
    return [...this.hosts].sort();
  }
}

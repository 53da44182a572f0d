/**
 * Screening: the rules every URL faces before the seen-set is asked about it, in this order: the address
 * policy (core/net: no internal address, local name or empty host, the deny lists), media files when
 * `--fetch-media` is off, the scope and filters (core/scope), the trap limits (core/traps: URL length,
 * repeated segments, the host's queue) and, for a URL not a seed, the URL-pattern families of its host.
 * Every page URL that enters the frontier passes here (seeds, links, redirect targets, sitemap entries), so
 * no request is ever planned for a URL the crawl must not make. Sitemaps face the address policy and the
 * redirect limit only. Each refusal is counted by its reason in a tally the caller adds to the frontier's
 * counters (`count`) once the seen-set has answered for the batch: a batch it refuses comes back, is
 * screened again, and must not be counted twice.
 *
 * Cost per URL: a Set insert (the batch's duplicates), the address check, the scope check (memoized
 * registrable domain), the trap checks on the URL text, and a Map lookup for its host's pattern counts.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { scopeCounterName } from "../../core/scope/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import { checkTrap, trapCounterName } from "../../core/traps/index.ts";
import type { FrontierState } from "./frontier-state.ts";

export class Screening {
  constructor(private readonly s: FrontierState) {}

  /**
   * The URLs a host has queued, in memory or cold in the store (the per-host trap limit). For a cold host,
   * a bound below the limit gives the trap check the same answer as its count, without reading its row.
   */
  private hostQueued(host: string): number {
    const entry = this.s.hosts.get(host);
    if (entry) return entry.queued;
    if (this.s.coldHosts <= 0) return 0;
    const atMost = this.s.store.cold.queuedAtMost(host);
    if (atMost < this.s.policy.maxQueuePerHost) return atMost;
    return this.s.store.cold.get(host)?.queued ?? 0;
  }

  /** The URLs worth a seen check, each once; refusals are counted in `tally` by their reason. */
  pages(urls: readonly DiscoveredUrl[], tally: Counters): DiscoveredUrl[] {
    const policy = this.s.policy;
    const out: DiscoveredUrl[] = [];
    const batch = new Set<string>();
    for (const u of urls) {
      if (batch.has(u.url)) continue;
      batch.add(u.url);
      if (this.refusedAddress(u, tally)) continue;
      if (u.kind === "media" && !policy.fetchMedia) {
        // Only a fetch node asked by an older task (or another policy) sends these: the policy here decides.
        tally.add("admission.rejected.fetch-media-off");
        continue;
      }
      // Media files face the scope and filters as links do, except the extension deny-list (ScopeFilter). A
      // job with scope settings of its own judges its URLs by them, with its seeds' hosts as roots.
      const own = this.s.jobs.scopeOf(u.job);
      const outside = (own?.filter ?? this.s.scope).reject(u);
      if (outside) {
        tally.add(scopeCounterName(outside));
        continue;
      }
      const verdict = checkTrap(u.url, { hostQueued: this.hostQueued(u.host), hostPagesToday: 0 }, own?.policy ?? policy);
      if (!verdict.ok) {
        tally.add(trapCounterName(verdict.reason));
        continue;
      }
      if (!u.isSeed) {
        const family = this.s.patterns.check(u.host, u.url);
        if (!family.ok) {
          tally.add(trapCounterName(family.reason));
          continue;
        }
      }
      out.push(u);
    }
    return out;
  }

  /**
   * The sitemaps worth keeping: those the address policy lets through (it also holds `--deny-hosts`) and
   * whose redirect chain is not too long, none with `--sitemaps off`. The scope does not apply: a sitemap a
   * host's robots.txt names speaks for that host wherever it lives, and its entries face the scope as links.
   */
  sitemaps(refs: readonly DiscoveredUrl[], tally: Counters): DiscoveredUrl[] {
    if (refs.length === 0) return [];
    if (this.s.policy.sitemaps === "off") {
      tally.add("sitemap.ignored-off", refs.length);
      return [];
    }
    return refs.filter((u) => {
      if (this.refusedAddress(u, tally)) return false;
      if (u.redirectHops > this.s.policy.maxRedirects) {
        tally.add("sitemap.too-many-redirects");
        return false;
      }
      return true;
    });
  }

  /** Whether the address policy refuses the URL's host; a refusal is counted in `tally` by its reason. */
  refusedAddress(u: DiscoveredUrl, tally: Counters): boolean {
    const refusal = this.s.addresses.checkHost(u.host);
    if (refusal) tally.add(`admission.refused.${refusal.reason}`);
    return refusal !== undefined;
  }

  /** Adds what a screening refused (`tally`) to the frontier's counters. */
  count(tally: Counters): void {
    for (const [name, n] of Object.entries(tally.toJSON())) this.s.counters.add(name, n);
  }
}

/**
 * Each host's sitemaps to read, as the frontier keeps them: which references it keeps (screened, and those
 * of hosts another frontier owns sent there), recording them in the store's sitemaps table (one that becomes
 * pending makes its host active even with an empty queue), handing out a host's next one, and finishing it
 * (read, failed, or disallowed by robots.txt). The protocol's rules are core/sitemap, the small pure steps
 * on results sitemap-refs.ts; scheduling.ts decides when a sitemap is fetched, results.ts applies what it found.
 *
 * Cost: a sitemap reference costs a store read and at most one row write; a host's pending count is kept in
 * its entry, so asking whether it has one is free.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostEntry } from "./host-entry.ts";
import type { Screening } from "./screening.ts";
import { isSitemapProbe } from "./sitemap-refs.ts";
import type { SitemapRow } from "./store/sitemap-table.ts";

export class HostSitemaps {
  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly screening: Screening,
  ) {}

  /** Screens sitemap references and sends those of hosts other frontiers own to them; returns this frontier's. */
  route(refs: readonly DiscoveredUrl[], forwards: Promise<void>[], tally: Counters): DiscoveredUrl[] {
    const kept = this.screening.sitemaps(refs, tally);
    const forward = this.s.opts.forward;
    if (!forward) return kept;
    const foreign = kept.filter((u) => !forward.owns(u.host));
    if (foreign.length > 0) forwards.push(forward.send(foreign));
    return kept.filter((u) => forward.owns(u.host));
  }

  /**
   * Records sitemaps to read; one that becomes pending makes its host active (it has work even with an
   * empty queue). Runs inside a transaction. A sitemap offered again is read again when its lastmod is
   * newer than its last read, else at most every half robots.txt lifetime (the next robots.txt fetch). A
   * feed is offered again by its home page at each refetch of it, so it follows the home page's adaptive
   * schedule (a home page that changes is asked again sooner), read at most every `--refetch-min`.
   */
  offer(refs: readonly DiscoveredUrl[], now: number): void {
    for (const u of refs) {
      const partition = this.s.partitionOf(u.host);
      const offer = {
        partition,
        host: u.host,
        url: u.url,
        grants: u.sitemap?.grants ?? [],
        fromIndex: u.sitemap?.fromIndex === true,
        depth: u.depth,
        hops: u.redirectHops,
        ...(u.lastmod !== undefined ? { lastmod: u.lastmod } : {}),
        ...(u.sitemap?.feed === true ? { feed: true } : {}),
        // The job of the seed or page that named it: the task that reads it, and so its entries, are that job's.
        ...(u.job ? { job: u.job } : {}),
      };
      const feed = u.sitemap?.feed === true;
      const rereadAfterMs = feed ? this.s.policy.refetchMinMs : this.s.policy.robotsMaxAgeMs / 2;
      if (!this.s.store.sitemaps.offer(offer, now, rereadAfterMs)) {
        this.s.counters.add("sitemap.known");
        continue;
      }
      this.s.counters.add(feed ? "feed.queued" : "sitemap.queued");
      this.s.totalSitemaps++;
      if (!this.s.serves(partition)) continue;
      this.hosts.sitemapQueued(u.host, partition);
    }
  }

  /**
   * Feeds whose reread fell due become pending again (at most `limit`, the first due first), each making its
   * host active as an offer does; returns their hosts. Runs inside a transaction.
   */
  rereadDueFeeds(now: number, limit: number): string[] {
    const hosts: string[] = [];
    for (const row of this.s.store.sitemaps.takeDueFeeds(now, limit)) {
      this.s.counters.add("feed.reread");
      this.s.totalSitemaps++;
      hosts.push(row.host);
      if (this.s.serves(row.partition)) this.hosts.sitemapQueued(row.host, row.partition);
    }
    return hosts;
  }

  /** The host's next sitemap to read, if it has one pending (its count is put right when the store has none). */
  next(entry: HostEntry): SitemapRow | undefined {
    if (entry.sitemaps <= 0) return undefined;
    const row = this.s.store.sitemaps.next(entry.partition, entry.key);
    if (!row) entry.sitemaps = 0;
    return row;
  }

  /** One of the host's sitemaps was finished in the store (read, failed or disallowed): one less to read. */
  finished(entry: HostEntry): void {
    entry.sitemaps = Math.max(0, entry.sitemaps - 1);
    this.s.totalSitemaps = Math.max(0, this.s.totalSitemaps - 1);
  }

  /** Whether a sitemap row of the host is its probed /sitemap.xml (sitemap-refs.ts). */
  isProbe(entry: HostEntry, row: SitemapRow): boolean {
    // A sitemap task was handed out with the host's robots.txt in its entry, which says whether it names sitemaps.
    return isSitemapProbe(row, this.hosts.robotsOf(entry)?.namesSitemaps ?? false);
  }
}

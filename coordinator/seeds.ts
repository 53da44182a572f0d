/**
 * Adding seeds: each URL is screened (core/seeds: normalized, deduplicated, the address policy) and addressed by its host key, region (region rules) and
 * partition (hash mod P), then published as a seed to `crawl.urls.<region>.<p>`, one publish per
 * partition, where the owning frontier node admits it like any discovered URL (seeds bypass the depth
 * limit and are confirmed in the exact seen store). No frontier node is asked, so seeds can be added
 * before any frontier node has joined: they wait in the stream. A URL that cannot be crawled is rejected
 * with the normalizer's reason, and one whose host the address policy refuses (an internal address, a
 * local name: core/net, the same check as the frontier's admission) with that policy's reason; a repeat within one request is rejected as a duplicate. Publishing again is
 * harmless (the seen check is idempotent), so a request that failed half-way can simply be retried. Seeds
 * of a crawl job carry its number (`job`); without one they are job `default`'s. A feed seed (RSS, Atom) is
 * published as a sitemap reference marked feed, vouched for by its own origin: its frontier reads it as a
 * feed (its items queued first, read again on its own schedule), as `crawl --feeds` does.
 */
import type { PolitenessKeyMode } from "../core/politeness/index.ts";
import { groupByOwner } from "../core/addressing/index.ts";
import type { RegionRules } from "../core/cluster/index.ts";
import { type MessageBus } from "../core/ports/index.ts";
import { AddressPolicy } from "../core/net/index.ts";
import { screenSeeds, type RejectedSeed } from "../core/seeds/index.ts";
import { InvalidArgumentError, UnavailableError } from "../core/errors/index.ts";

export interface SeedOptions {
  bus: MessageBus;
  rules: RegionRules;
  partitions: number;
  /** The fleet's politeness key (the ring's): hosts are placed by it (core/addressing). Default host. */
  politenessKey?: PolitenessKeyMode;
  maxUrls: number;
  /** Hosts no node may fetch; default: the strict policy (no internal address, no local name). */
  addresses?: AddressPolicy;
}

export type { RejectedSeed } from "../core/seeds/index.ts";

export interface SeedOutcome {
  accepted: number;
  rejected: RejectedSeed[];
}

export class SeedPublisher {
  private readonly addresses: AddressPolicy;

  constructor(private readonly opts: SeedOptions) {
    this.addresses = opts.addresses ?? new AddressPolicy();
  }

  /**
   * Publishes the crawlable URLs among `urls` (pages) and `feeds` (read as feeds). Throws
   * InvalidArgumentError when there are none or too many (both counted), and UnavailableError when the bus
   * refuses a publish (some partitions may have been published).
   */
  async add(urls: readonly string[], job = 0, feeds: readonly string[] = []): Promise<SeedOutcome> {
    const total = urls.length + feeds.length;
    if (total === 0) throw new InvalidArgumentError("urls: give at least one URL");
    if (total > this.opts.maxUrls)
      throw new InvalidArgumentError(`urls: at most ${this.opts.maxUrls} URLs per request (urls and feeds together), got ${total}`);
    const { accepted, rejected } = screenSeeds(urls, this.addresses, job, feeds);
    const groups = groupByOwner(accepted, this.opts);
    const results = await Promise.allSettled(groups.map((g) => this.opts.bus.publishUrls(g.region, g.partition, g.urls)));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed.length > 0) {
      const reason = failed[0]!.reason;
      throw new UnavailableError(
        `the message bus refused ${failed.length} of ${results.length} seed publishes (${reason instanceof Error ? reason.message : String(reason)}); retrying the request is safe`,
        { cause: reason },
      );
    }
    return { accepted: accepted.length, rejected };
  }
}

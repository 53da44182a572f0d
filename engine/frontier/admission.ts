/**
 * Admission: how a discovered URL becomes a queued one. Seeds, links, redirect targets and sitemap entries
 * are screened (screening.ts), then the seen-set is asked about the survivors, one call per partition; the
 * new ones go into the durable queue, one multi-row write for the batch, their hosts made active. A Bloom
 * "maybe seen" is confirmed in the exact store for seeds and home pages (so a false positive never costs a
 * site its entry point), for every URL with `confirmSeen` (a batch that comes a second time), and for a
 * sitemap entry with a lastmod (a page that changed is due again at once). A seed's host becomes a root of
 * the scope, shared first when a cluster shares them. Beyond `maxQueued` the lowest-priority URLs are dropped;
 * the store keeps the index that finds them (`queue_drop_order`) only while there is such a limit.
 *
 * Cost per admitted URL: its share of one seen-set call per partition, one queue row (written ROWS_PER_INSERT
 * to a statement), a queue-time mark and its host's entry; per URL already seen, a Set or Bloom answer, and
 * a store read only when it must be confirmed.
 */
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { SeenSetLostError } from "../../core/ports/index.ts";
import { admissionPriority } from "../../core/schedule/index.ts";
import { hostnameOf } from "../../core/scope/index.ts";
import { levelOfSitemapPriority } from "../../core/sitemap/index.ts";
import { Counters } from "../../core/stats/index.ts";
import { isHomePage } from "../../core/url/index.ts";
import { key53 } from "../../core/hash/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { DiskWatch } from "./disk-full.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostSitemaps } from "./host-sitemaps.ts";
import type { Screening } from "./screening.ts";
import { lostPartitions, type SeenRecovery } from "./seen-recovery.ts";
import { splitSitemapRefs } from "./sitemap-refs.ts";
import type { QueuedUrl, UrlRow } from "./store/frontier-store.ts";
import type { ScopeRootRow } from "./store/scope-root-table.ts";

const KNOWN_HOME_PAGES_MAX = 500_000;

export class Admission {
  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly screening: Screening,
    private readonly sitemaps: HostSitemaps,
    private readonly seenRecovery: SeenRecovery,
    private readonly disk: DiskWatch,
  ) {
    // The size limit's index exists exactly while there is a limit: built here for a store opened with one
    // (one pass over the queue), dropped for one opened without (a page written per dequeue saved).
    const limited = (s.opts.maxQueued ?? 0) > 0;
    if (s.store.keepDropOrder(limited)) {
      s.opts.log?.info(limited ? "built the queue's index for the size limit (--max-queued)" : "dropped the queue's size-limit index", {
        queued: s.totalQueued,
      });
    }
  }

  /**
   * Admits discovered URLs; returns how many were new. Rejects with SeenSetLostError, admitting nothing,
   * when the seen-set lost a partition of these URLs (which is then rebuilt: seen-recovery.ts).
   */
  async admit(urls: readonly DiscoveredUrl[], opts: { confirmSeen?: boolean } = {}): Promise<number> {
    const { pages, refs } = splitSitemapRefs(urls);
    // A seeded feed's host is a root of the scope like a seeded page's (its items live there).
    const roots = await this.shareRoots(refs.length === 0 ? pages : [...pages, ...refs.filter((r) => r.isSeed)]);
    const tally = new Counters();
    const sitemaps = this.screening.sitemaps(refs, tally);
    const candidates = this.screening.pages(pages, tally);
    if (candidates.length === 0 && sitemaps.length === 0 && roots.length === 0) {
      this.screening.count(tally);
      return 0;
    }
    const close = this.seenRecovery.window();
    let added = 0;
    const now = this.s.now();
    const store = this.s.store;
    try {
      const maybe = await this.checkSeen(candidates);
      this.screening.count(tally);
      try {
        store.tx(() => {
          store.scopeRoots.add(roots);
          added = this.enqueueNew(candidates, maybe, opts.confirmSeen);
          this.sitemaps.offer(sitemaps, now);
        });
      } catch (error) {
        // Rolled back: what the admission changed in memory goes back to what the store holds.
        this.hosts.rollBack(new Set([...candidates, ...sitemaps].map((u) => u.host)), false);
        this.disk.writeFailed(error);
        throw error;
      }
    } finally {
      close();
    }
    this.enforceSizeLimit();
    return added;
  }

  /**
   * Adds hosts other frontiers recorded as roots of the scope (the cluster state's watch); returns those
   * that were new here. They are kept in the store, not in this store's change journal: each root is
   * replicated with the partition of the seed that made it, by that partition's writer.
   */
  addScopeRoots(hosts: Iterable<string>): string[] {
    const added = this.s.scope.roots.add(hosts);
    if (added.length > 0) {
      const store = this.s.store;
      store.untracked(() => store.tx(() => store.scopeRoots.add(added.map((host) => ({ host, partition: -1 })))));
    }
    return added;
  }

  /**
   * The seeds' hosts among `urls` become roots of the scope (in memory at once, shared first when a cluster
   * shares them); returns every seed's root with its seed's partition, for the admission's transaction to
   * keep in the store (journaled with that partition, so the partition's replica carries it).
   */
  private async shareRoots(urls: readonly DiscoveredUrl[]): Promise<ScopeRootRow[]> {
    const seeds = urls.filter((u) => u.isSeed);
    if (seeds.length === 0) return [];
    const roots = this.s.scope.roots;
    const fresh = seeds.filter((u) => !roots.hasHost(u.host)).map((u) => u.host);
    // Shared before the seeds are queued: links found on their pages may reach any node, which must know them.
    if (fresh.length > 0) await this.s.opts.sharedRoots?.add([...new Set(fresh)]);
    roots.add(fresh);
    return seeds.map((u) => ({ host: hostnameOf(u.host), partition: this.s.partitionOf(u.host) }));
  }

  /**
   * The seen-set's answers for `urls`, one call per partition. A partition being rebuilt is refused at
   * once; a partition the seen-set reports lost starts its rebuild; either rejects the whole call (after
   * every partition answered, so no call is left running) with a SeenSetLostError.
   */
  async checkSeen(urls: readonly DiscoveredUrl[]): Promise<boolean[]> {
    if (urls.length === 0) return [];
    const byPartition = new Map<number, number[]>();
    urls.forEach((u, i) => {
      const p = this.s.partitionOf(u.host);
      const list = byPartition.get(p);
      if (list) list.push(i);
      else byPartition.set(p, [i]);
    });
    const out = new Array<boolean>(urls.length).fill(false);
    const outcomes = await Promise.allSettled(
      [...byPartition].map(async ([p, idx]) => {
        if (this.seenRecovery.isRebuilding(p)) throw new SeenSetLostError(p, "rebuilding");
        const answers = await this.s.opts.seen.checkAndAdd(
          p,
          idx.map((i) => urls[i]!.url),
        );
        idx.forEach((i, j) => (out[i] = answers[j]!));
      }),
    );
    const errors = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    if (errors.length === 0) return out;
    const lost = lostPartitions(errors);
    this.seenRecovery.lost(lost);
    throw errors.find((e) => !(e instanceof SeenSetLostError)) ?? lost[0];
  }

  /**
   * Inserts the URLs that are new into the exact store and their host queues, all of them in one batch
   * of statements (enqueueMany); returns how many. `maybeSeen` is the seen-set's answer for each; with
   * `confirmAll` every "maybe" is confirmed in the store. Runs inside a transaction.
   */
  enqueueNew(urls: readonly DiscoveredUrl[], maybeSeen: readonly boolean[], confirmAll = false): number {
    const store = this.s.store;
    const counters = this.s.counters;
    const fresh: Array<{ u: DiscoveredUrl; home: boolean; item: Omit<QueuedUrl, "seq"> }> = [];
    urls.forEach((u, i) => {
      // A link of an ended job's last pages (in flight when it ended) is not its job's to crawl any more.
      if (u.job && this.s.jobs.hasEnded(u.job)) {
        counters.add("frontier.rejected-job-ended");
        return;
      }
      const home = isHomePage(u.url);
      const partition = this.s.partitionOf(u.host);
      if (maybeSeen[i] && u.lastmod !== undefined) {
        // A sitemap entry with a lastmod: a page already fetched that changed since is due at once.
        const row = store.getUrl(partition, u.url);
        if (row || store.isQueued(partition, u.host, u.url)) {
          if (row) this.dueIfChanged(row, u.lastmod);
          counters.add("seen.skipped");
          return;
        }
        counters.add("seen.bloom-false-positive-caught");
      } else if (maybeSeen[i]) {
        if (!(u.isSeed || home || this.s.opts.confirmAllSeen || confirmAll) || this.s.knownHomePages.has(key53(u.url))) {
          counters.add("seen.skipped");
          return;
        }
        if (store.isKnown(partition, u.host, u.url)) {
          if (home) this.rememberHomePage(u.url);
          counters.add("seen.skipped");
          return;
        }
        counters.add("seen.bloom-false-positive-caught");
      }
      const kind = u.kind === "media" ? "media" : "page";
      // A sitemap's priority places its entries (a home page stays first whatever it says; sitemap entries
      // are pages, so a media file never has one).
      const priority =
        (home || kind === "media" ? undefined : levelOfSitemapPriority(u.sitemapPriority)) ??
        admissionPriority({ isHomePage: home, depth: u.depth, kind, foundOnNearDuplicate: u.foundOnNearDuplicate }, this.s.policy);
      const item: Omit<QueuedUrl, "seq"> = {
        host: u.host,
        partition,
        priority,
        url: u.url,
        depth: u.depth,
        hops: u.redirectHops,
        kind,
        ...(u.job ? { job: u.job } : {}),
      };
      fresh.push({ u, home, item });
    });
    if (fresh.length === 0) return 0;
    store.logAdmittedMany(fresh.map((f) => f.u.url));
    const seqs = store.enqueueMany(fresh.map((f) => f.item));
    const byRender = fresh.filter((f, i) => f.u.foundByRender && seqs[i] !== undefined);
    if (byRender.length > 0) store.markFoundByRender(byRender.map((f) => ({ partition: f.item.partition, url: f.item.url })));
    fresh.forEach(({ u, home, item }, i) => {
      if (home) this.rememberHomePage(u.url);
      this.hosts.queued(item, seqs[i]);
      if (!u.isSeed) this.s.patterns.add(u.host, u.url);
    });
    store.saveSeq();
    counters.add("frontier.admitted", fresh.length);
    return fresh.length;
  }

  /** Drops the lowest-priority URLs beyond `maxQueued` (their state says why); none without a limit. */
  enforceSizeLimit(): void {
    const limit = this.s.opts.maxQueued ?? 0;
    if (limit <= 0) return;
    const excess = this.s.totalQueued - limit;
    if (excess <= 0) return;
    this.s.store.tx(() => {
      for (const d of this.s.store.dropLowestPriority(excess)) {
        const entry = this.s.hosts.get(d.host);
        if (entry) {
          this.hosts.dequeued(entry, d);
        } else {
          this.s.totalQueued--;
          this.s.patterns.remove(d.host, d.url);
        }
        this.s.counters.add("frontier.dropped-size-limit");
      }
    });
  }

  /**
   * A fetched page whose sitemap lastmod is newer than its last fetch is due now rather than at its
   * planned refetch, at the first level (the site says it changed). Runs inside a transaction.
   */
  private dueIfChanged(row: UrlRow, lastmod: number): void {
    if ((row.state !== "fetched" && row.state !== "duplicate") || row.lastFetchedAt <= 0 || lastmod <= row.lastFetchedAt) return;
    const now = this.s.now();
    const due = this.s.store.scheduledAt(row.partition, row.url);
    if (due === undefined || due <= now) return;
    // A sitemap lists pages: what it names is due again as a page.
    this.s.store.schedule({
      dueAt: now,
      url: row.url,
      host: row.host,
      partition: row.partition,
      priority: 1,
      depth: row.depth,
      kind: "page",
    });
    this.s.scheduleMovedEarlier();
    this.s.counters.add("sitemap.lastmod-due");
  }

  /** Bounded: cleared when full, after which the store answers again. */
  private rememberHomePage(url: string): void {
    if (this.s.knownHomePages.size >= KNOWN_HOME_PAGES_MAX) this.s.knownHomePages.clear();
    this.s.knownHomePages.add(key53(url));
  }
}

/**
 * The frontier: which URL is fetched next, and when. It admits discovered URLs (the address policy, the
 * scope and filters, trap limits, then the seen-set, then the durable queue), keeps each host's sitemaps to
 * read, hands out fetch tasks only for hosts whose politeness gap has passed (one task in flight per host,
 * robots.txt first, then sitemaps, front-queue priority when capacity is short), and applies
 * each result: the host's next allowed time, the URL's retry or refetch schedule, redirect targets and the
 * links found. The same class runs inside `crawl` (embedded mode) and inside each frontier node of a
 * cluster; only the SeenSet and the transport around it differ. Host and URL inspection (`hostInfo`,
 * `listHosts`, `explainUrl`) is inspection.ts, over a read-only view of this class; the host board of the
 * dashboards (`hostReport`) is host-board.ts.
 *
 * Besides counters it records histograms (core/stats, buckets in histogram-buckets.ts):
 *   - `fetch.duration-seconds`: each result's endedAt - startedAt (request to body complete), robots.txt
 *     included, skipped tasks (never sent) not;
 *   - `fetch.page-bytes`: each stored page body (after decompression), duplicates (not stored) not;
 *   - `frontier.queue-wait-seconds`: for each page task handed out, the time since its URL was queued
 *     here (admitted, due again for a retry or refetch, or received by a handoff through `admit`), to about
 *     a second (seq-clock.ts); URLs queued before this process started are not observed;
 *   - `politeness.gap-wait-seconds`: for each task handed out, how long it waited for its host's gap: the
 *     host's next allowed time minus the moment the host had work to do (a URL queued and no fetch in
 *     flight), when that is positive. A host that was allowed already when it got work is not observed, so
 *     the histogram's count is the number of requests that waited for a gap.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import { isDiskFull } from "../../core/errors/index.ts";
import { noteKind, type DiscoveredUrl, type FetchResult, type FetchTask, type TaskKind } from "../../core/model/index.ts";
import {
  isFetchLost,
  newHostState,
  onFetchEnd,
  onFetchStart,
  releaseAfterLoss,
  releaseLostFetch,
  setPaused,
  WaitingHostHeap,
} from "../../core/politeness/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { parseRobots, policyFor, robotsExpiresAt } from "../../core/robots/index.ts";
import { admissionPriority } from "../../core/schedule/index.ts";
import {
  bumpDaily,
  checkTrap,
  countToday,
  nextUtcDayStart,
  trapCounterName,
  UrlPatternTracker,
  urlPathAndQuery,
} from "../../core/traps/index.ts";
import { hostKeyOf, isHomePage, originOf } from "../../core/url/index.ts";
import { hostnameOf, ScopeFilter, ScopeRoots, scopeCounterName } from "../../core/scope/index.ts";
import { levelOfSitemapPriority } from "../../core/sitemap/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { SeenSetLostError, type Log, type SeenSet } from "../../core/ports/index.ts";
import type { HostReport } from "../../core/dashboard/index.ts";
import { Counters, Histograms } from "../../core/stats/index.ts";
import { hostReport } from "./host-board.ts";
import type { HostEntry } from "./host-entry.ts";
import { explainUrl, hostView, listHosts, type HostView, type InspectedFrontier, type UrlView } from "./inspection.ts";
import { pendingWork, type PendingWork } from "./pending.ts";
import { ReadyQueues } from "./ready-queues.ts";
import { lostPartitions, SeenRecovery } from "./seen-recovery.ts";
import { SeqClock } from "./seq-clock.ts";
import type { FrontierStore, QueuedUrl, UrlRow } from "./store/frontier-store.ts";
import type { PersistedHost } from "./store/persisted-host.ts";
import { decideUrlOutcome, unfetchedRow } from "./url-outcome.ts";
import { countSitemapResult, isSitemapProbe, probeFoundNone, robotsSitemapRefs, splitSitemapRefs } from "./sitemap-refs.ts";
import type { SitemapRow } from "./store/sitemap-table.ts";
import type { ScopeRootRow } from "./store/scope-root-table.ts";

export interface FrontierOptions {
  store: FrontierStore;
  seen: SeenSet;
  policy: PolicyConfig;
  /** Fixed partition count P: partition = hash(host) mod P. */
  partitions: number;
  /** Most URLs kept queued; beyond it the lowest-priority URLs are dropped. */
  maxQueued: number;
  /** Confirm a Bloom "maybe seen" in the exact store for every URL, not only seeds and home pages. */
  confirmAllSeen?: boolean;
  now: () => number;
  newTaskId: () => string;
  /** Where the frontier counts (default its own); a process passes the counters its other parts share. */
  counters?: Counters;
  /** Where it records its histograms (default its own). */
  histograms?: Histograms;
  /** Partitions this frontier serves; undefined serves every partition (embedded mode). */
  serving?: Iterable<number>;
  /**
   * Cluster mode: a redirect target on a host this frontier does not own (another partition or region) is
   * sent to its owner with `send` instead of being admitted here, before the result is committed; absent,
   * every target is admitted here (embedded mode).
   */
  forward?: { owns(host: string): boolean; send(urls: DiscoveredUrl[]): Promise<void> };
  /**
   * Told when a write fails because the disk is full (`full` true: no task is handed out from then on) and
   * when writes work again (false: tasks flow again). Nothing committed is lost either way.
   */
  onDisk?: (full: boolean, error?: unknown) => void;
  /**
   * While the disk is full, asked every few seconds whether there is room again; it must throw while there
   * is not. Default: a small write to the store.
   */
  diskProbe?: () => void;
  /**
   * Cluster mode: where the seeds' hosts (the scope's roots) are shared with every other frontier node;
   * `add` resolves once they are stored. This frontier adds the hosts of the seeds it admits before it
   * queues them; the node feeds the hosts others add to `addScopeRoots`. Absent, this frontier's own store
   * is the only place they are kept (embedded mode).
   */
  sharedRoots?: { add(hosts: readonly string[]): Promise<void> };
  /** Where the seen-set's losses and rebuilds are told (seen-recovery.ts); default: not logged. */
  log?: Log;
}

/** A fetch result to apply, with the links it found. */
export interface ResultItem {
  result: FetchResult;
  links: readonly DiscoveredUrl[];
  /**
   * Confirm every "maybe seen" of its links and redirect target in the store: the result came a second
   * time (redelivered), and its first attempt may have set seen-set bits without committing.
   */
  confirmSeen?: boolean;
}

export interface FrontierSnapshot {
  queued: number;
  scheduled: number;
  activeHosts: number;
  hostsReady: number;
  hostsWaiting: number;
  inFlight: number;
  knownUrls: number;
  /** Sitemaps waiting to be read. */
  sitemapsPending: number;
  counters: Record<string, number>;
}

const HEAD_SKIP_LIMIT = 64;
/** Weight of the newest fetch in a host's moving-average fetch duration. */
const FETCH_MS_WEIGHT = 0.3;
/** The host report is rebuilt at most this often (dashboards, heartbeats and /metrics all ask). */
const HOST_REPORT_MAX_AGE_MS = 1_000;
const KNOWN_HOME_PAGES_MAX = 500_000;

const DISK_PROBE_EVERY_MS = 2_000;
/** URLs whose result could not be committed, remembered so their links, found again, are confirmed in the store. */
const RECOMMIT_MAX = 100_000;

/** A result ready to apply: its host entry and the task it answers, with its links screened. */
interface Prepared {
  result: FetchResult;
  entry: HostEntry;
  flight: NonNullable<HostEntry["inFlight"]>;
  candidates: DiscoveredUrl[];
  redirect: DiscoveredUrl[];
  /**
   * Confirm every "maybe seen" of its links in the store: the result came a second time (redelivered), or
   * its links were found before by a fetch whose result was never committed (a full disk).
   */
  confirmSeen: boolean;
  /** Sitemaps its links or its robots.txt named, for hosts this frontier keeps. */
  sitemaps: DiscoveredUrl[];
}

export class Frontier {
  readonly counters: Counters;
  readonly histograms: Histograms;
  /** When each queued seq was queued, for the queue-wait histogram. */
  private readonly queuedAt = new SeqClock();
  private report: { at: number; value: HostReport } | undefined;
  private readonly hosts = new Map<string, HostEntry>();
  /** Hosts not ready yet, each until its time (gap, daily cap, robots.txt retry). */
  private readonly waiting = new WaitingHostHeap();
  /** Hosts ready now, by the priority of their next URL (the front queues). */
  private readonly ready = new ReadyQueues();
  private readonly patterns: UrlPatternTracker;
  private readonly addresses: AddressPolicy;
  private readonly scope: ScopeFilter;
  private inFlightCount = 0;
  private totalQueued: number;
  private totalSitemaps: number;
  private lastDuePump = 0;
  private counts = { scheduled: 0, knownUrls: 0 };
  private readonly knownHomePages = new Set<string>();
  private dueAt: number | undefined;
  private dueReadAt = -Infinity;
  private countsAt = -Infinity;
  private serving: Set<number> | undefined;
  private draining = false;
  /**
   * This frontier's run: saved with every host state, so a state saved by another run (this store before
   * a restart, another node before a handoff) is known for what it is: times from another clock, and
   * perhaps not the last word on a request that was in flight (see loadHost).
   */
  private readonly run = crypto.randomUUID();
  /** Partitions rebuilt from a replica, not loaded yet, with when their former holder was lost. */
  private readonly restoredPartitions = new Map<number, number>();
  /** The read-only view host and URL inspection works on. */
  private readonly inspected: InspectedFrontier;
  /** Since when writes fail for a full disk (undefined: they do not). */
  private diskFullAt: number | undefined;
  private lastDiskProbe = 0;
  /** URLs whose result failed to commit (their links' seen-set bits may be set with nothing stored). */
  private readonly recommit = new Set<string>();
  /** Rebuilds partitions a cache-backed seen-set lost, from the store (seen-recovery.ts). */
  private readonly seenRecovery: SeenRecovery;

  constructor(private readonly opts: FrontierOptions) {
    this.counters = opts.counters ?? new Counters();
    this.histograms = opts.histograms ?? new Histograms();
    this.patterns = new UrlPatternTracker(opts.policy);
    this.addresses = AddressPolicy.of(opts.policy);
    const roots = new ScopeRoots();
    roots.add(opts.store.scopeRoots.list());
    this.scope = new ScopeFilter(opts.policy, roots);
    this.seenRecovery = new SeenRecovery({
      seen: opts.seen,
      store: opts.store,
      counters: this.counters,
      serves: (p) => this.serves(p),
      log: opts.log,
      now: () => opts.now(),
    });
    this.inspected = {
      store: opts.store,
      policy: opts.policy,
      partitions: opts.partitions,
      now: () => opts.now(),
      active: (host) => this.hosts.get(host),
      activeHosts: () => this.hosts.values(),
      load: (host) => this.loadHost(host),
      robotsOf: (entry) => this.robotsOf(entry),
      addresses: this.addresses,
      scope: this.scope,
    };
    this.totalQueued = opts.store.totalQueued();
    this.totalSitemaps = opts.store.sitemaps.pendingTotal();
    this.serving = opts.serving === undefined ? undefined : new Set(opts.serving);
    if (this.serving === undefined) this.loadActiveHosts(undefined);
    else for (const p of this.serving) this.loadActiveHosts(p);
  }

  /** Serves exactly these partitions from now on. Partitions given up must have nothing in flight. */
  setServing(partitions: Iterable<number>): void {
    const next = new Set(partitions);
    const before = this.serving ?? new Set<number>();
    for (const p of before) if (!next.has(p)) this.opts.seen.release?.(p);
    for (const [host, entry] of this.hosts) {
      if (next.has(entry.partition) || entry.inFlight) continue;
      this.waiting.remove(host);
      this.ready.remove(host);
      this.hosts.delete(host);
    }
    this.serving = next;
    for (const p of next) {
      if (before.has(p)) continue;
      this.loadActiveHosts(p);
      this.seenRecovery.probe(p);
    }
  }

  /** Whether this frontier serves partition p. */
  serves(p: number): boolean {
    return this.serving === undefined || this.serving.has(p);
  }

  /** Tasks in flight for hosts of partition p (a handoff waits for zero). */
  inFlightIn(p: number): number {
    let n = 0;
    for (const entry of this.hosts.values()) if (entry.inFlight && entry.partition === p) n++;
    return n;
  }

  /**
   * Whether partition p's seen-set is being rebuilt after the cache lost it: its admissions fail until it
   * is done (a caller may refuse its URLs at once rather than let them fail a group).
   */
  seenRebuilding(p: number): boolean {
    return this.seenRecovery.isRebuilding(p);
  }

  /** Partitions whose seen-set is being rebuilt now. */
  get partitionsRebuildingSeen(): number[] {
    return this.seenRecovery.partitionsRebuilding;
  }

  /** Stops rebuilding seen-set partitions (the node is stopping); resolves when none runs. */
  stopSeenRecovery(): Promise<void> {
    return this.seenRecovery.stop();
  }

  /** Stops handing out tasks (drain); results of tasks in flight are still applied. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Recounts the queue after partitions were imported or deleted behind the frontier's back. */
  recount(): void {
    this.totalQueued = this.opts.store.totalQueued();
    this.totalSitemaps = this.opts.store.sitemaps.pendingTotal();
    // Scope roots may have come with the partition (a handoff, a rebuild from the replica).
    this.scope.roots.add(this.opts.store.scopeRoots.list());
  }

  /**
   * Partition p was rebuilt in the store from its replica after the node holding it was lost at `lostAt`;
   * called before p is served. Its hosts may have had a fetch in flight there: when they are loaded they
   * wait until such a fetch must have ended, plus their gap (core/politeness `releaseAfterLoss`).
   */
  restored(p: number, lostAt: number): void {
    this.restoredPartitions.set(p, lostAt);
    this.recount();
  }

  /** Loads the hosts with queued URLs or sitemaps to read (of one partition, or all) into memory, waiting for their time. */
  private loadActiveHosts(partition: number | undefined): void {
    const now = this.opts.now();
    const lostAt = partition === undefined ? undefined : this.restoredPartitions.get(partition);
    if (partition !== undefined) this.restoredPartitions.delete(partition);
    const queuedBy = this.opts.store.queuedByHost(partition);
    const sitemapsBy = this.opts.store.sitemaps.pendingByHost(partition);
    for (const host of new Set([...queuedBy.keys(), ...sitemapsBy.keys()])) {
      if (this.hosts.has(host)) continue;
      // A host with work queued before this run (URLs or sitemaps) may have had a request in flight, saved
      // state or not.
      const entry = this.loadHost(host, true);
      entry.queued = queuedBy.get(host) ?? 0;
      entry.sitemaps = sitemapsBy.get(host) ?? 0;
      // Rebuilt from a replica: a fetch the lost holder started may still be running.
      if (lostAt !== undefined) entry.state = releaseAfterLoss(entry.state, now, lostAt, this.opts.policy);
      this.hosts.set(host, entry);
      this.makeWaiting(entry);
    }
  }

  /** Admits seeds: normalized URLs an operator asked for. They bypass the depth limit. */
  async addSeeds(urls: readonly DiscoveredUrl[]): Promise<number> {
    return this.admit(urls.map((u) => ({ ...u, isSeed: true, depth: 0 })));
  }

  /**
   * Admits discovered URLs: trap checks, seen-set, durable queue. Returns how many were new. Seeds and
   * home pages whose Bloom answer is "maybe seen" are confirmed in the exact store, so a false positive
   * never costs a site's entry point. With `confirmSeen` every "maybe seen" is confirmed: for URLs that
   * come a second time (a message redelivered, or after a crash), whose bits the first attempt may have set
   * in the seen-set without the store ever committing them. Rejects with SeenSetLostError, admitting nothing,
   * when the seen-set lost a partition of these URLs (which is then rebuilt: seen-recovery.ts).
   */
  async admit(urls: readonly DiscoveredUrl[], opts: { confirmSeen?: boolean } = {}): Promise<number> {
    const { pages, refs } = splitSitemapRefs(urls);
    const roots = await this.shareRoots(pages);
    const tally = new Counters();
    const sitemaps = this.screenSitemaps(refs, tally);
    const candidates = this.screen(pages, tally);
    if (candidates.length === 0 && sitemaps.length === 0 && roots.length === 0) {
      this.countScreened(tally);
      return 0;
    }
    const close = this.seenRecovery.window();
    let added = 0;
    const now = this.opts.now();
    try {
      const maybe = await this.checkSeen(candidates);
      this.countScreened(tally);
      try {
        this.opts.store.tx(() => {
          this.opts.store.scopeRoots.add(roots);
          added = this.enqueueNew(candidates, maybe, opts.confirmSeen);
          this.offerSitemaps(sitemaps, now);
        });
      } catch (error) {
        // Rolled back: what the admission changed in memory goes back to what the store holds.
        this.resetHosts(new Set([...candidates, ...sitemaps].map((u) => u.host)), false);
        this.writeFailed(error);
        throw error;
      }
    } finally {
      close();
    }
    this.enforceSizeLimit();
    return added;
  }

  /** True while writes fail for a full disk: no task is handed out until a probe write succeeds. */
  get diskFull(): boolean {
    return this.diskFullAt !== undefined;
  }

  /**
   * Notes a write that failed for a full disk somewhere else (a WARC file on the same disk): tasks stop
   * until there is room again.
   */
  noteDiskFull(error: unknown): void {
    if (this.diskFullAt !== undefined) return;
    this.diskFullAt = this.opts.now();
    this.lastDiskProbe = this.diskFullAt;
    this.counters.add("frontier.disk-full");
    this.opts.onDisk?.(true, error);
  }

  /** A store write failed: a full disk pauses the tasks. */
  private writeFailed(error: unknown): void {
    if (isDiskFull(error)) this.noteDiskFull(error);
  }

  /** While the disk is full: every few seconds, whether there is room again. */
  private diskStillFull(now: number): boolean {
    if (this.diskFullAt === undefined) return false;
    if (now - this.lastDiskProbe < DISK_PROBE_EVERY_MS) return true;
    this.lastDiskProbe = now;
    try {
      if (this.opts.diskProbe) this.opts.diskProbe();
      else this.opts.store.tx(() => this.opts.store.setMeta("disk-probe", String(now)));
    } catch {
      return true;
    }
    this.diskFullAt = undefined;
    this.opts.onDisk?.(false);
    return false;
  }

  /**
   * Rebuilds hosts in memory from the store after a transaction that touched them rolled back. A host with
   * a fetch in flight keeps it unless `releaseFlights` (its result was the one that failed): then the fetch
   * counts as done without a result, and the host waits a full gap from now, its URL still queued.
   */
  private resetHosts(keys: Iterable<string>, releaseFlights: boolean): void {
    const now = this.opts.now();
    this.knownHomePages.clear();
    for (const key of keys) {
      const old = this.hosts.get(key);
      if (!old) continue;
      if (old.inFlight && !releaseFlights) {
        old.head = undefined;
        old.queued = this.opts.store.queuedForHost(old.partition, key);
        old.sitemaps = this.opts.store.sitemaps.pendingFor(old.partition, key);
        continue;
      }
      if (old.inFlight) this.inFlightCount--;
      this.waiting.remove(key);
      this.ready.remove(key);
      this.hosts.delete(key);
      if (!this.serves(old.partition)) continue;
      const fresh = this.loadHost(key);
      fresh.queued = this.opts.store.queuedForHost(fresh.partition, key);
      fresh.sitemaps = this.opts.store.sitemaps.pendingFor(fresh.partition, key);
      if (releaseFlights) fresh.state = releaseLostFetch({ ...fresh.state, inFlight: true, inFlightSince: now }, now, this.opts.policy);
      if (fresh.queued === 0 && fresh.sitemaps === 0) continue;
      this.hosts.set(key, fresh);
      this.makeWaiting(fresh);
    }
    this.recount();
  }

  /**
   * Adds hosts other frontiers recorded as roots of the scope (the cluster state's watch); returns those
   * that were new here. They are kept in the store, not in this store's change journal: each root is
   * replicated with the partition of the seed that made it, by that partition's writer.
   */
  addScopeRoots(hosts: Iterable<string>): string[] {
    const added = this.scope.roots.add(hosts);
    if (added.length > 0) {
      const store = this.opts.store;
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
    const fresh = seeds.filter((u) => !this.scope.roots.hasHost(u.host)).map((u) => u.host);
    // Shared before the seeds are queued: links found on their pages may reach any node, which must know them.
    if (fresh.length > 0) await this.opts.sharedRoots?.add([...new Set(fresh)]);
    this.scope.roots.add(fresh);
    return seeds.map((u) => ({ host: hostnameOf(u.host), partition: partitionOf(u.host, this.opts.partitions) }));
  }

  /** Hands out up to `max` fetch tasks for hosts that may be fetched now. */
  nextTasks(max: number): FetchTask[] {
    if (this.draining) return [];
    const now = this.opts.now();
    if (this.diskStillFull(now)) return [];
    this.pumpDue(now);
    for (let e = this.waiting.popReady(now); e; e = this.waiting.popReady(now)) this.promote(e.host);
    const tasks: FetchTask[] = [];
    while (tasks.length < max) {
      const host = this.ready.shift();
      if (host === undefined) break;
      let task: FetchTask | undefined;
      try {
        task = this.taskFor(host, now);
      } catch (error) {
        // A robots.txt-disallowed head could not be written off: the host tries again in a second.
        this.waiting.push(host, now + 1_000);
        if (!isDiskFull(error)) throw error;
        this.noteDiskFull(error);
        break;
      }
      if (task) tasks.push(task);
    }
    return tasks;
  }

  /** When the next host becomes ready (for the dispatcher's sleep); undefined when none is waiting. */
  nextWakeAt(): number | undefined {
    const now = this.opts.now();
    if (this.ready.size > 0) return now;
    const next = this.waiting.peek()?.at;
    // The earliest scheduled retry or refetch changes rarely and is hours away: read it at most once a
    // second (the loop wakes at least that often anyway), not on every wake.
    if (now - this.dueReadAt >= 1000) {
      this.dueReadAt = now;
      this.dueAt = this.opts.store.nextDueAt();
    }
    const due = this.dueAt;
    if (next === undefined) return due;
    return due === undefined ? next : Math.min(next, due);
  }

  /** Applies a fetch result and admits the links it found, then frees the host for its next fetch. */
  async complete(result: FetchResult, links: readonly DiscoveredUrl[]): Promise<void> {
    return this.completeMany([{ result, links }]);
  }

  /**
   * Applies many results, and admits the links they found, in one transaction (group commit): one WAL
   * commit for a batch of pages instead of one per page, which was the largest cost of a busy crawl. A
   * result is not durable until its batch commits; a crash before that refetches the page, as if it had
   * been in flight.
   */
  async completeMany(items: readonly ResultItem[]): Promise<void> {
    const close = this.seenRecovery.window();
    try {
      await this.completeInWindow(items);
    } finally {
      close();
    }
    this.enforceSizeLimit();
  }

  private async completeInWindow(items: readonly ResultItem[]): Promise<void> {
    const prepared: Prepared[] = [];
    const late: DiscoveredUrl[] = [];
    let lateConfirm = false;
    const forwards: Promise<void>[] = [];
    const lateSitemaps: DiscoveredUrl[] = [];
    // What screening refused is counted once the seen-set answered: a batch it refuses (a partition lost
    // or being rebuilt) comes back and is screened again.
    const tally = new Counters();
    for (const { result, links: found, confirmSeen = false } of items) {
      const { pages, refs } = splitSitemapRefs(found);
      const entry = this.hosts.get(result.host);
      const flight = entry?.inFlight;
      // A sitemap lists pages: its entries are queued as pages whatever kind they came marked with.
      const links =
        flight?.task.kind === "sitemap" ? pages.map((u) => (u.kind === undefined ? u : { ...u, kind: "page" as const })) : pages;
      if (!entry || !flight || flight.task.taskId !== result.taskId) {
        // A redelivered or late result: its host has moved on. Its links are still worth admitting.
        this.counters.add("frontier.stale-results");
        late.push(...links);
        lateSitemaps.push(...this.routeSitemaps(refs, forwards, tally));
        lateConfirm ||= confirmSeen;
        continue;
      }
      // robots.txt names the host's sitemaps; they are read only for a host the crawl has pages to fetch from.
      if (flight.task.kind === "robots" && entry.queued > 0) {
        refs.push(...robotsSitemapRefs(result, this.opts.policy.sitemaps, entry.head?.depth ?? 0));
      }
      const sitemaps = this.routeSitemaps(refs, forwards, tally);
      const candidates = this.screen(links, tally);
      const target = result.redirectTo
        ? {
            url: result.redirectTo,
            host: hostKeyOf(result.redirectTo),
            depth: flight.task.depth,
            redirectHops: flight.task.redirectHops + 1,
            sourceUrl: result.url,
            // A media file that moved is still a media file.
            ...(flight.task.kind === "media" ? { kind: "media" as const } : {}),
          }
        : undefined;
      // A target the address policy refuses is dropped here, before it could be forwarded to its owner.
      const admissible = target !== undefined && !this.refusedAddress(target, tally);
      const foreign = admissible && this.opts.forward !== undefined && !this.opts.forward.owns(target.host);
      if (foreign && target.redirectHops <= this.opts.policy.maxRedirects) forwards.push(this.opts.forward!.send([target]));
      const redirect = admissible && !foreign ? this.screen([target], tally) : [];
      // The recommit mark is taken (deleted) either way: it holds for one retry.
      const confirm = this.recommit.delete(result.url) || confirmSeen;
      prepared.push({ result, entry, flight, candidates, redirect, sitemaps, confirmSeen: confirm });
    }
    await Promise.all(forwards);
    const lateCandidates = this.screen(late, tally);
    const maybe = await this.checkSeen([...prepared.flatMap((p) => [...p.candidates, ...p.redirect]), ...lateCandidates]);
    this.countScreened(tally);
    const now = this.opts.now();
    const touched: HostEntry[] = [];
    try {
      this.opts.store.tx(() => {
        let offset = 0;
        for (const p of prepared) {
          const mine = maybe.slice(offset, offset + p.candidates.length + p.redirect.length);
          offset += mine.length;
          if (p.entry.inFlight !== p.flight) {
            // The fetch was released (lost-fetch lease) while the seen-set answered: a late result. Keep its links.
            this.counters.add("frontier.stale-results");
            this.enqueueNew([...p.candidates, ...p.redirect], mine, p.confirmSeen);
            this.offerSitemaps(p.sitemaps, now);
            continue;
          }
          this.applyResult(p, mine, now);
          this.offerSitemaps(p.sitemaps, now);
          touched.push(p.entry);
        }
        this.enqueueNew(lateCandidates, maybe.slice(offset), lateConfirm);
        this.offerSitemaps(lateSitemaps, now);
      });
    } catch (error) {
      // Nothing of the batch was committed: each page counts as fetched without a result (its URL stays
      // queued, its host waits a full gap), and its links, found again next time, are confirmed in the store
      // (their seen-set bits were set here).
      if (this.recommit.size + prepared.length > RECOMMIT_MAX) this.recommit.clear();
      for (const p of prepared) this.recommit.add(p.result.url);
      // Hosts whose flight this batch answered; a host handed out again meanwhile keeps its new flight.
      const fetched = new Set(prepared.filter((p) => !p.entry.inFlight || p.entry.inFlight === p.flight).map((p) => p.entry.key));
      const linked = new Set([...lateCandidates, ...lateSitemaps].map((u) => u.host));
      for (const p of prepared)
        for (const u of [...p.candidates, ...p.redirect, ...p.sitemaps]) if (!fetched.has(u.host)) linked.add(u.host);
      this.resetHosts(fetched, true);
      this.resetHosts(linked, false);
      this.counters.add("frontier.results-not-committed", prepared.length);
      this.writeFailed(error);
      throw error;
    }
    // Hosts go back to waiting only after the commit: a host must not be handed out again on a result
    // that could still be lost.
    for (const entry of touched) this.settle(entry);
  }

  /** One result's effect on its host and URL; runs inside completeMany's transaction. */
  private applyResult(p: Prepared, maybe: readonly boolean[], now: number): void {
    const { result, entry, flight } = p;
    // A probed /sitemap.xml that is absent is what most hosts answer: counted as such, not as a 404 (sitemap-refs.ts).
    const probe = flight.task.kind === "sitemap" && flight.sitemap !== undefined && this.isProbe(entry, flight.sitemap);
    this.countResult(result, probe && probeFoundNone(result));
    if (result.kind !== "skipped") {
      const ms = Math.max(0, result.endedAt - result.startedAt);
      this.histograms.observe("fetch.duration-seconds", ms / 1000);
      entry.fetchMs = entry.fetchMs === undefined ? ms : entry.fetchMs + FETCH_MS_WEIGHT * (ms - entry.fetchMs);
    }
    entry.inFlight = undefined;
    this.inFlightCount--;
    const robotsDelay = flight.task.kind === "robots" ? this.applyRobots(entry, result) : undefined;
    entry.state = onFetchEnd(
      entry.state,
      {
        startedAt: result.startedAt,
        endedAt: Math.max(result.endedAt, result.startedAt),
        status: result.kind === "response" ? result.status : undefined,
        error: result.kind === "network-error" ? result.error : undefined,
        retryAfter: result.retryAfter,
        crawlDelayMs: robotsDelay,
      },
      this.opts.policy,
    );
    if (entry.minGapOverrideMs > 0) {
      const at = Math.max(result.endedAt, result.startedAt) + entry.minGapOverrideMs + this.opts.policy.gapMarginMs;
      entry.state = { ...entry.state, nextAllowedAt: Math.max(entry.state.nextAllowedAt, at) };
    }
    if (result.kind === "skipped") entry.state = { ...entry.state, nextAllowedAt: Math.min(entry.state.nextAllowedAt, now) };
    // `start` read the URL's state when it handed the task out; none read means a first fetch.
    if (flight.task.kind === "sitemap" && flight.sitemap) {
      this.opts.store.sitemaps.finish(flight.sitemap, result.kind === "response" ? "read" : "failed", now);
      entry.sitemaps = Math.max(0, entry.sitemaps - 1);
      this.totalSitemaps = Math.max(0, this.totalSitemaps - 1);
      countSitemapResult(this.counters, result, probe);
    }
    // A page or a media file: both are queued URLs with a state and a schedule.
    if ((flight.task.kind === "page" || flight.task.kind === "media") && flight.item) {
      this.applyPageResult(
        entry,
        flight.item,
        result,
        now,
        p.redirect,
        maybe.slice(p.candidates.length),
        flight.prev ?? unfetchedRow(flight.item),
        p.confirmSeen,
      );
    }
    this.enqueueNew(p.candidates, maybe.slice(0, p.candidates.length), p.confirmSeen);
    this.saveHost(entry);
  }

  /**
   * Gives up a task whose result will never come (the crawl is stopping and aborted it). Its URL stays at
   * the head of the host's queue, so a resumed crawl fetches it; the host waits a full gap from now, since
   * the server may have seen the request.
   */
  abandon(task: FetchTask): void {
    const entry = this.hosts.get(task.host);
    if (!entry?.inFlight || entry.inFlight.task.taskId !== task.taskId) return;
    entry.inFlight = undefined;
    this.inFlightCount--;
    entry.state = releaseLostFetch(entry.state, this.opts.now(), this.opts.policy);
    try {
      this.opts.store.tx(() => this.saveHost(entry));
    } catch (error) {
      // The host's wait holds in memory; the store keeps an older state, which a restart treats as unclean.
      this.writeFailed(error);
      if (!isDiskFull(error)) throw error;
    }
    this.counters.add("frontier.abandoned");
    this.settle(entry);
  }

  /**
   * Releases every host whose fetch has been in flight for the whole fetch lease without a result (its fetch
   * node died and the bus did not redeliver): like `abandon`, its URL stays at the head of its queue and the
   * host waits a gap from now. Returns the released tasks.
   */
  releaseLost(now: number): FetchTask[] {
    const lost: FetchTask[] = [];
    for (const entry of this.hosts.values()) {
      if (entry.inFlight && isFetchLost(entry.state, now, this.opts.policy)) lost.push(entry.inFlight.task);
    }
    for (const task of lost) {
      this.abandon(task);
      this.counters.add("frontier.lost-fetches");
    }
    return lost;
  }

  /** Pauses or resumes a host; a fetch in flight finishes. */
  setHostPaused(host: string, paused: boolean): void {
    const entry = this.hosts.get(host) ?? this.loadHost(host);
    entry.state = setPaused(entry.state, paused);
    this.hosts.set(host, entry);
    this.opts.store.tx(() => this.saveHost(entry));
    if (paused) {
      this.waiting.remove(host);
      this.ready.remove(host);
    } else {
      this.settle(entry);
    }
  }

  /** What the frontier knows about a host, whether active or not; undefined when it never saw it (inspection.ts). */
  hostInfo(host: string): HostView | undefined {
    return hostView(this.inspected, host);
  }

  /** Active hosts, most queued first (inspection.ts). */
  listHosts(limit: number): HostView[] {
    return listHosts(this.inspected, limit);
  }

  /** The host board and politeness figures of the active hosts (host-board.ts), at most a second old. */
  hostReport(): HostReport {
    const now = this.opts.now();
    if (!this.report || now - this.report.at >= HOST_REPORT_MAX_AGE_MS || now < this.report.at)
      this.report = { at: now, value: hostReport(this.hosts.values()) };
    return this.report.value;
  }

  /** Sets an operator override of a host's minimum gap (0 clears it). */
  setHostMinGap(host: string, minGapMs: number): void {
    const entry = this.hosts.get(host) ?? this.loadHost(host);
    entry.minGapOverrideMs = Math.max(0, minGapMs);
    if (this.hosts.has(host) || entry.queued > 0) this.hosts.set(host, entry);
    this.opts.store.tx(() => this.saveHost(entry));
  }

  /** Why a normalized URL is where it is: stored state, robots verdict, trap limits (inspection.ts). */
  explainUrl(url: string, host: string): UrlView {
    return explainUrl(this.inspected, url, host);
  }

  /**
   * Whether anything may be fetched within `horizonMs` from now (`crawl` ends when not): a task in flight or
   * a host ready; a host with queued URLs that waits only for its politeness gap, however long (its URLs are
   * being crawled; the gap is part of that); a host whose robots.txt was unavailable or whose daily cap is
   * reached, when it may be asked again within the horizon; a retry or refetch due within it.
   */
  hasWorkWithin(horizonMs: number): boolean {
    const now = this.opts.now();
    if (this.inFlightCount > 0 || this.ready.size > 0) return true;
    const until = now + horizonMs;
    const due = this.opts.store.nextDueAt();
    if (due !== undefined && due <= until) return true;
    for (const entry of this.hosts.values()) {
      if ((entry.queued <= 0 && entry.sitemaps <= 0) || entry.state.paused) continue;
      const robots = this.robotsOf(entry);
      if (robots?.stored.verdict === "disallow-all" && robots.stored.expiresAt > now) {
        if (robots.stored.expiresAt <= until) return true;
      } else if (countToday(entry.pagesToday, now) >= this.opts.policy.maxPagesPerHostPerDay) {
        if (nextUtcDayStart(now) <= until) return true;
      } else {
        return true;
      }
    }
    return false;
  }

  /** What is left to do and when: the schedule, hosts waiting, hosts that could not be reached (pending.ts). */
  pending(limit = 10): PendingWork {
    return pendingWork(this.inspected, limit);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** URLs waiting in the queue (not counting scheduled retries and refetches). */
  get queued(): number {
    return this.totalQueued;
  }

  /** Sitemaps waiting to be read: work as much as queued URLs are (a crawl is not done while any wait). */
  get sitemapsPending(): number {
    return this.totalSitemaps;
  }

  /** Totals and counters; `fresh` recounts the slow-moving totals now (for a final summary). */
  snapshot(fresh = false): FrontierSnapshot {
    // Counting rows of big tables costs milliseconds; progress lines and heartbeats ask often, so the two
    // slow-moving totals are refreshed at most every few seconds.
    const now = this.opts.now();
    if (fresh || now - this.countsAt >= 5_000) {
      this.countsAt = now;
      // Known URLs: those with a state row plus those waiting in a queue without one yet (a URL re-queued for
      // a refetch has both, so this can count a few twice; it is a gauge, not an exact count).
      this.counts = { scheduled: this.opts.store.scheduledCount(), knownUrls: this.opts.store.urlCount() + this.totalQueued };
    }
    return {
      queued: this.totalQueued,
      scheduled: this.counts.scheduled,
      activeHosts: this.hosts.size,
      hostsReady: this.ready.size,
      hostsWaiting: this.waiting.size,
      inFlight: this.inFlightCount,
      knownUrls: this.counts.knownUrls,
      sitemapsPending: this.totalSitemaps,
      counters: this.counters.toJSON(),
    };
  }

  // ---- admission --------------------------------------------------------------------------------

  /**
   * Applies the address policy, the scope and filters (core/scope) and the trap limits; returns the URLs
   * worth a seen check. Every page URL that enters the frontier passes here (seeds, links, redirect targets,
   * sitemap entries), so no request is ever planned for an internal address, a local name or an empty host,
   * nor for a URL the crawl's scope leaves out; each refusal is counted by its reason.
   */
  private screen(urls: readonly DiscoveredUrl[], tally: Counters): DiscoveredUrl[] {
    const out: DiscoveredUrl[] = [];
    const batch = new Set<string>();
    for (const u of urls) {
      if (batch.has(u.url)) continue;
      batch.add(u.url);
      if (this.refusedAddress(u, tally)) continue;
      if (u.kind === "media" && !this.opts.policy.fetchMedia) {
        // Only a fetch node asked by an older task (or another policy) sends these: the policy here decides.
        tally.add("admission.rejected.fetch-media-off");
        continue;
      }
      // Media files face the scope and filters as links do, except the extension deny-list (ScopeFilter).
      const outside = this.scope.reject(u);
      if (outside) {
        tally.add(scopeCounterName(outside));
        continue;
      }
      const entry = this.hosts.get(u.host);
      const verdict = checkTrap(u.url, { hostQueued: entry?.queued ?? 0, hostPagesToday: 0 }, this.opts.policy);
      if (!verdict.ok) {
        tally.add(trapCounterName(verdict.reason));
        continue;
      }
      if (!u.isSeed) {
        const family = this.patterns.check(u.host, u.url);
        if (!family.ok) {
          tally.add(trapCounterName(family.reason));
          continue;
        }
      }
      out.push(u);
    }
    return out;
  }

  /** Whether the address policy refuses the URL's host; a refusal is counted in `tally` by its reason. */
  private refusedAddress(u: DiscoveredUrl, tally: Counters): boolean {
    const refusal = this.addresses.checkHost(u.host);
    if (refusal) tally.add(`admission.refused.${refusal.reason}`);
    return refusal !== undefined;
  }

  /** Adds what a screening refused (`tally`) to the frontier's counters. */
  private countScreened(tally: Counters): void {
    for (const [name, n] of Object.entries(tally.toJSON())) this.counters.add(name, n);
  }

  /**
   * The sitemaps worth keeping: those the address policy lets through (it also holds `--deny-hosts`) and
   * whose redirect chain is not too long, none with `--sitemaps off`. The scope does not apply: a sitemap a
   * host's robots.txt names speaks for that host wherever it lives, and its entries face the scope as links.
   */
  private screenSitemaps(refs: readonly DiscoveredUrl[], tally: Counters): DiscoveredUrl[] {
    if (refs.length === 0) return [];
    if (this.opts.policy.sitemaps === "off") {
      tally.add("sitemap.ignored-off", refs.length);
      return [];
    }
    return refs.filter((u) => {
      if (this.refusedAddress(u, tally)) return false;
      if (u.redirectHops > this.opts.policy.maxRedirects) {
        tally.add("sitemap.too-many-redirects");
        return false;
      }
      return true;
    });
  }

  /** Screens sitemap references and sends those of hosts other frontiers own to them; returns this frontier's. */
  private routeSitemaps(refs: readonly DiscoveredUrl[], forwards: Promise<void>[], tally: Counters): DiscoveredUrl[] {
    const kept = this.screenSitemaps(refs, tally);
    const forward = this.opts.forward;
    if (!forward) return kept;
    const foreign = kept.filter((u) => !forward.owns(u.host));
    if (foreign.length > 0) forwards.push(forward.send(foreign));
    return kept.filter((u) => forward.owns(u.host));
  }

  /**
   * Records sitemaps to read; one that becomes pending makes its host active (it has work even with an
   * empty queue). Runs inside a transaction. A sitemap offered again is read again when its lastmod is
   * newer than its last read, else at most every half robots.txt lifetime (the next robots.txt fetch).
   */
  private offerSitemaps(refs: readonly DiscoveredUrl[], now: number): void {
    for (const u of refs) {
      const partition = partitionOf(u.host, this.opts.partitions);
      const offer = {
        partition,
        host: u.host,
        url: u.url,
        grants: u.sitemap?.grants ?? [],
        fromIndex: u.sitemap?.fromIndex === true,
        depth: u.depth,
        hops: u.redirectHops,
        ...(u.lastmod !== undefined ? { lastmod: u.lastmod } : {}),
      };
      if (!this.opts.store.sitemaps.offer(offer, now, this.opts.policy.robotsMaxAgeMs / 2)) {
        this.counters.add("sitemap.known");
        continue;
      }
      this.counters.add("sitemap.queued");
      this.totalSitemaps++;
      if (!this.serves(partition)) continue;
      let entry = this.hosts.get(u.host);
      if (!entry) {
        entry = this.loadHost(u.host);
        this.hosts.set(u.host, entry);
      }
      entry.sitemaps++;
      this.settle(entry);
    }
  }

  /**
   * The seen-set's answers for `urls`, one call per partition. A partition being rebuilt is refused at
   * once; a partition the seen-set reports lost starts its rebuild; either rejects the whole call (after
   * every partition answered, so no call is left running) with a SeenSetLostError.
   */
  private async checkSeen(urls: readonly DiscoveredUrl[]): Promise<boolean[]> {
    if (urls.length === 0) return [];
    const byPartition = new Map<number, number[]>();
    urls.forEach((u, i) => {
      const p = partitionOf(u.host, this.opts.partitions);
      const list = byPartition.get(p);
      if (list) list.push(i);
      else byPartition.set(p, [i]);
    });
    const out = new Array<boolean>(urls.length).fill(false);
    const outcomes = await Promise.allSettled(
      [...byPartition].map(async ([p, idx]) => {
        if (this.seenRecovery.isRebuilding(p)) throw new SeenSetLostError(p, "rebuilding");
        const answers = await this.opts.seen.checkAndAdd(
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
   * of statements (enqueueMany). Runs inside a transaction.
   */
  private enqueueNew(urls: readonly DiscoveredUrl[], maybeSeen: readonly boolean[], confirmAll = false): number {
    const store = this.opts.store;
    const fresh: Array<{ u: DiscoveredUrl; home: boolean; item: Omit<QueuedUrl, "seq"> }> = [];
    urls.forEach((u, i) => {
      const home = isHomePage(u.url);
      const partition = partitionOf(u.host, this.opts.partitions);
      if (maybeSeen[i] && u.lastmod !== undefined) {
        // A sitemap entry with a lastmod: a page already fetched that changed since is due at once.
        const row = store.getUrl(partition, u.url);
        if (row || store.isQueued(partition, u.host, u.url)) {
          if (row) this.dueIfChanged(row, u.lastmod);
          this.counters.add("seen.skipped");
          return;
        }
        this.counters.add("seen.bloom-false-positive-caught");
      } else if (maybeSeen[i]) {
        if (!(u.isSeed || home || this.opts.confirmAllSeen || confirmAll) || this.knownHomePages.has(u.url)) {
          this.counters.add("seen.skipped");
          return;
        }
        if (store.isKnown(partition, u.host, u.url)) {
          if (home) this.rememberHomePage(u.url);
          this.counters.add("seen.skipped");
          return;
        }
        this.counters.add("seen.bloom-false-positive-caught");
      }
      const kind = u.kind === "media" ? "media" : "page";
      // A sitemap's priority places its entries (a home page stays first whatever it says; sitemap entries
      // are pages, so a media file never has one).
      const priority =
        (home || kind === "media" ? undefined : levelOfSitemapPriority(u.sitemapPriority)) ??
        admissionPriority({ isHomePage: home, depth: u.depth, kind, foundOnNearDuplicate: u.foundOnNearDuplicate }, this.opts.policy);
      fresh.push({ u, home, item: { host: u.host, partition, priority, url: u.url, depth: u.depth, hops: u.redirectHops, kind } });
    });
    if (fresh.length === 0) return 0;
    store.logAdmittedMany(fresh.map((f) => f.u.url));
    const seqs = store.enqueueMany(fresh.map((f) => f.item));
    fresh.forEach(({ u, home, item }, i) => {
      if (home) this.rememberHomePage(u.url);
      this.afterEnqueue(item, seqs[i]);
      if (!u.isSeed) this.patterns.add(u.host, u.url);
    });
    store.saveSeq();
    this.counters.add("frontier.admitted", fresh.length);
    return fresh.length;
  }

  /**
   * A fetched page whose sitemap lastmod is newer than its last fetch is due now rather than at its
   * planned refetch, at the first level (the site says it changed). Runs inside a transaction.
   */
  private dueIfChanged(row: UrlRow, lastmod: number): void {
    if ((row.state !== "fetched" && row.state !== "duplicate") || row.lastFetchedAt <= 0 || lastmod <= row.lastFetchedAt) return;
    const now = this.opts.now();
    const due = this.opts.store.scheduledAt(row.partition, row.url);
    if (due === undefined || due <= now) return;
    // A sitemap lists pages: what it names is due again as a page.
    this.opts.store.schedule({
      dueAt: now,
      url: row.url,
      host: row.host,
      partition: row.partition,
      priority: 1,
      depth: row.depth,
      kind: "page",
    });
    this.dueReadAt = -Infinity;
    this.lastDuePump = 0;
    this.counters.add("sitemap.lastmod-due");
  }

  /**
   * Home pages known to be admitted, so the exact confirmation of a Bloom "maybe" for a home page (linked
   * from nearly every page of its site) is a Set lookup, not a store read. Bounded: cleared when full,
   * after which the store answers again.
   */
  private rememberHomePage(url: string): void {
    if (this.knownHomePages.size >= KNOWN_HOME_PAGES_MAX) this.knownHomePages.clear();
    this.knownHomePages.add(url);
  }

  private pushToQueue(item: Omit<QueuedUrl, "seq">): void {
    this.afterEnqueue(item, this.opts.store.enqueue(item));
  }

  /** A URL's place in memory once the store has queued it (`seq` undefined: it was not added). */
  private afterEnqueue(item: Omit<QueuedUrl, "seq">, seq: number | undefined): void {
    if (seq === undefined) return;
    this.queuedAt.mark(seq, this.opts.now());
    this.totalQueued++;
    // URLs of partitions this node does not serve (yet) wait in the store; their hosts stay out of memory.
    if (!this.serves(item.partition)) return;
    let entry = this.hosts.get(item.host);
    if (!entry) {
      entry = this.loadHost(item.host);
      this.hosts.set(item.host, entry);
    }
    entry.queued++;
    if (entry.head && item.priority < entry.head.priority) entry.head = undefined;
    if (!entry.head && entry.queued === 1) entry.head = { ...item, seq };
    this.settle(entry);
  }

  private enforceSizeLimit(): void {
    const excess = this.totalQueued - this.opts.maxQueued;
    if (excess <= 0) return;
    this.opts.store.tx(() => {
      for (const d of this.opts.store.dropLowestPriority(excess)) {
        const entry = this.hosts.get(d.host);
        if (entry) {
          entry.queued--;
          if (entry.head?.url === d.url) entry.head = undefined;
        }
        this.totalQueued--;
        this.patterns.remove(d.host, d.url);
        this.counters.add("frontier.dropped-size-limit");
      }
    });
  }

  /** Moves retries and refetches whose time has come back into their host queues. */
  private pumpDue(now: number): void {
    if (now - this.lastDuePump < 1000) return;
    this.lastDuePump = now;
    const due = this.opts.store.nextDueAt();
    if (due === undefined || due > now) return;
    const hosts = new Set<string>();
    try {
      this.opts.store.tx(() => {
        for (const s of this.opts.store.takeDue(now, 10_000)) {
          hosts.add(s.host);
          this.opts.store.setUrlState(s, "queued");
          this.pushToQueue({
            host: s.host,
            partition: s.partition,
            priority: s.priority,
            url: s.url,
            depth: s.depth,
            hops: 0,
            kind: s.kind,
          });
          this.counters.add("frontier.rescheduled");
        }
        this.opts.store.saveSeq();
      });
    } catch (error) {
      this.resetHosts(hosts, false);
      if (!isDiskFull(error)) throw error;
      this.noteDiskFull(error); // the due URLs stay scheduled: taken again once there is room
    }
  }

  // ---- dispatch ---------------------------------------------------------------------------------

  /** A host's gap has passed: file it under the priority of its next URL. */
  private promote(host: string): void {
    const entry = this.hosts.get(host);
    if (!entry) return;
    const head = this.headOf(entry);
    if (!head && entry.sitemaps <= 0) return this.settle(entry);
    // A host with a sitemap to read goes at least to level 2: its sitemap may hold its best pages.
    this.ready.push(host, head && (entry.sitemaps <= 0 || head.priority === 1) ? head.priority : 2);
  }

  private taskFor(host: string, now: number): FetchTask | undefined {
    const entry = this.hosts.get(host);
    if (!entry || entry.inFlight || entry.state.paused) return undefined;
    if (countToday(entry.pagesToday, now) >= this.opts.policy.maxPagesPerHostPerDay) {
      this.counters.add("frontier.host-daily-cap-waits");
      this.waiting.push(host, nextUtcDayStart(now));
      return undefined;
    }
    let head = this.headOf(entry);
    // Sitemaps are read before the host's pages, its home page aside (the way in, and often what names them).
    let sitemap = head && isHomePage(head.url) ? undefined : this.nextSitemap(entry);
    if (!head && !sitemap) return void this.settle(entry);
    const robots = this.robotsOf(entry);
    if (!robots || robots.stored.expiresAt <= now) {
      return this.start(entry, "robots", `${originOf((head ?? sitemap)!.url)}/robots.txt`, now);
    }
    if (robots.stored.verdict === "disallow-all") {
      // robots.txt was unavailable (5xx or unreachable): nothing may be fetched until it is read again.
      this.counters.add("robots.host-parked");
      this.waiting.push(host, robots.stored.expiresAt);
      return undefined;
    }
    // A sitemap is a request like any other: robots.txt may forbid it, and then it is never read.
    while (sitemap && robots.policy && !robots.policy.isAllowed(urlPathAndQuery(sitemap.url))) {
      const forbidden = sitemap;
      this.opts.store.tx(() => this.opts.store.sitemaps.finish(forbidden, "disallowed", now));
      entry.sitemaps = Math.max(0, entry.sitemaps - 1);
      this.totalSitemaps = Math.max(0, this.totalSitemaps - 1);
      this.counters.add("robots.disallowed-sitemaps");
      sitemap = this.nextSitemap(entry);
    }
    if (sitemap) return this.start(entry, "sitemap", sitemap.url, now, undefined, sitemap);
    if (!head) return void this.settle(entry);
    for (let skipped = 0; head && robots.policy && skipped < HEAD_SKIP_LIMIT; skipped++) {
      if (robots.policy.isAllowed(urlPathAndQuery(head.url))) break;
      this.opts.store.tx(() => {
        this.opts.store.dequeue(head!);
        this.opts.store.setUrlState(head!, "robots-disallowed");
      });
      this.counters.add("robots.disallowed");
      this.afterDequeue(entry, head);
      head = this.headOf(entry);
    }
    if (!head) return void this.settle(entry);
    if (robots.policy && !robots.policy.isAllowed(urlPathAndQuery(head.url))) {
      this.ready.push(host, head.priority);
      return undefined;
    }
    return this.start(entry, head.kind, head.url, now, head);
  }

  private start(entry: HostEntry, kind: TaskKind, url: string, now: number, item?: QueuedUrl, sitemap?: SitemapRow): FetchTask {
    this.observeWaits(entry, now, item);
    entry.state = onFetchStart(entry.state, now);
    const prev = item ? this.opts.store.getUrl(item.partition, item.url) : undefined;
    const task: FetchTask = {
      taskId: this.opts.newTaskId(),
      kind,
      url,
      host: entry.key,
      partition: entry.partition,
      depth: item?.depth ?? sitemap?.depth ?? 0,
      redirectHops: item?.hops ?? sitemap?.hops ?? 0,
      etag: prev?.etag ?? undefined,
      lastModified: prev?.lastModified ?? undefined,
      previousFingerprint: prev?.fingerprint ?? undefined,
      hostGapMs: Math.ceil(Math.max(this.opts.policy.minGapMs, entry.state.gapMs)) + this.opts.policy.gapMarginMs,
      issuedAt: now,
      ...(sitemap ? { sitemap: { grants: sitemap.grants, ...(sitemap.fromIndex ? { fromIndex: true } : {}) } } : {}),
    };
    if (kind === "page" && this.opts.policy.fetchMedia) task.fetchMedia = true;
    entry.inFlight = { task, item, prev, sitemap };
    this.inFlightCount++;
    this.counters.add(`frontier.tasks.${kind}`);
    return task;
  }

  /** The gap wait and queue wait of a task handed out now (see the module comment). */
  private observeWaits(entry: HostEntry, now: number, item: QueuedUrl | undefined): void {
    const since = entry.workSince;
    entry.workSince = undefined;
    if (since !== undefined && entry.state.nextAllowedAt > since)
      this.histograms.observe("politeness.gap-wait-seconds", (entry.state.nextAllowedAt - since) / 1000);
    if (item === undefined) return;
    const queuedAt = this.queuedAt.queuedAt(item.seq);
    if (queuedAt !== undefined) this.histograms.observe("frontier.queue-wait-seconds", Math.max(0, now - queuedAt) / 1000);
  }

  // ---- results ----------------------------------------------------------------------------------

  private applyRobots(entry: HostEntry, result: FetchResult): number {
    const verdict = result.robots?.verdict ?? (result.kind === "network-error" ? "disallow-all" : "allow-all");
    const fetchedAt = result.endedAt;
    const stored = {
      verdict,
      body: verdict === "parse" ? (result.robots?.text ?? "") : undefined,
      fetchedAt,
      expiresAt: robotsExpiresAt(fetchedAt, verdict, this.opts.policy.robotsMaxAgeMs),
    };
    this.opts.store.saveRobots(entry.key, entry.partition, stored);
    entry.robots = { stored, policy: compileRobots(stored, this.opts.policy.userAgent) };
    this.counters.add(`robots.verdict.${verdict}`);
    return entry.robots.policy?.crawlDelayMs ?? 0;
  }

  private applyPageResult(
    entry: HostEntry,
    item: QueuedUrl,
    result: FetchResult,
    now: number,
    redirect: DiscoveredUrl[],
    redirectMaybe: boolean[],
    prev: UrlRow,
    confirmSeen: boolean,
  ): void {
    const store = this.opts.store;
    // The state read when the task was handed out: only this frontier writes it while the host is in flight.
    const outcome = decideUrlOutcome(prev, result, { now, isHomePage: isHomePage(item.url), redirectHops: item.hops }, this.opts.policy);
    store.recordFetch(outcome.row);
    for (const c of outcome.counters) this.counters.add(c);
    if (outcome.dequeue) {
      store.dequeue(item);
      this.afterDequeue(entry, item);
    }
    if (outcome.reschedule)
      store.schedule({
        ...outcome.reschedule,
        url: item.url,
        host: item.host,
        partition: item.partition,
        depth: item.depth,
        kind: item.kind,
      });
    if (outcome.redirectTo && redirect.length > 0) this.enqueueNew(redirect, redirectMaybe, confirmSeen);
    if (result.kind === "response") entry.pagesToday = bumpDaily(entry.pagesToday, now);
  }

  private afterDequeue(entry: HostEntry, item: QueuedUrl): void {
    entry.queued--;
    this.totalQueued--;
    if (entry.head && entry.head.seq === item.seq && entry.head.priority === item.priority) entry.head = undefined;
    this.patterns.remove(entry.key, item.url);
  }

  /** Counts a result under `fetch.`; `quiet`: a probe that found no sitemap, counted by sitemap-refs.ts alone. */
  private countResult(result: FetchResult, quiet = false): void {
    if (result.kind === "response") {
      if (!quiet) this.counters.add(`fetch.status.${result.status}`);
      if (result.taskKind === "page") this.counters.add("fetch.pages");
      if (result.bytes > 0) {
        this.counters.add("fetch.bytes", result.bytes);
        if (result.taskKind === "page") this.histograms.observe("fetch.page-bytes", result.bytes);
      }
      if (result.taskKind === "media") this.counters.add("fetch.media");
      if (result.mediaFound) this.counters.add("content.media-listed", result.mediaFound);
      if (result.note) this.counters.add(`fetch.note.${noteKind(result.note)}`);
    } else {
      // A skip names the address rule that refused it: fetch.skipped.blocked-address.loopback.
      const reason = result.kind === "skipped" && result.refusal ? `.${result.refusal}` : "";
      this.counters.add(`fetch.${result.kind}.${result.error}${reason}`);
    }
    if (result.duplicateOf) this.counters.add("content.exact-duplicates");
    if (result.nearDuplicateOf) this.counters.add("content.near-duplicates");
  }

  // ---- host bookkeeping -------------------------------------------------------------------------

  /** Puts a host where it belongs: waiting for its time, or forgotten when it has nothing to do. */
  private settle(entry: HostEntry): void {
    if (entry.inFlight) return;
    if (!this.serves(entry.partition)) {
      // Its partition was given up while the fetch was in flight: its queue stays in the store for the handoff.
      this.waiting.remove(entry.key);
      this.ready.remove(entry.key);
      this.hosts.delete(entry.key);
      return;
    }
    if (entry.state.paused) return;
    if (entry.queued <= 0 && entry.sitemaps <= 0) {
      entry.queued = 0;
      this.waiting.remove(entry.key);
      this.ready.remove(entry.key);
      this.hosts.delete(entry.key);
      return;
    }
    if (!this.ready.has(entry.key)) this.makeWaiting(entry);
  }

  private makeWaiting(entry: HostEntry): void {
    if (entry.state.paused) return;
    if (entry.workSince === undefined) entry.workSince = this.opts.now();
    this.waiting.push(entry.key, entry.state.nextAllowedAt);
  }

  private headOf(entry: HostEntry): QueuedUrl | undefined {
    if (!entry.head) entry.head = this.opts.store.head(entry.partition, entry.key);
    if (!entry.head) entry.queued = 0;
    return entry.head;
  }

  /** Whether a sitemap row of the host is its probed /sitemap.xml (sitemap-refs.ts). */
  private isProbe(entry: HostEntry, row: SitemapRow): boolean {
    const robots = this.robotsOf(entry)?.stored;
    return isSitemapProbe(row, robots?.verdict === "parse" ? (robots.body ?? "") : undefined);
  }

  /** The host's next sitemap to read, if it has one pending (its count is put right when the store has none). */
  private nextSitemap(entry: HostEntry): SitemapRow | undefined {
    if (entry.sitemaps <= 0) return undefined;
    const row = this.opts.store.sitemaps.next(entry.partition, entry.key);
    if (!row) entry.sitemaps = 0;
    return row;
  }

  private robotsOf(entry: HostEntry): HostEntry["robots"] {
    if (!entry.robots) {
      const stored = this.opts.store.loadRobots(entry.key);
      if (stored) entry.robots = { stored, policy: compileRobots(stored, this.opts.policy.userAgent) };
    }
    return entry.robots;
  }

  /**
   * A host as the store has it. A state another run saved (this store before a restart, clean or kill -9;
   * another node before a partition handoff) waits its last gap from now: its times are on another clock,
   * and a request may have been in flight when it was saved, its result lost. So does a host with no saved
   * state when `queuedBefore` (its URLs or sitemaps were queued before this run: its first request may have been in
   * flight, robots.txt or a page, when the last run died). Every request another run made ended before now
   * (the process is gone, or the old owner had nothing of the partition in flight when it handed it over),
   * so a gap from now is a gap from each of them.
   */
  private loadHost(host: string, queuedBefore = false): HostEntry {
    const saved = this.opts.store.loadHost(host);
    let state = saved?.state ?? newHostState();
    if (saved ? saved.run !== this.run : queuedBefore) {
      const now = this.opts.now();
      state = releaseLostFetch({ ...state, inFlight: true, inFlightSince: now }, now, this.opts.policy);
    }
    return {
      key: host,
      partition: partitionOf(host, this.opts.partitions),
      state,
      queued: 0,
      sitemaps: 0,
      pagesToday: saved?.pagesToday ?? null,
      minGapOverrideMs: saved?.minGapOverrideMs ?? 0,
    };
  }

  private saveHost(entry: HostEntry): void {
    const persisted: PersistedHost = {
      state: entry.state,
      pagesToday: entry.pagesToday,
      minGapOverrideMs: entry.minGapOverrideMs,
      run: this.run,
    };
    this.opts.store.saveHost(entry.key, entry.partition, persisted);
  }
}

function compileRobots(stored: { verdict: string; body?: string }, userAgent: string) {
  return stored.verdict === "parse" ? policyFor(parseRobots(stored.body ?? ""), userAgent) : undefined;
}

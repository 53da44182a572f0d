/**
 * What the frontier's parts share: the options it was built with, the policy objects admission applies
 * (address policy, scope and filters, URL-pattern traps), the active hosts in memory with the heap of those
 * waiting for their time and the front queues of those ready, and the running totals. Each part
 * (admission.ts, scheduling.ts, results.ts, ...) gets this one object and keeps nothing of another's, so a
 * part never needs a reference back to the Frontier or to a part that uses it.
 *
 * Memory: one HostEntry per active host in memory (a host with queued URLs, sitemaps to read or a fetch in
 * flight, at most `warmHosts` of them besides those in flight; host-entry.ts), in the map, the waiting heap
 * or a ready queue; the URL-pattern tracker's counts per host;
 * up to KNOWN_HOME_PAGES_MAX home-page URLs; a queue time per queued seq, to about a second (seq-clock.ts).
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { Key53Set } from "../../core/hash/index.ts";
import { AddressPolicy } from "../../core/net/index.ts";
import { WaitingHostHeap } from "../../core/politeness/index.ts";
import type { Log, SeenSet } from "../../core/ports/index.ts";
import { ScopeFilter, ScopeRoots } from "../../core/scope/index.ts";
import type { FetchResult } from "../../core/model/index.ts";
import { JobBudgets, type JobBudgetsOptions } from "./job-budgets.ts";
import { JobGate } from "./job-gate.ts";
import { RenderRules } from "../../core/render/index.ts";
import { Counters, Histograms } from "../../core/stats/index.ts";
import { UrlPatternTracker } from "../../core/traps/index.ts";
import type { HostEntry } from "./host-entry.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { KeyGate } from "./key-gate.ts";
import { ReadyQueues } from "./ready-queues.ts";
import { SeqClock } from "./seq-clock.ts";
import type { FrontierStore } from "./store/frontier-store.ts";

export interface FrontierOptions {
  store: FrontierStore;
  seen: SeenSet;
  policy: PolicyConfig;
  /** Fixed partition count P: partition = hash(host) mod P. */
  partitions: number;
  /**
   * Most URLs kept queued; beyond it the lowest-priority URLs are dropped. Absent or 0: no limit, and the
   * store keeps no index of the queue by priority for it (admission.ts).
   */
  maxQueued?: number;
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
  /**
   * The feed of fetched pages (core/feed): given every page or media result of a batch, with its job's id,
   * before the batch's transaction, and awaited; a rejection fails the batch (its results come again, and
   * the feed drops what it already has by the task id). Absent: no feed.
   */
  feed?: (items: ReadonlyArray<{ result: FetchResult; job: string }>) => Promise<void>;

  /**
   * Cluster mode: whether a fetch node that renders is live in the region (frontier-node/node/fetchers-watch.ts);
   * while none is, no task asks for rendering. Absent: the process renders itself (embedded mode).
   */
  renderAvailable?: () => boolean;
  /**
   * The page budgets of jobs with maxPages (job-budgets.ts): absent, jobs' page tasks are not budgeted (their
   * maxPages is then enforced only by the job's end). `crawl` passes a MemoryJobBudget, a frontier node the
   * cluster's (NatsKvJobBudget) with its node id as the holder.
   */
  budget?: Omit<JobBudgetsOptions, "now">;
  /** Where the seen-set's losses and rebuilds are told (seen-recovery.ts); default: not logged. */
  log?: Log;
  /**
   * Hosts kept in memory at most (besides those with a fetch in flight); past it, hosts with work wait in
   * the store by due time and are warmed as room is made (active-hosts.ts). Default WARM_HOSTS (100,000).
   */
  warmHosts?: number;
  /**
   * Active hosts past which a host keeps its queue head and robots.txt in memory only while it has a fetch
   * in flight (active-hosts.ts). Default HOT_HOSTS (50,000); tests set it low to drive the lean path.
   */
  hotHosts?: number;
}

export class FrontierState {
  readonly store: FrontierStore;
  readonly policy: PolicyConfig;
  readonly counters: Counters;
  readonly histograms: Histograms;
  /** The active hosts (host-entry.ts says which are kept). */
  readonly hosts = new Map<string, HostEntry>();
  /** Hosts not ready yet, each until its time (gap, daily cap, robots.txt retry). */
  readonly waiting = new WaitingHostHeap();
  /** Hosts ready now, by the priority of their next URL (the front queues). */
  readonly ready = new ReadyQueues();
  readonly patterns: UrlPatternTracker;
  readonly addresses: AddressPolicy;
  readonly scope: ScopeFilter;
  /** Which pages are rendered (--render and its rules); with the host's render memory, the task's ask. */
  readonly render: RenderRules;
  /** When each queued seq was queued, for the queue-wait histogram. */
  readonly queuedAt = new SeqClock();
  /**
   * Home pages known to be admitted, so confirming a Bloom "maybe" for a home page (linked from nearly
   * every page of its site) is a Set lookup, not a store read; cleared when full, or when a rolled-back
   * transaction may have admitted some of them. Kept as 53-bit hashes of the URLs (core/hash key53) in a
   * Key53Set: 11-21 bytes a page (a Set of numbers took about 40, of strings 110); a home page sharing a hash
   * with a known one (about 1 in 18 billion lookups at the cap) would be taken for known and not confirmed.
   */
  readonly knownHomePages = new Key53Set();
  /**
   * This frontier's run: saved with every host state, so a state saved by another run (this store before
   * a restart, another node before a handoff) is known for what it is: times from another clock, and
   * perhaps not the last word on a request that was in flight (see ActiveHosts.load).
   */
  readonly run = crypto.randomUUID();
  /** Which crawl jobs' URLs may be handed out (job-gate.ts). */
  readonly jobs: JobGate;
  /** One request at a time and one gap per politeness key, when hosts share keys (key-gate.ts). */
  readonly keyGate: KeyGate;
  /** The page budgets held here (job-budgets.ts); undefined when none is wired. */
  readonly budgets: JobBudgets | undefined;
  inFlightCount = 0;
  /** Hosts with work kept in the store, not in memory (active-hosts.ts, store/cold-host-table.ts). */
  coldHosts = 0;
  totalQueued: number;
  totalSitemaps: number;
  /** Partitions this frontier serves; undefined: every partition (embedded mode). */
  serving: Set<number> | undefined;
  draining = false;
  /** When due retries and refetches were last moved into the queues (at most once a second). */
  lastDuePump = 0;
  /** When the earliest due time was last read, and what it was (undefined: nothing scheduled). */
  dueReadAt = -Infinity;
  dueAt: number | undefined;

  constructor(readonly opts: FrontierOptions) {
    this.store = opts.store;
    this.policy = opts.policy;
    this.counters = opts.counters ?? new Counters();
    this.histograms = opts.histograms ?? new Histograms();
    this.patterns = new UrlPatternTracker(opts.policy);
    this.addresses = AddressPolicy.of(opts.policy);
    const roots = new ScopeRoots();
    roots.add(opts.store.scopeRoots.list());
    this.scope = new ScopeFilter(opts.policy, roots);
    this.jobs = new JobGate(opts.policy);
    this.keyGate = new KeyGate(this);
    this.budgets = opts.budget ? new JobBudgets(this.jobs, { now: () => opts.now(), ...opts.budget }) : undefined;
    this.render = new RenderRules(opts.policy.render, opts.policy.renderRules);
    this.totalQueued = opts.store.totalQueued();
    this.totalSitemaps = opts.store.sitemaps.pendingTotal();
    this.serving = opts.serving === undefined ? undefined : new Set(opts.serving);
  }

  now(): number {
    return this.opts.now();
  }

  /**
   * The partition of a host: its politeness key's (core/addressing hostPartition, with the key gate's memo of
   * domains), so every host of a key is in one partition and the key's one request at a time is kept here.
   */
  partitionOf(host: string): number {
    return partitionOf(this.keyGate.keys.of(host), this.opts.partitions);
  }

  /** Whether this frontier serves partition p. */
  serves(p: number): boolean {
    return this.serving === undefined || this.serving.has(p);
  }

  /** Reads the totals from the store again, after rows changed behind the frontier's back or rolled back. */
  recount(): void {
    this.totalQueued = this.store.totalQueued();
    this.totalSitemaps = this.store.sitemaps.pendingTotal();
    // Scope roots may have come with the partition (a handoff, a rebuild from the replica).
    this.scope.roots.add(this.store.scopeRoots.list());
  }

  /** A URL was scheduled sooner than the schedule's earliest time known here: read it and pump again now. */
  scheduleMovedEarlier(): void {
    this.dueReadAt = -Infinity;
    this.lastDuePump = 0;
  }
}

/**
 * The frontier: which URL is fetched next, and when. The same class runs inside `crawl` (embedded mode) and
 * inside each frontier node of a cluster; only the SeenSet and the transport around it differ. It composes
 * parts with one job each, which share one FrontierState (frontier-state.ts), in the order a URL meets them
 * (the steps of docs/architecture.md's "Data flow"):
 *
 *   1. seed      `addSeeds`: an operator's URLs, admitted as in 2 past the depth limit; their hosts become
 *                roots of the scope (admission.ts).
 *   2. admit     `admit`: screened (screening.ts: address policy, scope and filters, traps), asked of the
 *                seen-set, the new ones queued per host in the store (admission.ts); sitemap references
 *                kept per host (host-sitemaps.ts).
 *   3. schedule  `nextTasks`: hosts whose gap has passed, best front queue first, one task in flight per
 *                host, robots.txt first, then sitemaps, then pages; due retries and refetches back into
 *                their queues (scheduling.ts).
 *   4-6. fetch, parse, store: the fetch path (engine/fetch), in this process or in a fetch node.
 *   7. results   `completeMany`: a batch of results in one transaction: the host's politeness state and
 *                robots.txt, the URL's retry or refetch schedule, sitemaps read (results.ts, result-effects.ts);
 *                `abandon` and `releaseLost` give up tasks whose result never comes.
 *   8. links     the links a result found and its redirect target, admitted as in 2 in the same transaction.
 *
 * Around the flow: the active hosts in memory (active-hosts.ts), the partitions served (partitions.ts), a
 * full disk pausing the tasks (disk-full.ts), seen-set partitions a cache lost rebuilt from the store
 * (seen-recovery.ts), and what the frontier reports about itself (reports.ts: the snapshot, pending work,
 * the host board, host and URL inspection). Its histograms are recorded where their events happen:
 * `frontier.queue-wait-seconds` and `politeness.gap-wait-seconds` by scheduling.ts, `fetch.duration-seconds`
 * and `fetch.page-bytes` by result-effects.ts; each module's header says what is observed.
 */
import type { JobCounts, JobRecord } from "../../core/jobs/index.ts";
import { JobControl } from "./job-control.ts";
import type { Capture } from "../../core/captures/index.ts";
import type { HostReport } from "../../core/dashboard/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import type { Counters, Histograms } from "../../core/stats/index.ts";
import { ActiveHosts } from "./active-hosts.ts";
import { Admission } from "./admission.ts";
import { DiskWatch } from "./disk-full.ts";
import { FrontierState, type FrontierOptions } from "./frontier-state.ts";
import { HostSitemaps } from "./host-sitemaps.ts";
import type { HostView, UrlView } from "./inspection.ts";
import { Partitions } from "./partitions.ts";
import type { PendingWork } from "./pending.ts";
import { Reports, type FrontierSnapshot } from "./reports.ts";
import { Results, type ResultItem } from "./results.ts";
import { Scheduling } from "./scheduling.ts";
import { Screening } from "./screening.ts";
import { SeenRecovery } from "./seen-recovery.ts";

export type { FrontierOptions } from "./frontier-state.ts";
export type { FrontierSnapshot } from "./reports.ts";
export type { ResultItem } from "./results.ts";

export class Frontier {
  readonly counters: Counters;
  readonly histograms: Histograms;
  private readonly state: FrontierState;
  private readonly hosts: ActiveHosts;
  private readonly partitions: Partitions;
  private readonly seenRecovery: SeenRecovery;
  private readonly disk: DiskWatch;
  private readonly admission: Admission;
  private readonly scheduling: Scheduling;
  private readonly results: Results;
  private readonly reports: Reports;
  private readonly jobControl: JobControl;

  constructor(opts: FrontierOptions) {
    const state = new FrontierState(opts);
    this.state = state;
    this.counters = state.counters;
    this.histograms = state.histograms;
    this.seenRecovery = new SeenRecovery({
      seen: opts.seen,
      store: opts.store,
      counters: state.counters,
      serves: (p) => state.serves(p),
      log: opts.log,
      now: () => opts.now(),
    });
    this.hosts = new ActiveHosts(state);
    this.disk = new DiskWatch(state);
    const screening = new Screening(state);
    const sitemaps = new HostSitemaps(state, this.hosts, screening);
    this.admission = new Admission(state, this.hosts, screening, sitemaps, this.seenRecovery, this.disk);
    this.scheduling = new Scheduling(state, this.hosts, sitemaps, this.disk);
    this.results = new Results(state, this.hosts, screening, sitemaps, this.admission, this.seenRecovery, this.disk);
    this.reports = new Reports(state, this.hosts);
    this.jobControl = new JobControl(state, this.hosts);
    this.partitions = new Partitions(state, this.hosts, this.seenRecovery);
    this.partitions.loadServed();
  }

  // ---- 1-2. seed and admit (admission.ts) -------------------------------------------------------

  /** Admits seeds: normalized URLs an operator asked for. They bypass the depth limit. */
  async addSeeds(urls: readonly DiscoveredUrl[]): Promise<number> {
    return this.admission.admit(urls.map((u) => ({ ...u, isSeed: true, depth: 0 })));
  }

  /**
   * Admits discovered URLs: screening, seen-set, durable queue; returns how many were new. With
   * `confirmSeen` every "maybe seen" is confirmed in the store: for URLs that come a second time (a message
   * redelivered, or after a crash), whose bits the first attempt may have set in the seen-set without the
   * store ever committing them. Rejects with SeenSetLostError, admitting nothing, when the seen-set lost a
   * partition of these URLs (which is then rebuilt: seen-recovery.ts).
   */
  admit(urls: readonly DiscoveredUrl[], opts: { confirmSeen?: boolean } = {}): Promise<number> {
    return this.admission.admit(urls, opts);
  }

  /** Adds hosts other frontiers recorded as roots of the scope; returns those that were new here. */
  addScopeRoots(hosts: Iterable<string>): string[] {
    return this.admission.addScopeRoots(hosts);
  }

  // ---- 3. schedule (scheduling.ts) --------------------------------------------------------------

  /** Hands out up to `max` fetch tasks for hosts that may be fetched now. */
  nextTasks(max: number): FetchTask[] {
    return this.scheduling.nextTasks(max);
  }

  /** When the next host becomes ready (for the dispatcher's sleep); undefined when none is waiting. */
  nextWakeAt(): number | undefined {
    return this.scheduling.nextWakeAt();
  }

  /** Stops handing out tasks (drain); results of tasks in flight are still applied. */
  drain(): void {
    this.state.draining = true;
  }

  get isDraining(): boolean {
    return this.state.draining;
  }

  // ---- 7-8. results and the links they found (results.ts) ---------------------------------------

  /** Applies a fetch result and admits the links it found, then frees the host for its next fetch. */
  async complete(result: FetchResult, links: readonly DiscoveredUrl[]): Promise<void> {
    return this.results.completeMany([{ result, links }]);
  }

  /**
   * Applies many results, and admits the links they found, in one transaction (group commit). A result is
   * not durable until its batch commits; a crash before that refetches the page, as if it had been in flight.
   */
  completeMany(items: readonly ResultItem[]): Promise<void> {
    return this.results.completeMany(items);
  }

  /** Gives up a task whose result will never come (the crawl is stopping); its URL stays queued. */
  abandon(task: FetchTask): void {
    this.results.abandon(task);
  }

  /** Releases every host whose fetch outlived the fetch lease without a result; returns the released tasks. */
  releaseLost(now: number): FetchTask[] {
    return this.results.releaseLost(now);
  }

  // ---- operators' controls (active-hosts.ts) ----------------------------------------------------

  /** Pauses or resumes a host; a fetch in flight finishes. */
  setHostPaused(host: string, paused: boolean): void {
    this.hosts.setPaused(host, paused);
  }

  /** Sets an operator override of a host's minimum gap (0 clears it). */
  setHostMinGap(host: string, minGapMs: number): void {
    this.hosts.setMinGap(host, minGapMs);
  }

  // ---- partitions served (partitions.ts) and their seen-sets (seen-recovery.ts) -----------------

  /** Serves exactly these partitions from now on. Partitions given up must have nothing in flight. */
  setServing(partitions: Iterable<number>): void {
    this.partitions.setServing(partitions);
  }

  /** A host's partition: its politeness key's (core/addressing hostPartition). */
  partitionOf(host: string): number {
    return this.state.partitionOf(host);
  }

  /** Whether this frontier serves partition p. */
  serves(p: number): boolean {
    return this.state.serves(p);
  }

  /** Tasks in flight for hosts of partition p (a handoff waits for zero). */
  inFlightIn(p: number): number {
    return this.partitions.inFlightIn(p);
  }

  /** Recounts the queue after partitions were imported or deleted behind the frontier's back. */
  recount(): void {
    this.state.recount();
  }

  /** Partition p was rebuilt in the store from its replica after its holder was lost at `lostAt`; called before p is served. */
  restored(p: number, lostAt: number): void {
    this.partitions.restored(p, lostAt);
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

  // ---- a full disk (disk-full.ts) ---------------------------------------------------------------

  /** True while writes fail for a full disk: no task is handed out until a probe write succeeds. */
  get diskFull(): boolean {
    return this.disk.full;
  }

  /** Notes a write that failed for a full disk somewhere else (a WARC file on the same disk): tasks stop until there is room. */
  noteDiskFull(error: unknown): void {
    this.disk.noteFull(error);
  }

  // ---- what it reports (reports.ts) -------------------------------------------------------------

  /** What the frontier knows about a host, whether active or not; undefined when it never saw it (inspection.ts). */
  hostInfo(host: string): HostView | undefined {
    return this.reports.hostInfo(host);
  }

  /** Active hosts, most queued first (inspection.ts). */
  listHosts(limit: number): HostView[] {
    return this.reports.listHosts(limit);
  }

  /** Why a normalized URL is where it is: stored state, robots verdict, trap limits (inspection.ts). */
  explainUrl(url: string, host: string): UrlView {
    return this.reports.explainUrl(url, host);
  }

  /** Where a normalized URL's last captures are stored, newest first; [] when it has none (core/captures). */
  urlCaptures(url: string, host: string): Capture[] {
    return this.reports.urlCaptures(url, host);
  }

  /** The host board and politeness figures of the active hosts (host-board.ts), at most a second old. */
  hostReport(): HostReport {
    return this.reports.hostReport();
  }

  /**
   * A crawl job's record as last written: a paused or ended job's URLs are held back, a cancelled job's
   * queued URLs dropped (job-control.ts), a job's own scope settings judge its links (screening.ts).
   * Returns how many URLs were dropped.
   */
  setJob(job: Pick<JobRecord, "number" | "state"> & Partial<JobRecord>): number {
    return this.jobControl.apply(job);
  }

  /**
   * Records the page budget spent by the tasks handed out since the last call, takes budget for the jobs
   * waiting for it here, gives back budget unused (job-budgets.ts). Await it between `nextTasks` and sending
   * the tasks out; the tasks it returns were not recorded and must not be sent: give them back (`abandon`).
   * Resolves to [] at once when no budget is wired or no job has maxPages.
   */
  settleBudgets(): Promise<FetchTask[]> {
    return this.state.budgets?.round() ?? Promise.resolve([]);
  }

  /** Gives every unit of page budget held here back (a clean stop). */
  async giveBackBudgets(): Promise<void> {
    await this.state.budgets?.giveBackAll();
  }

  /** Each crawl job's page results, errors and queued URLs in this store, by job number (reports.ts). */
  jobReport(fresh = false): Record<string, JobCounts> {
    return this.reports.jobReport(fresh);
  }

  /** Whether anything may be fetched within `horizonMs` from now (`crawl` ends when not). */
  hasWorkWithin(horizonMs: number): boolean {
    return this.reports.hasWorkWithin(horizonMs);
  }

  /** What is left to do and when: the schedule, hosts waiting, hosts that could not be reached (pending.ts). */
  pending(limit = 10): PendingWork {
    return this.reports.pending(limit);
  }

  /** Totals and counters; `fresh` recounts the slow-moving totals now (for a final summary). */
  snapshot(fresh = false): FrontierSnapshot {
    return this.reports.snapshot(fresh);
  }

  get inFlight(): number {
    return this.state.inFlightCount;
  }

  /** URLs waiting in the queue (not counting scheduled retries and refetches). */
  get queued(): number {
    return this.state.totalQueued;
  }

  /** Sitemaps waiting to be read: work as much as queued URLs are (a crawl is not done while any wait). */
  get sitemapsPending(): number {
    return this.state.totalSitemaps;
  }
}

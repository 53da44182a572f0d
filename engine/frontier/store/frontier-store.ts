/**
 * FrontierStore: the frontier's durable state in one SQLite file (bun:sqlite, WAL; store-file.ts opens it).
 * It answers the questions the frontier asks (what is the head of this host's queue, is this URL known, what
 * is due) and groups the writes of fetch results in one transaction via `tx`. Every key starts with the
 * host's partition (see schema.ts), so callers pass it along with the URL or host.
 *
 * One file per table does that table's statements; this class composes them and owns what spans tables:
 * the transaction, the change journal, the exact seen check (queue and URL states), and a partition as a
 * whole (its known URLs, its hosts, deleting it).
 *   - queue-table.ts        the per-host queues and the sequence counter
 *   - url-table.ts          each URL's fetch state
 *   - schedule-table.ts     retries and refetches waiting for their time
 *   - host-state-table.ts   each host's politeness state
 *   - robots-table.ts       each host's robots.txt
 *   - sitemap-table.ts      each host's sitemaps to read
 *   - scope-root-table.ts   the hosts of the crawl's seeds
 *   - cold-host-table.ts    hosts with work kept out of memory, by due time (this process's own)
 *   - recent-url-log.ts     admissions since the last seen-set snapshot (embedded mode)
 *   - meta-table.ts         the store's own values (schema, identity, sequence counter)
 *
 * With `backgroundCheckpoints: true` the WAL is copied into the file by a thread of its own (checkpointer.ts).
 *
 * With `journal: true` (a frontier node that replicates its partitions) every write to a partition's rows
 * is also noted in the store's change journal (change-journal.ts), committed with the writes; writes made
 * inside `untracked` (replays and imports of another store's rows) are not.
 */
import type { Database } from "bun:sqlite";
import { ChangeJournal } from "./change-journal.ts";
import { BackgroundCheckpointer } from "./checkpointer.ts";
import { ColdHostTable } from "./cold-host-table.ts";
import type { Change } from "./changes.ts";
import { HostStateTable } from "./host-state-table.ts";
import { MetaTable } from "./meta-table.ts";
import type { PersistedHost } from "./persisted-host.ts";
import { dequeueChange, QueueTable, type QueuedUrl, type QueuePlace } from "./queue-table.ts";
import { RecentUrlLog } from "./recent-url-log.ts";
import { RenderedLinkTable } from "./rendered-link-table.ts";
import { RobotsTable, type StoredRobots } from "./robots-table.ts";
import { ScheduleTable, type ScheduledUrl } from "./schedule-table.ts";
import { JobCountTable } from "./job-count-table.ts";
import { ScopeRootTable } from "./scope-root-table.ts";
import { SitemapTable } from "./sitemap-table.ts";
import { openStoreFile } from "./store-file.ts";
import { UrlTable, type UrlKey, type UrlRow, type UrlStatus } from "./url-table.ts";

export type { QueuedUrl } from "./queue-table.ts";
export type { StoredRobots } from "./robots-table.ts";
export type { ScheduledUrl } from "./schedule-table.ts";
export type { UrlKey, UrlRow, UrlStatus } from "./url-table.ts";

export interface FrontierStoreOptions {
  /**
   * Log admitted URLs in `recent_urls` until the next seen-set snapshot (embedded mode, whose Bloom filter
   * lives in a file). A cluster's seen-set is in Redis and needs no replay.
   */
  recentLog?: boolean;
  /** Keep a change journal of every partition's writes (a frontier node replicating its state). */
  journal?: boolean;
  /**
   * Run the WAL checkpoints on a thread of their own (checkpointer.ts), not inside the commits of this
   * thread (`crawl`'s store; ignored for `:memory:`).
   */
  backgroundCheckpoints?: boolean;
}

export class FrontierStore {
  /** Each host's sitemaps to read (sitemap-table.ts). */
  readonly sitemaps: SitemapTable;
  /** The hosts of the crawl's seeds (scope-root-table.ts). */
  readonly scopeRoots: ScopeRootTable;
  /** Hosts with work kept out of memory (cold-host-table.ts). */
  readonly cold: ColdHostTable;
  /** Each crawl job's counters per partition (job-count-table.ts). */
  readonly jobCounts: JobCountTable;
  /** The change journal, when kept (`journal: true`). */
  readonly journal: ChangeJournal | undefined;
  private readonly queue: QueueTable;
  private readonly urls: UrlTable;
  private readonly scheduled: ScheduleTable;
  private readonly hosts: HostStateTable;
  private readonly robots: RobotsTable;
  private readonly recent: RecentUrlLog;
  private readonly renderedLinks: RenderedLinkTable;
  private readonly meta: MetaTable;
  private checkpointer: BackgroundCheckpointer | undefined;
  private txDepth = 0;

  private constructor(
    private readonly db: Database,
    options: FrontierStoreOptions,
  ) {
    this.journal = options.journal ? new ChangeJournal(db) : undefined;
    const note = (partition: number, change: Change) => this.note(partition, change);
    this.meta = new MetaTable(db);
    this.queue = new QueueTable(db, note, Number(this.meta.get("seq") ?? 0));
    this.urls = new UrlTable(db, note);
    this.scheduled = new ScheduleTable(db, note);
    this.hosts = new HostStateTable(db, note);
    this.robots = new RobotsTable(db, note);
    this.sitemaps = new SitemapTable(db, note);
    this.scopeRoots = new ScopeRootTable(db, note);
    this.jobCounts = new JobCountTable(db, note);
    this.cold = new ColdHostTable(db);
    this.recent = new RecentUrlLog(db, options.recentLog ?? false);
    this.renderedLinks = new RenderedLinkTable(db);
  }

  /**
   * Opens (creating when needed) the store at `path`; `:memory:` gives a throwaway store for tests. A file
   * that is damaged (corrupt, torn, not SQLite) is found here and refused with StoreDamagedError (store-file.ts).
   */
  static open(path: string, options: FrontierStoreOptions = {}): FrontierStore {
    const store = openStoreFile(path, (db) => new FrontierStore(db, options));
    // Started once the file is set up (WAL mode, the schema): the thread opens it as it is.
    if (options.backgroundCheckpoints && path !== ":memory:") store.checkpointer = new BackgroundCheckpointer(path);
    return store;
  }

  /** This store's identity, made when it was created. */
  get id(): string {
    return this.getMeta("store-id") ?? "";
  }

  /**
   * Runs `fn` in one transaction: all of its writes commit together or not at all. Nested calls join the
   * outer transaction; the journal's row for it is written when the outermost one ends. A caller must not
   * catch an error inside a transaction and go on (the journal would keep the failed part's changes).
   */
  tx<T>(fn: () => T): T {
    const journal = this.journal;
    if (!journal) return this.db.transaction(fn)();
    const outer = this.txDepth === 0;
    this.txDepth++;
    try {
      const result = this.db.transaction(() => {
        const r = fn();
        if (outer) journal.flush();
        return r;
      })();
      if (outer) journal.committed();
      return result;
    } catch (error) {
      if (outer) journal.discard();
      throw error;
    } finally {
      this.txDepth--;
    }
  }

  /** Runs `fn` without noting its writes in the journal (replaying or importing another store's rows). */
  untracked<T>(fn: () => T): T {
    return this.journal ? this.journal.mute(fn) : fn();
  }

  /** Notes a change for the journal; a write outside any transaction is journaled on its own. */
  private note(partition: number, change: Change): void {
    const journal = this.journal;
    if (!journal) return;
    journal.note(partition, change);
    if (this.txDepth === 0) {
      journal.flush();
      journal.committed();
    }
  }

  // ---- queue (queue-table.ts) ---------------------------------------------------------------------

  head(partition: number, host: string): QueuedUrl | undefined {
    return this.queue.head(partition, host);
  }

  /**
   * Appends a URL to its host's queue behind others of the same priority; returns its sequence number, or
   * undefined when it was not added.
   */
  enqueue(item: Omit<QueuedUrl, "seq">): number | undefined {
    return this.queue.enqueueMany([item])[0];
  }

  /** `enqueue` for many URLs, in order, a few dozen to a statement; each one's sequence number or undefined. */
  enqueueMany(items: ReadonlyArray<Omit<QueuedUrl, "seq">>): Array<number | undefined> {
    return this.queue.enqueueMany(items);
  }

  /** Writes a queue row with its own sequence number (a replayed or restored row, kept as its store wrote it). */
  putQueued(item: QueuedUrl): void {
    this.queue.put(item);
  }

  /** Makes the next sequence number larger than `seq` (after rows with another store's numbers came in). */
  reserveSeq(seq: number): void {
    this.queue.reserveSeq(seq);
  }

  dequeue(item: Pick<QueuedUrl, "partition" | "host" | "priority" | "seq">): void {
    this.queue.dequeue(item);
  }

  /** Whether a URL is in its host's queue (scans that host's queue: for handoff imports, not hot paths). */
  /** Marks URLs admitted as found only by rendering (rendered-link-table.ts). */
  markFoundByRender(rows: ReadonlyArray<{ partition: number; url: string }>): void {
    this.renderedLinks.addMany(rows);
  }

  /** Whether the URL was first found only in a rendered page's DOM. */
  foundByRender(partition: number, url: string): boolean {
    return this.renderedLinks.has(partition, url);
  }

  isQueued(partition: number, host: string, url: string): boolean {
    return this.queue.has(partition, host, url);
  }

  /** Queued URL counts by host, for every partition or for one. */
  queuedByHost(partition?: number): Map<string, number> {
    return this.queue.countsByHost(partition);
  }

  /** Hosts with URLs of jobs other than default, and those URLs per job (queue-table.ts). */
  jobsByHost(partition?: number): Map<string, Map<number, number>> {
    return this.queue.jobsByHost(partition);
  }

  /** Whether any URL of a job other than default is queued. */
  hasJobRows(): boolean {
    return this.queue.hasJobRows();
  }

  /** The queued URLs per job among the host's first `limit` rows. */
  jobsOfHost(partition: number, host: string, limit: number): Map<number, number> {
    return this.queue.jobsOfHost(partition, host, limit);
  }

  queuedForHost(partition: number, host: string): number {
    return this.queue.countForHost(partition, host);
  }

  /** The host's first queued URL of a job not in `heldJobs` (a JSON array of job numbers). */
  headExcept(partition: number, host: string, heldJobs: string): QueuedUrl | undefined {
    return this.queue.headExcept(partition, host, heldJobs);
  }

  /** The host's first queued URL of `job`. */
  headOfJob(partition: number, host: string, job: number): QueuedUrl | undefined {
    return this.queue.headOfJob(partition, host, job);
  }

  /** Up to `limit` queued URLs of `job` (not `default`). */
  jobQueued(job: number, limit: number): Array<QueuePlace & { url: string }> {
    return this.queue.jobRows(job, limit);
  }

  /** Queued URLs of each crawl job but `default` (read from an index of those rows alone). */
  queuedByJob(partitions?: ReadonlySet<number>): Map<number, number> {
    return this.queue.countsByJob(partitions);
  }

  totalQueued(): number {
    return this.queue.total();
  }

  /**
   * Keeps the size limit's index of the queue (`queue_drop_order`) or not: built when a frontier with a
   * limit opens the store, dropped when one without does (queue-table.ts). Returns whether it changed.
   */
  keepDropOrder(keep: boolean): boolean {
    return this.queue.keepDropOrder(keep);
  }

  /**
   * Removes the `n` lowest-priority, most recently queued URLs (the size limit); returns what was dropped.
   * Needs `keepDropOrder(true)` first.
   */
  dropLowestPriority(n: number): Array<QueuePlace & { url: string }> {
    const dropped = this.queue.deleteLowest(n);
    for (const d of dropped) {
      this.note(d.partition, dequeueChange(d));
      this.urls.setState(d, "dropped", "frontier size limit");
    }
    return dropped;
  }

  /** Saves the sequence counter; called inside the transactions that enqueue. */
  saveSeq(): void {
    this.setMeta("seq", String(this.queue.nextSeq));
  }

  // ---- URL states (url-table.ts, recent-url-log.ts) -----------------------------------------------

  getUrl(partition: number, url: string): UrlRow | undefined {
    return this.urls.get(partition, url);
  }

  /**
   * Whether a URL was ever admitted: it has a state row (fetched, or finished without a page), or it waits in
   * its host's queue. The exact check behind a Bloom "maybe".
   */
  isKnown(partition: number, host: string, url: string): boolean {
    return this.urls.has(partition, url) || this.queue.has(partition, host, url);
  }

  /** Sets a URL's state (creating its row when it has none yet). */
  setUrlState(key: UrlKey & { depth: number }, state: UrlStatus, note?: string): void {
    this.urls.setState(key, state, note);
  }

  /** Writes a URL's whole state after a fetch (creating its row on its first result). */
  recordFetch(row: UrlRow): void {
    this.urls.put(row);
  }

  /** `recordFetch` and `schedule` of the same URL in one write of its row (a page's result and its refetch). */
  recordFetchScheduled(row: UrlRow, next: ScheduledUrl): void {
    this.urls.putScheduled(row, next);
  }

  /** Writes a URL's full state as received from another node (handoff). */
  importUrl(row: UrlRow): void {
    this.urls.put(row);
  }

  urlCount(): number {
    return this.urls.count();
  }

  urlStateCounts(): Record<string, number> {
    return this.urls.stateCounts();
  }

  /** Notes admissions in the recent log (embedded mode's seen-set replay), when the store keeps one. */
  logAdmittedMany(urls: readonly string[]): void {
    this.recent.addMany(urls);
  }

  /** URLs admitted after `afterId` (recent log), in order: replayed into the Bloom filter after an unclean stop. */
  urlsSince(afterId: number, limit: number): { id: number; url: string }[] {
    return this.recent.since(afterId, limit);
  }

  /** The id of the newest logged admission (0 when none); a seen-set snapshot records it. */
  maxUrlId(): number {
    return this.recent.maxId();
  }

  /** Forgets logged admissions up to `id`, which a seen-set snapshot now covers. */
  trimRecent(id: number): void {
    this.recent.trim(id);
  }

  // ---- schedule (schedule-table.ts) ---------------------------------------------------------------

  /** Schedules a URL's next visit, replacing any earlier schedule of it. */
  schedule(item: ScheduledUrl): void {
    this.scheduled.put(item);
  }

  /** Takes up to `limit` scheduled URLs whose time has come, removing them from the schedule. */
  takeDue(now: number, limit: number): ScheduledUrl[] {
    return this.scheduled.takeDue(now, limit);
  }

  unschedule(partition: number, url: string): void {
    this.scheduled.remove(partition, url);
  }

  scheduledAt(partition: number, url: string): number | undefined {
    return this.scheduled.dueAt(partition, url);
  }

  /** The earliest due retry, refetch or feed reread; undefined when nothing is scheduled. */
  nextDueAt(): number | undefined {
    const url = this.scheduled.nextDueAt();
    const feed = this.sitemaps.nextFeedDueAt();
    return url === undefined ? feed : feed === undefined ? url : Math.min(url, feed);
  }

  scheduledCount(): number {
    return this.scheduled.count();
  }

  /**
   * Scheduled URLs by the state of their URL (`fetched` and the other finished states: refetches;
   * `retry-wait`: retries; `dead`: resting after too many failures), each with how many and the first due.
   * Reads the whole schedule: for a summary, not a hot path.
   */
  scheduledByState(): Array<{ state: UrlStatus | null; count: number; firstDueAt: number }> {
    return this.scheduled.byState();
  }

  /**
   * The hosts with the most URLs whose fetches failed (waiting for a retry, or resting after too many
   * failures), with when the first is tried again and a failure note.
   */
  failingByHost(limit: number): Array<{ host: string; count: number; firstDueAt: number; note: string | null }> {
    return this.scheduled.failingByHost(limit);
  }

  // ---- hosts and robots.txt (host-state-table.ts, robots-table.ts) --------------------------------

  /**
   * A host's saved state; undefined when none was saved. Throws when the saved text is not a host's state
   * (a damaged store): the host's politeness state is never guessed.
   */
  loadHost(host: string): PersistedHost | undefined {
    return this.hosts.get(host);
  }

  saveHost(host: string, partition: number, state: PersistedHost): void {
    this.hosts.put(host, partition, state);
  }

  loadRobots(host: string): StoredRobots | undefined {
    return this.robots.get(host);
  }

  saveRobots(host: string, partition: number, robots: StoredRobots): void {
    this.robots.put(host, partition, robots);
  }

  // ---- a partition as a whole (handoff, replicas, seen-set rebuilds) ------------------------------

  /** A page of a partition's queue, in key order after `after` (undefined: from the start). */
  queuedInPartition(partition: number, after: Pick<QueuedUrl, "host" | "priority" | "seq"> | undefined, limit: number): QueuedUrl[] {
    return this.queue.inPartition(partition, after, limit);
  }

  /** A page of a partition's URL states, in URL order after `afterUrl` ("" from the start). */
  urlsInPartition(partition: number, afterUrl: string, limit: number): UrlRow[] {
    return this.urls.inPartition(partition, afterUrl, limit);
  }

  scheduledInPartition(partition: number): ScheduledUrl[] {
    return this.scheduled.inPartition(partition);
  }

  /** Whether the store knows any URL of a partition (queued, or with a state). */
  knowsPartition(partition: number): boolean {
    return this.queue.anyIn(partition) || this.urls.anyIn(partition);
  }

  /**
   * Every URL the store knows of a partition (the exact seen-set: queued ones, then those with a state),
   * in pages of about `pageSize`, for rebuilding a seen-set that lost them. Queued URLs come first because
   * a URL only ever moves from the queue to a state row (fetched, dropped, disallowed), never back (a due
   * retry or refetch is queued again but keeps its row): read in this order while the crawl goes on, no
   * URL known before the first page is read is missed. A scheduled URL has a state row.
   */
  *knownUrlsInPartition(partition: number, pageSize: number): Generator<string[]> {
    let after: QueuedUrl | undefined;
    for (;;) {
      const page = this.queue.inPartition(partition, after, pageSize);
      if (page.length === 0) break;
      yield page.map((q) => q.url);
      after = page[page.length - 1];
    }
    let afterUrl = "";
    for (;;) {
      const page = this.urls.keysInPartition(partition, afterUrl, pageSize);
      if (page.length === 0) break;
      yield page;
      afterUrl = page[page.length - 1]!;
    }
  }

  /** A partition's hosts: those with a saved state, a robots.txt or sitemaps, each once. */
  hostsInPartition(partition: number): Array<{ host: string; state: string; robots?: StoredRobots }> {
    const robots = this.robots.inPartition(partition);
    const out = this.hosts.inPartition(partition).map((h) => ({
      ...h,
      robots: robots.get(h.host),
    }));
    for (const [host, r] of robots) if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: r });
    // A host known only by its sitemaps (one another host's robots.txt named) moves with the partition too.
    for (const host of this.sitemaps.hostsInPartition(partition))
      if (!out.some((h) => h.host === host)) out.push({ host, state: "", robots: undefined });
    return out;
  }

  /**
   * Removes everything of a partition (after it was handed to its new owner, or before its rows are
   * rebuilt from a replica), its sitemaps included. Its seeds' scope roots stay (they are the crawl's),
   * no longer marked as this store's to replicate. Not journaled: whoever holds the partition next claims
   * it afresh.
   */
  deletePartition(partition: number): void {
    this.queue.deletePartition(partition);
    this.urls.deletePartition(partition);
    this.scheduled.deletePartition(partition);
    this.hosts.deletePartition(partition);
    this.robots.deletePartition(partition);
    this.sitemaps.deletePartition(partition);
    this.jobCounts.deletePartition(partition);
    this.scopeRoots.releasePartition(partition);
  }

  // ---- bookkeeping (meta-table.ts) ----------------------------------------------------------------

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }

  /** Closes the store: the checkpoint thread stops first, then the WAL is copied into the file and emptied. */
  close(): void {
    this.checkpointer?.stop();
    this.checkpointer = undefined;
    this.saveSeq();
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
  }
}

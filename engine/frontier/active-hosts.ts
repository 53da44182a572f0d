/**
 * The active hosts: each host with work (queued URLs, sitemaps to read) or a fetch in flight, in memory as a
 * HostEntry, and in exactly one of three places while it has nothing in flight: the waiting heap (until its
 * gap, daily cap or robots.txt retry has passed), a ready queue (by the priority of its next URL), or paused.
 * A host with nothing left to do is saved and forgotten. This part loads hosts from the store and saves
 * them, puts each where it belongs after every change (`settle`), caches the head of its queue and its
 * compiled robots.txt, and rebuilds hosts from the store after a transaction that touched them rolled back.
 *
 * Cost: a host's entry is a few hundred bytes plus its robots.txt rules; `settle` is a Map lookup and a
 * heap push (log n of the waiting hosts); the head and robots.txt are read from the store once per change.
 *
 * Memory at a million hosts: a host never fetched shares one initial politeness state (states are never
 * changed in place, only replaced); compiled robots.txt rules are shared by hosts whose robots.txt reads
 * the same; and past HOT_HOSTS active hosts, a host keeps its queue head and robots.txt in memory only
 * while it has a fetch in flight: the rest read them from the store when their turn comes (a read or two
 * per task), so memory follows the hosts being fetched, not the hosts known.
 *
 * And past `warmHosts` (WARM_HOSTS) hosts in memory, hosts with work go cold: they wait in the store's
 * cold_hosts table by the time they may be asked next (store/cold-host-table.ts), not in memory. A host
 * with new work while others are cold goes cold too, behind them; a host just fetched goes cold when the
 * warm set is full and a cold host is due before it; and `nextTasks` warms the first-due cold hosts as room
 * is made (`warm`), so every host takes its turn, first due first, and memory holds the hosts fetched soon
 * (measured in bench/README.md "Scale"). A host is warm or cold, never both: an admission to a host not in
 * memory looks for it in the table first (only while the table has rows).
 */
import { isDiskFull } from "../../core/errors/index.ts";
import type { TaskKind } from "../../core/model/index.ts";
import { newHostState, releaseAfterLoss, releaseLostFetch, setPaused, type HostState } from "../../core/politeness/index.ts";
import { parseRobots, policyFor, type RobotsPolicy } from "../../core/robots/index.ts";
import { countToday, nextUtcDayStart } from "../../core/traps/index.ts";
import type { FrontierState } from "./frontier-state.ts";
import { NO_ROBOTS_STORED, type HostEntry } from "./host-entry.ts";
import { learnJobs, noteJob } from "./job-turns.ts";
import type { ColdHost } from "./store/cold-host-table.ts";
import type { QueuedUrl, StoredRobots } from "./store/frontier-store.ts";
import type { PersistedHost } from "./store/persisted-host.ts";

/** Active hosts past which heads and robots.txt are kept only for hosts with a fetch in flight. */
export const HOT_HOSTS = 50_000;
/** Hosts in memory at most by default (besides those in flight); the rest wait cold in the store. */
export const WARM_HOSTS = 100_000;
/** A warm set within this share of its limit is full: a host just fetched makes room for a cold host due first. */
const WARM_SLACK = 0.1;
/** Cold hosts due this soon are warmed already, so they wait their last moments in the heap, not late. */
const WARM_AHEAD_MS = 1_000;
/**
 * Rows of a warmed host's queue walked to learn its jobs (job-turns.ts learnJobs): a job whose URLs all lie
 * further back joins the turns once URLs of it are queued again, or is reached when the others run out.
 */
const JOB_WALK_ROWS = 1_000;
/**
 * Cold hosts of several jobs whose turn credits are kept in memory (a map entry of the host's name and a
 * few numbers each, ~150 bytes: 15 MB at the cap); past it the oldest start their turns afresh when warmed.
 */
const COLD_TURNS_KEPT = 100_000;
/** Distinct robots.txt bodies whose compiled rules are kept for sharing. */
const COMPILED_ROBOTS_KEPT = 4_096;
/** The state of every host never fetched, shared: states are replaced, never changed. */
const UNTOUCHED: HostState = Object.freeze(newHostState());

/** What a robots.txt body compiles to: its rules for our user agent, and whether it names sitemaps. */
type CompiledRobots = { policy: RobotsPolicy | undefined; namesSitemaps: boolean };
/** A robots.txt without rules to read (allow-all, disallow-all): no policy, no sitemaps named. */
const NOT_PARSED: CompiledRobots = Object.freeze({ policy: undefined, namesSitemaps: false });

export class ActiveHosts {
  /** Compiled robots.txt rules by body, the oldest dropped first (Map order). */
  private readonly compiled = new Map<string, CompiledRobots>();
  /** Turn credits of cold hosts of several jobs, by host, oldest first (keepColdTurns). */
  private readonly coldTurns = new Map<string, Map<number, number>>();

  /** Hosts in memory at most before hosts go cold. */
  readonly warmLimit: number;
  /** Active hosts past which hosts are lean. */
  private readonly hotLimit: number;

  constructor(private readonly s: FrontierState) {
    this.warmLimit = Math.max(1, s.opts.warmHosts ?? WARM_HOSTS);
    this.hotLimit = s.opts.hotHosts ?? HOT_HOSTS;
    // Derived from the queue: the hosts with work are loaded again (loadWithWork), some of them cold.
    s.store.cold.clear();
    s.coldHosts = 0;
  }

  get(host: string): HostEntry | undefined {
    return this.s.hosts.get(host);
  }

  /** The host's entry, loaded from the store and made active when it was not. */
  activate(host: string): HostEntry {
    let entry = this.s.hosts.get(host);
    if (!entry) {
      entry = this.load(host);
      this.s.hosts.set(host, entry);
    }
    return entry;
  }

  /**
   * A host as the store has it, not made active. A state another run saved (this store before a restart,
   * clean or kill -9; another node before a partition handoff) waits its last gap from now: its times are on
   * another clock, and a request may have been in flight when it was saved, its result lost. So does a host
   * with no saved state when `queuedBefore` (its URLs or sitemaps were queued before this run: its first
   * request may have been in flight, robots.txt or a page, when the last run died). Every request another
   * run made ended before now (the process is gone, or the old owner had nothing of the partition in flight
   * when it handed it over), so a gap from now is a gap from each of them.
   */
  load(host: string, queuedBefore = false): HostEntry {
    const saved = this.s.store.loadHost(host);
    let state = saved?.state ?? UNTOUCHED;
    if (saved ? saved.run !== this.s.run : queuedBefore) {
      const now = this.s.now();
      state = releaseLostFetch({ ...state, inFlight: true, inFlightSince: now }, now, this.s.policy);
    }
    return {
      key: host,
      partition: this.s.partitionOf(host),
      state,
      queued: 0,
      sitemaps: 0,
      pagesToday: saved?.pagesToday ?? null,
      minGapOverrideMs: saved?.minGapOverrideMs ?? 0,
      ...(saved?.renderMemory ? { renderMemory: saved.renderMemory } : {}),
    };
  }

  /** Writes the host's state to the store (inside the caller's transaction). */
  save(entry: HostEntry): void {
    const persisted: PersistedHost = {
      state: entry.state,
      pagesToday: entry.pagesToday,
      minGapOverrideMs: entry.minGapOverrideMs,
      run: this.s.run,
    };
    if (entry.renderMemory) persisted.renderMemory = entry.renderMemory;
    this.s.store.saveHost(entry.key, entry.partition, persisted);
  }

  /** Past HOT_HOSTS (`hotHosts`), only hosts with a fetch in flight keep their head and robots.txt in memory. */
  get lean(): boolean {
    return this.s.hosts.size > this.hotLimit;
  }

  /** Puts a host where it belongs: waiting for its time, or forgotten when it has nothing to do. */
  settle(entry: HostEntry): void {
    if (entry.inFlight) return;
    if (this.lean) {
      entry.head = undefined;
      entry.robots = undefined;
    }
    if (!this.s.serves(entry.partition)) {
      // Its partition was given up while the fetch was in flight: its queue stays in the store for the handoff.
      this.forget(entry.key);
      return;
    }
    if (entry.state.paused) return;
    if (entry.queued <= 0 && entry.sitemaps <= 0) {
      entry.queued = 0;
      this.forget(entry.key);
      return;
    }
    if (!this.s.ready.has(entry.key)) this.makeWaiting(entry);
  }

  /**
   * Settles hosts whose fetch just ended (their results committed): each waits for its time, or goes cold
   * when the warm set is full and a cold host is due before it (or the set is over its limit). A host that
   * has just read its robots.txt stays for its next request, so a host taken in from the cold is asked for
   * its best page before it goes back: a list of a million new hosts yields pages as fast as robots.txt
   * files, not the robots.txt of every host first (measured: 647,954 robots.txt and 3,584 pages in 120 s).
   * Cooled in one transaction; when that cannot be written, they stay warm.
   */
  settleFetched(fetched: ReadonlyArray<{ entry: HostEntry; kind: TaskKind }>): void {
    const cooling: ColdHost[] = [];
    // The first cold host's time, read once for the batch (rows are added after the loop, so it holds for all).
    let firstCold: { at: number | undefined } | undefined;
    const firstColdAt = () => (firstCold ??= { at: this.s.store.cold.nextDueAt() }).at;
    for (const { entry, kind } of fetched) {
      const dueAt = this.coolingDue(entry, kind, firstColdAt);
      if (dueAt === undefined) this.settle(entry);
      else cooling.push({ host: entry.key, partition: entry.partition, dueAt, queued: entry.queued, before: false, lostAt: 0 });
    }
    if (cooling.length === 0) return;
    try {
      this.s.store.tx(() => {
        for (const c of cooling) this.s.store.cold.add(c);
      });
    } catch (error) {
      for (const c of cooling) this.settle(this.s.hosts.get(c.host)!);
      if (!isDiskFull(error)) throw error;
      return;
    }
    for (const c of cooling) {
      // A host of several jobs keeps its turns' credits while cold, so its jobs' shares hold across cooling.
      const turns = this.s.hosts.get(c.host)?.jobTurns;
      if (turns) this.keepColdTurns(c.host, turns);
      this.forget(c.host);
    }
    this.s.coldHosts += cooling.length;
    this.s.counters.add("frontier.hosts-cooled", cooling.length);
  }

  /** When a host just fetched may be asked next, if it is to go cold; undefined when it stays (or leaves). */
  private coolingDue(entry: HostEntry, kind: TaskKind, firstColdAt: () => number | undefined): number | undefined {
    if (entry.inFlight || entry.state.paused || !this.s.serves(entry.partition)) return undefined;
    if (entry.queued <= 0 && entry.sitemaps <= 0) return undefined;
    const size = this.s.hosts.size;
    const now = this.s.now();
    const robots = entry.robots?.stored;
    // A host parked on an unavailable robots.txt stays in memory (the summary names it) unless memory is over.
    const parked = robots?.verdict === "disallow-all" && robots.expiresAt > now;
    let dueAt = entry.state.nextAllowedAt;
    if (parked) dueAt = Math.max(dueAt, robots.expiresAt);
    if (countToday(entry.pagesToday, now) >= this.s.policy.maxPagesPerHostPerDay) dueAt = Math.max(dueAt, nextUtcDayStart(now));
    if (size > this.warmLimit) return dueAt;
    if (parked || kind === "robots" || this.s.coldHosts === 0 || size < this.warmLimit * (1 - WARM_SLACK)) return undefined;
    const firstCold = firstColdAt();
    return firstCold !== undefined && firstCold <= dueAt ? dueAt : undefined;
  }

  /**
   * Warms up to `max` cold hosts due within WARM_AHEAD_MS, first due first, while the warm set has room:
   * each is loaded as any host is (its saved state, the gap a request of an earlier run may call for) and
   * waits for its time in the heap.
   */
  warm(now: number, max: number): void {
    if (this.s.coldHosts <= 0) return;
    const room = Math.min(max, this.warmLimit - this.s.hosts.size);
    if (room <= 0) return;
    let rows: ColdHost[];
    try {
      rows = this.s.store.tx(() => this.s.store.cold.takeDue(now + WARM_AHEAD_MS, room));
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      return; // they stay cold, and are warmed once the disk has room
    }
    this.s.coldHosts = Math.max(0, this.s.coldHosts - rows.length);
    // One probe of the job index a batch: a crawl without jobs walks no host's rows for them.
    const withJobs = rows.length > 0 && this.s.store.hasJobRows();
    for (const row of rows) this.warmRow(row, withJobs);
  }

  /** Keeps a cooled host's turn credits (job-turns.ts), at most COLD_TURNS_KEPT hosts, the oldest dropped first. */
  private keepColdTurns(host: string, turns: Map<number, number>): void {
    this.coldTurns.delete(host);
    this.coldTurns.set(host, turns);
    if (this.coldTurns.size > COLD_TURNS_KEPT) this.coldTurns.delete(this.coldTurns.keys().next().value!);
  }

  /** A cold host made warm by name (an operator's action on it); false when it was not cold. */
  private warmByName(host: string): boolean {
    if (this.s.coldHosts <= 0) return false;
    const row = this.s.store.cold.take(host);
    if (!row) return false;
    this.s.coldHosts--;
    this.warmRow(row, this.s.store.hasJobRows());
    return true;
  }

  private warmRow(row: ColdHost, withJobs: boolean): void {
    // A host of a partition given up stays in the store for its new owner.
    if (!this.s.serves(row.partition) || this.s.hosts.has(row.host)) return;
    const entry = this.load(row.host, row.before);
    if (row.lostAt > 0) entry.state = releaseAfterLoss(entry.state, this.s.now(), row.lostAt, this.s.policy);
    entry.queued = row.queued;
    entry.sitemaps = this.s.store.sitemaps.pendingFor(row.partition, row.host);
    if (entry.queued <= 0 && entry.sitemaps <= 0) return;
    const credits = this.coldTurns.get(row.host);
    this.coldTurns.delete(row.host);
    if (withJobs) {
      const jobs = this.s.store.jobsOfHost(row.partition, row.host, JOB_WALK_ROWS);
      learnJobs(entry, jobs, entry.queued > JOB_WALK_ROWS ? 0 : entry.queued, credits);
    }
    this.s.hosts.set(row.host, entry);
    this.makeWaiting(entry);
    this.s.counters.add("frontier.hosts-warmed");
  }

  /** A host not in memory gets new work: it stays (or goes) cold, or is made active; undefined when cold. */
  private activateOrCool(host: string, partition: number, queued: number): HostEntry | undefined {
    const entry = this.s.hosts.get(host);
    if (entry) return entry;
    if (this.s.coldHosts > 0 && this.s.store.cold.bump(host, queued)) return undefined;
    // Others are cold already (they go first), or memory is full.
    if (this.s.coldHosts > 0 || this.s.hosts.size >= this.warmLimit) {
      this.s.store.cold.add({ host, partition, dueAt: this.s.now(), queued, before: false, lostAt: 0 });
      this.s.coldHosts++;
      return undefined;
    }
    return this.activate(host);
  }

  /** A sitemap was queued for `host` (of a partition served here). */
  sitemapQueued(host: string, partition: number): void {
    const entry = this.activateOrCool(host, partition, 0);
    if (!entry) return; // warmed, it counts its sitemaps from the store
    entry.sitemaps++;
    this.settle(entry);
  }

  /** Cold hosts of partitions no longer served are dropped (their work stays in the store for the new owner). */
  dropColdOf(partitions: Iterable<number>): void {
    if (this.s.coldHosts <= 0) return;
    for (const p of partitions) this.s.store.cold.removePartition(p);
    this.s.coldHosts = this.s.store.cold.count();
  }

  /** The host waits for its next allowed time; from now on it has work (for the gap-wait histogram). */
  makeWaiting(entry: HostEntry): void {
    if (entry.state.paused) return;
    if (entry.workSince === undefined) entry.workSince = this.s.now();
    this.s.waiting.push(entry.key, entry.state.nextAllowedAt);
  }

  /** Takes the host out of memory (its state is in the store). */
  forget(host: string): void {
    this.s.waiting.remove(host);
    this.s.ready.remove(host);
    this.s.hosts.delete(host);
  }

  /** The head of the host's queue, read from the store once per change (its count is put right when it has none). */
  headOf(entry: HostEntry): QueuedUrl | undefined {
    if (!entry.head) entry.head = this.s.store.head(entry.partition, entry.key);
    entry.nextPriority = entry.head?.priority ?? 0;
    if (!entry.head) entry.queued = 0;
    return entry.head;
  }

  /**
   * The priority of the host's next URL, without keeping its head in memory when lean: the priority alone is
   * kept (nextPriority), so a host whose head has not changed since its last turn (after robots.txt or a
   * sitemap) is filed without reading it again.
   */
  headPriority(entry: HostEntry): QueuedUrl["priority"] | undefined {
    if (entry.head || !this.lean) return this.headOf(entry)?.priority;
    if (entry.nextPriority !== undefined) return entry.nextPriority === 0 ? undefined : entry.nextPriority;
    const head = this.s.store.head(entry.partition, entry.key);
    entry.nextPriority = head?.priority ?? 0;
    if (!head) entry.queued = 0;
    return head?.priority;
  }

  /** The host's robots.txt as stored, compiled once and kept with the entry. */
  robotsOf(entry: HostEntry): HostEntry["robots"] {
    if (entry.robots) return entry.robots;
    // What a read this run found is still what the store holds: a live host's robots.txt is stored only
    // through setRobots, which updates these. So a new host's robots.txt task (needsRobots read the store
    // and found none) and a lean host's turn after a robots.txt without rules read nothing.
    const expiresAt = entry.robotsExpiresAt;
    if (expiresAt === NO_ROBOTS_STORED) return undefined;
    if (entry.robotsVerdict !== undefined && expiresAt !== undefined) {
      entry.robots = { stored: { verdict: entry.robotsVerdict, expiresAt }, ...NOT_PARSED };
      return entry.robots;
    }
    const stored = this.s.store.loadRobots(entry.key);
    this.noteRobots(entry, stored);
    if (stored) entry.robots = { stored: verdictAndExpiry(stored), ...this.compile(stored) };
    return entry.robots;
  }

  /** Keeps what a lean host needs of its stored robots.txt (undefined: none stored) to skip the next reads. */
  private noteRobots(entry: HostEntry, stored: StoredRobots | undefined): void {
    entry.robotsExpiresAt = stored?.expiresAt ?? NO_ROBOTS_STORED;
    entry.robotsVerdict = stored === undefined || stored.verdict === "parse" ? undefined : stored.verdict;
  }

  /**
   * Whether the host's robots.txt must be fetched before anything else (none, or expired at `now`). A lean
   * host keeps only the time its robots.txt expires (robotsExpiresAt), so the store is read for it once,
   * not at every turn: robots.txt changes only through `setRobots`.
   */
  needsRobots(entry: HostEntry, now: number): boolean {
    let expiresAt = entry.robots?.stored.expiresAt ?? entry.robotsExpiresAt;
    if (expiresAt === undefined) {
      if (this.lean) {
        this.noteRobots(entry, this.s.store.loadRobots(entry.key));
        expiresAt = entry.robotsExpiresAt!;
      } else expiresAt = this.robotsOf(entry)?.stored.expiresAt ?? 0;
    }
    return expiresAt <= now;
  }

  /** The host's robots.txt as just fetched and stored, compiled into its entry. */
  setRobots(entry: HostEntry, stored: StoredRobots): NonNullable<HostEntry["robots"]> {
    entry.robots = { stored: verdictAndExpiry(stored), ...this.compile(stored) };
    this.noteRobots(entry, stored);
    return entry.robots;
  }

  /** Compiled rules and whether the text names sitemaps, shared by every host whose robots.txt has the same body. */
  private compile(stored: StoredRobots): CompiledRobots {
    if (stored.verdict !== "parse") return NOT_PARSED;
    const body = stored.body ?? "";
    const known = this.compiled.get(body);
    if (known) return known;
    const parsed = parseRobots(body);
    const compiled = { policy: policyFor(parsed, this.s.policy.userAgent), namesSitemaps: parsed.sitemaps.length > 0 };
    if (this.compiled.size >= COMPILED_ROBOTS_KEPT) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(body, compiled);
    return compiled;
  }

  /** A URL's place in memory once the store has queued it (`seq` undefined: it was not added). */
  queued(item: Omit<QueuedUrl, "seq">, seq: number | undefined): void {
    if (seq === undefined) return;
    this.s.queuedAt.mark(seq, this.s.now());
    this.s.totalQueued++;
    // URLs of partitions this node does not serve (yet) wait in the store; their hosts stay out of memory.
    if (!this.s.serves(item.partition)) return;
    const entry = this.activateOrCool(item.host, item.partition, 1);
    if (!entry) return;
    entry.queued++;
    noteJob(entry, item.job ?? 0);
    // Behind the URLs of its priority: the next priority changes only for a better one, or an empty queue's first.
    if (entry.nextPriority !== undefined && (entry.nextPriority === 0 || item.priority < entry.nextPriority))
      entry.nextPriority = item.priority;
    if (entry.head && item.priority < entry.head.priority) entry.head = undefined;
    if (!entry.head && entry.queued === 1 && !this.lean) entry.head = { ...item, seq };
    this.settle(entry);
  }

  /** A URL left its host's queue (fetched, disallowed, dropped): counts, the cached head and the pattern trap follow. */
  dequeued(entry: HostEntry, item: Pick<QueuedUrl, "priority" | "seq" | "url">): void {
    entry.queued--;
    this.s.totalQueued--;
    // One of the next priority may have been the last of it: the next priority is read again.
    if (entry.nextPriority !== undefined && (entry.nextPriority === 0 || item.priority <= entry.nextPriority))
      entry.nextPriority = undefined;
    if (entry.head && entry.head.seq === item.seq && entry.head.priority === item.priority) entry.head = undefined;
    this.s.patterns.remove(entry.key, item.url);
  }

  /**
   * Loads the hosts with queued URLs or sitemaps to read (of one partition, or all), waiting for their time;
   * past the warm limit they go cold, due now, and are loaded the same way when warmed.
   */
  loadWithWork(partition: number | undefined, lostAt: number | undefined): void {
    const now = this.s.now();
    const queuedBy = this.s.store.queuedByHost(partition);
    const sitemapsBy = this.s.store.sitemaps.pendingByHost(partition);
    // Their jobs, so they take weighted turns at once (job-turns.ts); read from the job index only.
    const jobsBy = this.s.store.jobsByHost(partition);
    const cold: ColdHost[] = [];
    for (const host of new Set([...queuedBy.keys(), ...sitemapsBy.keys()])) {
      if (this.s.hosts.has(host)) continue;
      if (this.s.hosts.size >= this.warmLimit) {
        const p = this.s.partitionOf(host);
        cold.push({ host, partition: p, dueAt: now, queued: queuedBy.get(host) ?? 0, before: true, lostAt: lostAt ?? 0 });
        continue;
      }
      // A host with work queued before this run (URLs or sitemaps) may have had a request in flight, saved
      // state or not.
      const entry = this.load(host, true);
      entry.queued = queuedBy.get(host) ?? 0;
      entry.sitemaps = sitemapsBy.get(host) ?? 0;
      const jobs = jobsBy.get(host);
      if (jobs) learnJobs(entry, jobs, entry.queued);
      // Rebuilt from a replica: a fetch the lost holder started may still be running.
      if (lostAt !== undefined) entry.state = releaseAfterLoss(entry.state, now, lostAt, this.s.policy);
      this.s.hosts.set(host, entry);
      this.makeWaiting(entry);
    }
    if (cold.length === 0) return;
    this.s.store.tx(() => {
      for (const c of cold) this.s.store.cold.add(c);
    });
    this.s.coldHosts = this.s.store.cold.count();
  }

  /**
   * Rebuilds hosts in memory from the store after a transaction that touched them rolled back. A host with
   * a fetch in flight keeps it unless `releaseFlights` (its result was the one that failed): then the fetch
   * counts as done without a result, and the host waits a full gap from now, its URL still queued.
   */
  rollBack(keys: Iterable<string>, releaseFlights: boolean): void {
    const now = this.s.now();
    const store = this.s.store;
    this.s.knownHomePages.clear();
    for (const key of keys) {
      const old = this.s.hosts.get(key);
      if (!old) continue;
      if (old.inFlight && !releaseFlights) {
        old.head = undefined;
        old.nextPriority = undefined;
        old.queued = store.queuedForHost(old.partition, key);
        old.sitemaps = store.sitemaps.pendingFor(old.partition, key);
        continue;
      }
      if (old.inFlight) this.s.inFlightCount--;
      this.forget(key);
      if (!this.s.serves(old.partition)) continue;
      const fresh = this.load(key);
      fresh.queued = store.queuedForHost(fresh.partition, key);
      fresh.sitemaps = store.sitemaps.pendingFor(fresh.partition, key);
      if (releaseFlights) {
        fresh.state = releaseLostFetch({ ...fresh.state, inFlight: true, inFlightSince: now }, now, this.s.policy);
        this.s.keyGate.ended(fresh, now);
      }
      if (fresh.queued === 0 && fresh.sitemaps === 0) continue;
      this.s.hosts.set(key, fresh);
      this.makeWaiting(fresh);
    }
    this.s.recount();
    // Hosts made cold in the transaction that rolled back are not.
    if (this.s.coldHosts > 0) this.s.coldHosts = this.s.store.cold.count();
  }

  /** Pauses or resumes a host; a fetch in flight finishes. */
  setPaused(host: string, paused: boolean): void {
    this.warmByName(host);
    const entry = this.s.hosts.get(host) ?? this.load(host);
    entry.state = setPaused(entry.state, paused);
    this.s.hosts.set(host, entry);
    this.s.store.tx(() => this.save(entry));
    if (paused) {
      this.s.waiting.remove(host);
      this.s.ready.remove(host);
    } else {
      this.settle(entry);
    }
  }

  /** Sets an operator override of a host's minimum gap (0 clears it). */
  setMinGap(host: string, minGapMs: number): void {
    this.warmByName(host);
    const entry = this.s.hosts.get(host) ?? this.load(host);
    entry.minGapOverrideMs = Math.max(0, minGapMs);
    if (this.s.hosts.has(host) || entry.queued > 0) this.s.hosts.set(host, entry);
    this.s.store.tx(() => this.save(entry));
  }
}

/** What an entry keeps of its stored robots.txt besides the compiled rules (shared): its verdict and expiry, not its text. */
function verdictAndExpiry(stored: StoredRobots): NonNullable<HostEntry["robots"]>["stored"] {
  return { verdict: stored.verdict, expiresAt: stored.expiresAt };
}

/**
 * Scheduling: which host is fetched next, and when. A host waits in the heap until its politeness gap (or
 * daily cap, or robots.txt retry) has passed, then goes to a front queue by the priority of its next URL;
 * `nextTasks` takes hosts from the best queue first and makes one task for each: robots.txt when the host
 * has none fresh, then its sitemaps (its home page aside), then the head of its queue, skipping heads its
 * robots.txt forbids. A host has at most one task in flight, and none while robots.txt was unavailable.
 * Retries and refetches whose time has come are moved back into their host queues at most once a second.
 *
 * It records two histograms (core/stats):
 *   - `frontier.queue-wait-seconds`: for each page task handed out, the time since its URL was queued
 *     here (admitted, due again for a retry or refetch, or received by a handoff through `admit`), to about
 *     a second (seq-clock.ts); URLs queued before this process started are not observed;
 *   - `politeness.gap-wait-seconds`: for each task handed out, how long it waited for its host's gap: the
 *     host's next allowed time minus the moment the host had work to do (a URL queued and no fetch in
 *     flight), when that is positive. A host that was allowed already when it got work is not observed, so
 *     the histogram's count is the number of requests that waited for a gap.
 *
 * Cost per task: a heap pop and a ready-queue shift, the host's cached head and robots.txt (read from the
 * store once per change), one URL-state read for the validators, one task object.
 */
import { isDiskFull } from "../../core/errors/index.ts";
import { NO_RENDER_MEMORY, renderAsk } from "../../core/render/index.ts";
import type { FetchTask, SitemapRef, TaskKind } from "../../core/model/index.ts";
import { onFetchStart } from "../../core/politeness/index.ts";
import { countToday, nextUtcDayStart, urlPathAndQuery } from "../../core/traps/index.ts";
import { isHomePage, originOf } from "../../core/url/index.ts";
import type { ActiveHosts } from "./active-hosts.ts";
import type { DiskWatch } from "./disk-full.ts";
import type { FrontierState } from "./frontier-state.ts";
import type { HostEntry } from "./host-entry.ts";
import type { HostSitemaps } from "./host-sitemaps.ts";
import { nextTurn } from "./job-turns.ts";
import type { QueuedUrl } from "./store/frontier-store.ts";
import type { SitemapRow } from "./store/sitemap-table.ts";

/** Hosts filed into the ready queues per task asked for, and at least, in one nextTasks call. */
const PROMOTE_PER_TASK = 4;
const PROMOTE_AT_LEAST = 4_096;

/** How long a host whose queued URLs all belong to paused or ended jobs waits before it is looked at again. */
const HELD_RECHECK_MS = 5_000;
/** The same while a job waits for page budget here (job-budgets.ts). */
const STARVED_RECHECK_MS = 500;

/** Most robots.txt-disallowed heads written off for one host in one turn (the rest on its next turn). */
const HEAD_SKIP_LIMIT = 64;

export class Scheduling {
  constructor(
    private readonly s: FrontierState,
    private readonly hosts: ActiveHosts,
    private readonly sitemaps: HostSitemaps,
    private readonly disk: DiskWatch,
  ) {}

  /** Hands out up to `max` fetch tasks for hosts that may be fetched now. */
  nextTasks(max: number): FetchTask[] {
    if (this.s.draining) return [];
    const now = this.s.now();
    if (this.disk.stillFull(now)) return [];
    this.pumpDue(now);
    const { waiting, ready } = this.s;
    // Hosts that fell due are filed into the ready queues a bounded number at a time: when a million fall
    // due together (a big seed list, a resume) filing them all took one call 8-17 s, the loop stalled.
    // The rest stay in the heap, first due first, and are filed by the next calls (nextWakeAt says now).
    let budget = Math.max(PROMOTE_PER_TASK * max, PROMOTE_AT_LEAST);
    // Cold hosts due soon come into memory as room is made, a bounded number a call (active-hosts.ts).
    this.hosts.warm(now, budget);
    for (let e = waiting.popReady(now); e; e = budget > 0 ? waiting.popReady(now) : undefined) {
      this.promote(e.host);
      budget--;
    }
    const tasks: FetchTask[] = [];
    while (tasks.length < max) {
      const host = ready.shift();
      if (host === undefined) break;
      let task: FetchTask | undefined;
      try {
        task = this.taskFor(host, now);
      } catch (error) {
        // A robots.txt-disallowed head could not be written off: the host tries again in a second.
        waiting.push(host, now + 1_000);
        if (!isDiskFull(error)) throw error;
        this.disk.noteFull(error);
        break;
      }
      if (task) tasks.push(task);
    }
    return tasks;
  }

  /** When the next host becomes ready (for the dispatcher's sleep); undefined when none is waiting. */
  nextWakeAt(): number | undefined {
    const now = this.s.now();
    if (this.s.ready.size > 0) return now;
    const next = this.s.waiting.peek()?.at;
    // The earliest scheduled retry or refetch changes rarely and is hours away: read it at most once a
    // second (the loop wakes at least that often anyway), not on every wake.
    if (now - this.s.dueReadAt >= 1000) {
      this.s.dueReadAt = now;
      this.s.dueAt = this.s.store.nextDueAt();
    }
    const due = this.s.dueAt;
    // A cold host is warmed a moment before its time; the loop must wake for it (only while there is room).
    const cold = this.s.coldHosts > 0 && this.s.hosts.size < this.hosts.warmLimit ? this.s.store.cold.nextDueAt() : undefined;
    return earliest(earliest(next, due), cold === undefined ? undefined : Math.max(now, cold - 1_000));
  }

  /** Moves retries and refetches whose time has come back into their host queues. */
  private pumpDue(now: number): void {
    if (now - this.s.lastDuePump < 1000) return;
    this.s.lastDuePump = now;
    const store = this.s.store;
    const due = store.nextDueAt();
    if (due === undefined || due > now) return;
    const hosts = new Set<string>();
    try {
      store.tx(() => {
        for (const host of this.sitemaps.rereadDueFeeds(now, 10_000)) hosts.add(host);
        for (const s of store.takeDue(now, 10_000)) {
          hosts.add(s.host);
          store.setUrlState(s, "queued");
          const item = {
            host: s.host,
            partition: s.partition,
            priority: s.priority,
            url: s.url,
            depth: s.depth,
            hops: 0,
            kind: s.kind,
            ...(s.job ? { job: s.job } : {}),
          };
          this.hosts.queued(item, store.enqueue(item));
          this.s.counters.add("frontier.rescheduled");
        }
        store.saveSeq();
      });
    } catch (error) {
      this.hosts.rollBack(hosts, false);
      if (!isDiskFull(error)) throw error;
      this.disk.noteFull(error); // the due URLs stay scheduled: taken again once there is room
    }
  }

  /** A host's gap has passed: file it under the priority of its next URL. */
  private promote(host: string): void {
    const entry = this.s.hosts.get(host);
    if (!entry) return;
    const priority = this.hosts.headPriority(entry);
    if (priority === undefined && entry.sitemaps <= 0) return this.hosts.settle(entry);
    // A host with a sitemap to read goes at least to level 2: its sitemap may hold its best pages. One whose
    // robots.txt must be read first waits in the robots.txt lane, which shares the turns (ready-queues.ts).
    const needsRobots = this.hosts.needsRobots(entry, this.s.now());
    this.s.ready.push(host, priority !== undefined && (entry.sitemaps <= 0 || priority === 1) ? priority : 2, needsRobots);
  }

  private taskFor(host: string, now: number): FetchTask | undefined {
    const entry = this.s.hosts.get(host);
    if (!entry || entry.inFlight || entry.state.paused) return undefined;
    const store = this.s.store;
    if (countToday(entry.pagesToday, now) >= this.s.policy.maxPagesPerHostPerDay) {
      this.s.counters.add("frontier.host-daily-cap-waits");
      this.s.waiting.push(host, nextUtcDayStart(now));
      return undefined;
    }
    let head = this.runnableHead(entry);
    if (head === null) return this.park(host, now);
    // Sitemaps are read before the host's pages, its home page aside (the way in, and often what names them).
    let sitemap = head && isHomePage(head.url) ? undefined : this.sitemaps.next(entry);
    if (!head && !sitemap) return void this.hosts.settle(entry);
    const robots = this.hosts.robotsOf(entry);
    if (!robots || robots.stored.expiresAt <= now) {
      return this.start(entry, "robots", `${originOf((head ?? sitemap)!.url)}/robots.txt`, now);
    }
    if (robots.stored.verdict === "disallow-all") {
      // robots.txt was unavailable (5xx or unreachable): nothing may be fetched until it is read again.
      this.s.counters.add("robots.host-parked");
      this.s.waiting.push(host, robots.stored.expiresAt);
      return undefined;
    }
    // A sitemap is a request like any other: robots.txt may forbid it, and then it is never read.
    while (sitemap && robots.policy && !robots.policy.isAllowed(urlPathAndQuery(sitemap.url))) {
      const forbidden = sitemap;
      store.tx(() => store.sitemaps.finish(forbidden, "disallowed", now));
      this.sitemaps.finished(entry);
      this.s.counters.add("robots.disallowed-sitemaps");
      sitemap = this.sitemaps.next(entry);
    }
    // A sitemap or feed of an ended job is not read: its entries would all be refused (admission.ts). It is
    // set aside as read without a next read (a feed leaves its schedule), until some job offers it again.
    while (sitemap?.job && this.s.jobs.hasEnded(sitemap.job)) {
      const ended = sitemap;
      store.tx(() => store.sitemaps.finish(ended, "read", now, undefined, true));
      this.sitemaps.finished(entry);
      this.s.counters.add("frontier.sitemaps-of-ended-jobs");
      sitemap = this.sitemaps.next(entry);
    }
    if (sitemap) return this.start(entry, "sitemap", sitemap.url, now, undefined, sitemap);
    if (!head) return void this.hosts.settle(entry);
    // A page task: the host's jobs take their turns (job-turns.ts); robots.txt and sitemaps above took none.
    const turn = this.turnHead(entry, head);
    if (turn === null) return this.park(host, now);
    head = turn;
    for (let skipped = 0; head && robots.policy && skipped < HEAD_SKIP_LIMIT; skipped++) {
      if (robots.policy.isAllowed(urlPathAndQuery(head.url))) break;
      store.tx(() => {
        store.dequeue(head!);
        store.setUrlState(head!, "robots-disallowed");
      });
      this.s.counters.add("robots.disallowed");
      this.hosts.dequeued(entry, head);
      const next = this.runnableHead(entry);
      if (next === null) return this.park(host, now);
      head = next;
    }
    if (!head) return void this.hosts.settle(entry);
    if (robots.policy && !robots.policy.isAllowed(urlPathAndQuery(head.url))) {
      this.s.ready.push(host, head.priority);
      return undefined;
    }
    // A job with maxPages hands out a page only against a unit of its budget held here (job-budgets.ts).
    const budgets = this.s.budgets;
    if (budgets && !budgets.mayHandOut(head.job)) return this.park(host, now);
    const task = this.start(entry, head.kind, head.url, now, head);
    if (task) budgets?.spent(task);
    return task;
  }

  /**
   * The host's next URL of a job that may run (job-gate.ts): its head, or when the head's job is held (paused
   * or ended) the first URL of a running job behind it; null when it has URLs but none may run now.
   */
  private runnableHead(entry: HostEntry): QueuedUrl | undefined | null {
    const head = this.hosts.headOf(entry);
    const jobs = this.s.jobs;
    if (!head || jobs.runs(head.job)) return head;
    return this.s.store.headExcept(entry.partition, entry.key, jobs.heldList) ?? null;
  }

  /** The URL the page task goes to: `head`, or when the host has URLs of several jobs, the next turn's. */
  private turnHead(entry: HostEntry, head: QueuedUrl): QueuedUrl | null {
    if (!entry.jobTurns || entry.jobTurns.size <= 1) return head;
    const turn = this.weightedHead(entry, head);
    return turn === undefined ? head : turn;
  }

  /**
   * The next URL of the job whose turn it is at this host (job-turns.ts), among the jobs that run; null when
   * none of them may run now; undefined once the host is down to one job (turns let go: its head is next).
   */
  private weightedHead(entry: HostEntry, head: QueuedUrl): QueuedUrl | null | undefined {
    const turns = entry.jobTurns!;
    const jobs = this.s.jobs;
    for (;;) {
      const candidates = [...turns.keys()].filter((j) => jobs.runs(j));
      if (candidates.length === 0) return null;
      const job = nextTurn(turns, candidates, (j) => jobs.weightOf(j));
      const item = (head.job ?? 0) === job ? head : this.s.store.headOfJob(entry.partition, entry.key, job);
      if (item) return item;
      // Nothing of that job left here: it leaves the turns.
      turns.delete(job);
      if (turns.size <= 1) {
        entry.jobTurns = undefined;
        return undefined;
      }
    }
  }

  /**
   * A host whose queued URLs are all of held jobs: asked again after HELD_RECHECK_MS (a resume is heard by
   * then), or STARVED_RECHECK_MS while some job waits for page budget (a chunk is one round away).
   */
  private park(host: string, now: number): undefined {
    this.s.counters.add("frontier.hosts-held-by-jobs");
    this.s.waiting.push(host, now + (this.s.jobs.anyStarved ? STARVED_RECHECK_MS : HELD_RECHECK_MS));
    return undefined;
  }

  /** Hands out the task, unless the host's politeness key is busy or not due (key-gate.ts: it is asked again). */
  private start(entry: HostEntry, kind: TaskKind, url: string, now: number, item?: QueuedUrl, sitemap?: SitemapRow): FetchTask | undefined {
    if (!this.s.keyGate.mayStart(entry, now)) return undefined;
    const policy = this.s.policy;
    this.observeWaits(entry, now, item);
    entry.state = onFetchStart(entry.state, now);
    const prev = item ? this.s.store.getUrl(item.partition, item.url) : undefined;
    const task: FetchTask = {
      taskId: this.s.opts.newTaskId(),
      kind,
      url,
      host: entry.key,
      partition: entry.partition,
      depth: item?.depth ?? sitemap?.depth ?? 0,
      redirectHops: item?.hops ?? sitemap?.hops ?? 0,
      etag: prev?.etag ?? sitemap?.feed?.etag ?? undefined,
      lastModified: prev?.lastModified ?? sitemap?.feed?.lastModified ?? undefined,
      previousFingerprint: prev?.fingerprint ?? undefined,
      hostGapMs: Math.ceil(Math.max(policy.minGapMs, entry.state.gapMs)) + policy.gapMarginMs,
      issuedAt: now,
      ...(sitemap ? { sitemap: sitemapRefOf(sitemap) } : {}),
    };
    // A sitemap's image and video extensions name media as a page does.
    if ((kind === "page" || kind === "sitemap") && policy.fetchMedia) task.fetchMedia = true;
    if (item?.job) task.job = item.job;
    // A sitemap or feed of a job: its task is the job's, so the fetch worker gives its entries that job.
    else if (sitemap?.job) task.job = sitemap.job;
    if (kind === "page") this.askRender(entry, task);
    entry.inFlight = { task, item, prev, sitemap };
    this.s.keyGate.started(entry);
    this.s.inFlightCount++;
    this.s.counters.add(`frontier.tasks.${kind}`);
    return task;
  }

  /**
   * Whether the page is to be rendered (the rule for its URL, and what rendering found on its host before),
   * and with it the host's robots.txt text, which the render's requests to the host obey. The text is read
   * from the store only for a page to render: the host's entry keeps compiled rules, not the text.
   */
  private askRender(entry: HostEntry, task: FetchTask): void {
    const ask = renderAsk(this.s.render.modeFor(task.url, entry.key), entry.renderMemory ?? NO_RENDER_MEMORY);
    if (ask === undefined) return;
    if (this.s.opts.renderAvailable && !this.s.opts.renderAvailable()) {
      this.s.counters.add("render.no-renderer");
      return;
    }
    task.render = ask;
    const robots = this.s.store.loadRobots(entry.key);
    if (robots?.verdict === "parse" && robots.body) task.robotsText = robots.body;
  }

  /** The gap wait and queue wait of a task handed out now (see the module comment). */
  private observeWaits(entry: HostEntry, now: number, item: QueuedUrl | undefined): void {
    const since = entry.workSince;
    entry.workSince = undefined;
    if (since !== undefined && entry.state.nextAllowedAt > since)
      this.s.histograms.observe("politeness.gap-wait-seconds", (entry.state.nextAllowedAt - since) / 1000);
    if (item === undefined) return;
    const queuedAt = this.s.queuedAt.queuedAt(item.seq);
    if (queuedAt !== undefined) this.s.histograms.observe("frontier.queue-wait-seconds", Math.max(0, now - queuedAt) / 1000);
  }
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

/** What a sitemap task may list, from its row: its grants, whether an index listed it, whether it is a feed. */
function sitemapRefOf(row: SitemapRow): SitemapRef {
  return { grants: row.grants, ...(row.fromIndex ? { fromIndex: true } : {}), ...(row.feed ? { feed: true } : {}) };
}

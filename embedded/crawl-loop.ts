/**
 * The embedded crawl loop: asks the frontier for tasks whose hosts may be fetched now, runs each on the
 * fetch worker (many at once, one per host), and hands every result back to the frontier. It sleeps
 * until the next host is due, the next retry or refetch falls due, or a fetch finishes, never on a fixed
 * tick. It stops when a page or time limit is reached, when asked to, or (unless `continuous`) when nothing
 * may be fetched within `horizonMs` (Frontier.hasWorkWithin: a host waiting only for its politeness gap
 * always counts, and so does a sitemap waiting to be read): "done" when no URL or sitemap is left queued,
 * "nothing-due" when some wait behind hosts that cannot be asked that soon (robots.txt unavailable, daily
 * cap reached). What is scheduled later stays in the store for the next run. On a stop it aborts the
 * fetches in flight after a short grace period and gives their tasks back, so a resumed crawl refetches
 * exactly those pages. A full disk does not stop it: a page that could not be written is given back, and
 * the frontier hands out nothing until there is room again.
 */
import { isAddressBusy, isLocalFailure, type FetchTask, type DiscoveredUrl, type FetchResult } from "../core/model/index.ts";
import type { LocalTrouble } from "../engine/fetch/index.ts";
import type { Frontier } from "../engine/frontier/index.ts";
import { GroupCommit } from "../engine/frontier/index.ts";
import type { TaskRunner } from "../core/ports/index.ts";
import { isDiskFull } from "../core/errors/index.ts";

export interface CrawlLoopOptions {
  frontier: Frontier;
  worker: TaskRunner;
  maxInFlight: number;
  /** Stop after this many page responses (robots.txt not counted). */
  maxPages?: number;
  /** Stop at this time (epoch ms). */
  deadline?: number;
  /** How long fetches in flight may finish after a stop before they are aborted. */
  stopGraceMs: number;
  /** Keep running while nothing is due, for refetches and retries as they fall due (`crawl --continuous`). */
  continuous?: boolean;
  /** Without `continuous`: end once nothing is in flight and nothing falls due within this long. */
  horizonMs: number;
  now: () => number;
  /**
   * Failures of our own side (proxy, ports, file table, resolver): their tasks go back untouched and no new
   * fetch starts until it allows (engine/fetch local-trouble.ts).
   */
  trouble: LocalTrouble;
  /** True while something else still adds work (seeds being read): the loop does not end for lack of work. */
  busy?: () => boolean;
  /**
   * Awaited after each task's result is applied: crawl jobs end the job whose page limit it reached there
   * (embedded/jobs.ts), so it shows `done` at once; the limit itself is kept by the page budgets.
   */
  afterResult?: (task: FetchTask) => Promise<void>;
  /** A launched task went back to its host with no result (stop, server at its cap, our own failure). */
  givenBack?: (task: FetchTask) => void;
  /** Called for every error that is a bug or a broken store, not a web problem. */
  onError: (error: unknown, task: FetchTask) => void;
}

export type StopReason = "done" | "nothing-due" | "max-pages" | "max-duration" | "interrupted" | "error";

export class CrawlLoop {
  pages = 0;
  private stopReason: StopReason | undefined;
  private readonly running = new Map<string, { task: FetchTask; done: Promise<void> }>();
  private readonly abort = new AbortController();
  private wake: (() => void) | undefined;
  private readonly results: GroupCommit<{ result: FetchResult; links: readonly DiscoveredUrl[] }>;

  constructor(private readonly opts: CrawlLoopOptions) {
    this.results = new GroupCommit((items) => opts.frontier.completeMany(items));
  }

  /** Asks the loop to stop (Ctrl-C); `run` resolves once fetches in flight are finished or given back. */
  stop(reason: StopReason = "interrupted"): void {
    this.stopReason ??= reason;
    this.wake?.();
  }

  /** New work arrived from outside (a batch of seeds): look for tasks now rather than at the next wake. */
  poke(): void {
    this.wake?.();
  }

  get inFlight(): number {
    return this.running.size;
  }

  async run(): Promise<StopReason> {
    const { frontier, maxInFlight } = this.opts;
    while (this.stopReason === undefined) {
      const now = this.opts.now();
      if (this.opts.deadline !== undefined && now >= this.opts.deadline) {
        this.stop("max-duration");
        break;
      }
      let room = Math.min(maxInFlight - this.running.size, this.opts.trouble.allowance());
      if (this.opts.maxPages !== undefined) room = Math.min(room, this.opts.maxPages - this.pages - this.pagesInFlight());
      const tasks = room > 0 ? frontier.nextTasks(room) : [];
      // Every round, also one that handed out nothing: it takes budget for jobs whose hosts wait for some.
      const refused = new Set((await frontier.settleBudgets()).map((t) => t.taskId));
      for (const task of tasks) {
        if (refused.has(task.taskId)) frontier.abandon(task);
        else this.launch(task);
      }
      if (this.opts.maxPages !== undefined && this.pages >= this.opts.maxPages) {
        this.stop("max-pages");
        break;
      }
      // Without --continuous, done when nothing runs and nothing falls due within the horizon (URLs or
      // sitemaps to read). Retries and refetches scheduled for later stay in the store: the next run of the
      // same command (or this one with --continuous) picks them up.
      // Nor while our own side is failing (tasks were given back, not done): nothing can be concluded then.
      if (this.running.size === 0 && !this.opts.continuous && !this.opts.busy?.() && !this.opts.trouble.troubled && this.nothingDueSoon()) {
        this.stop(frontier.queued === 0 && frontier.sitemapsPending === 0 ? "done" : "nothing-due");
        break;
      }
      const wakeAt = this.opts.trouble.resumeAt ?? frontier.nextWakeAt();
      // Sleep until the next host is due, at most a second, at least a millisecond (no busy loop); a
      // finished fetch wakes the loop early, since it may free a host or bring new ones.
      let waitMs = room <= 0 || wakeAt === undefined ? 1000 : wakeAt - this.opts.now();
      if (this.opts.deadline !== undefined) waitMs = Math.min(waitMs, this.opts.deadline - this.opts.now());
      await this.sleep(Math.min(1000, Math.max(1, waitMs)));
    }
    await this.drain();
    return this.stopReason ?? "done";
  }

  private nothingDueSoon(): boolean {
    return !this.opts.frontier.hasWorkWithin(this.opts.horizonMs);
  }

  private pagesInFlight(): number {
    let n = 0;
    for (const { task } of this.running.values()) if (task.kind === "page") n++;
    return n;
  }

  private launch(task: FetchTask): void {
    this.opts.trouble.started();
    const done = this.opts.worker
      .run(task, this.abort.signal)
      .then(async (out) => {
        if (this.abort.signal.aborted) {
          this.giveBack(task);
          return;
        }
        if (isAddressBusy(out.result)) {
          // Its server stayed at its cap (--max-per-address): never asked, so the host only waits its gap again.
          this.giveBack(task);
          this.opts.frontier.counters.add("fetch.address.given-back");
          return;
        }
        if (isLocalFailure(out.result)) {
          // The host was never asked: its task goes back as it was, and the whole crawl waits instead.
          this.giveBack(task);
          this.opts.trouble.failed(out.result.local, out.result.message ?? out.result.local);
          return;
        }
        this.opts.trouble.succeeded();
        if (out.result.serverWaitMs) this.opts.frontier.counters.add("fetch.address.waits");
        if (task.kind === "page" && out.result.kind === "response") this.pages++;
        await this.results.submit({ result: out.result, links: out.links });
        await this.opts.afterResult?.(task);
      })
      .catch((error: unknown) => {
        this.giveBack(task);
        if (this.abort.signal.aborted) return; // given back on stop: the next run fetches it
        if (isDiskFull(error)) {
          // The page (or its result) could not be written: it is fetched again once there is room, and until
          // then the frontier hands out no task (it probes the disk every few seconds).
          this.opts.frontier.noteDiskFull(error);
          return;
        }
        this.opts.onError(error, task);
        this.stop("error");
      })
      .finally(() => {
        this.running.delete(task.taskId);
        this.wake?.();
      });
    this.running.set(task.taskId, { task, done });
  }

  private giveBack(task: FetchTask): void {
    this.opts.frontier.abandon(task);
    this.opts.givenBack?.(task);
  }

  private async drain(): Promise<void> {
    if (this.running.size === 0) return;
    const all = Promise.all([...this.running.values()].map((r) => r.done));
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.opts.stopGraceMs).unref?.());
    await Promise.race([all, grace]);
    if (this.running.size > 0) {
      this.abort.abort(new Error("crawl stopping"));
      await all;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }
}

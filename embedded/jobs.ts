/**
 * Crawl jobs in `crawl`: the same JobService as the cluster's (core/jobs), over this crawl's own registry
 * (adapters/sqlite SqliteJobRegistry, `jobs.sqlite` under --out, so jobs survive a restart on the same
 * directory), its one frontier's counters (Frontier.jobReport: the job_counts rows and queued rows of the
 * frontier store), and seeds admitted straight into that frontier with the job's number. Every record
 * written reaches the frontier through `Frontier.setJob` (engine/frontier job-control.ts) as the cluster's
 * watch does; on open, every stored record does, before anything is handed out. A job's page tasks are
 * handed out against its page budget (page-budget.ts), so its page results never pass maxPages at any
 * concurrency. The end rules (JobService.endDue) run on a tick, as on the coordinator, and after a page
 * result of a job with a page limit once that job may have reached it, so it shows `done` at once rather
 * than at the next tick; a job whose budget is spent for good ends by the budget too (core/jobs
 * SpentBudgets), as in the cluster.
 *
 * Cost: counting a job's queued URLs reads its rows of the queue's job index (Frontier.jobReport), so the
 * tick reads the frontier's counts as they were at most 5 s ago, and a fresh count is taken only when a
 * limited job's pages, as last counted plus the page results of its tasks since (an upper bound: one page
 * result a task at most), reach its limit: a few fresh counts per job, not one per result.
 */
import { join } from "node:path";
import { SqliteJobRegistry } from "../adapters/sqlite/index.ts";
import { ConfigError, type PolicyConfig } from "../core/config/index.ts";
import { InvalidArgumentError, NotFoundError } from "../core/errors/index.ts";
import { DEFAULT_JOB_ID, isEnded, JobService, SpentBudgets, type JobCounts, type JobRecord, type SeedsAdded } from "../core/jobs/index.ts";
import { AddressPolicy } from "../core/net/index.ts";
import type { JobBudget, Log } from "../core/ports/index.ts";
import { screenSeeds } from "../core/seeds/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import type { Frontier } from "../engine/frontier/index.ts";
import { errorFields } from "../kit/log/index.ts";

/** Most URLs one add-seeds request may carry (the admin API's default, --max-seeds-per-request). */
export const CRAWL_MAX_SEEDS_PER_REQUEST = 10_000;
const END_TICK_MS = 1_000;

export interface CrawlJobsOptions {
  out: string;
  frontier: Frontier;
  policy: PolicyConfig;
  now: () => number;
  log: Log;
  /** Seeds were admitted: the crawl loop looks for work now. */
  onSeeds: () => void;
  /** The page budgets the frontier hands out against (page-budget.ts): a job whose budget is spent ends. */
  budget?: JobBudget;
}

export class CrawlJobs {
  readonly service: JobService;
  private readonly stopWatch: () => void;
  private readonly ticker: ReturnType<typeof setInterval>;
  /** Jobs running with a page limit, by number, as last written: only their results may end one early. */
  private readonly limited = new Map<number, number>();
  /** Page results of each job as last counted fresh, and tasks of limited jobs finished since. */
  private counted = new Map<number, number>();
  private readonly since = new Map<number, number>();
  /** Whether the next count must be fresh (a limit may have been reached) or may be up to 5 s old (the tick). */
  private fresh = false;
  private ending: Promise<void> | undefined;

  private constructor(
    private readonly registry: SqliteJobRegistry,
    private readonly opts: CrawlJobsOptions,
  ) {
    const addresses = AddressPolicy.of(opts.policy);
    this.service = new JobService({
      registry,
      counts: async () => this.counts(),
      seeds: { add: (urls, job, feeds) => this.addSeeds(addresses, urls, job, feeds) },
      now: opts.now,
      ...(opts.budget && { budgets: new SpentBudgets(opts.budget) }),
    });
    // The page results already counted (a restart): what a limited job's trigger adds its new results to.
    this.fresh = true;
    this.counts();
    this.stopWatch = registry.watchJobs((job) => this.heard(job));
    this.ticker = setInterval(() => void this.endDue(), END_TICK_MS);
    this.ticker.unref?.();
  }

  /** Opens `jobs.sqlite` under `out` and applies every stored job to the frontier. */
  static open(opts: CrawlJobsOptions): CrawlJobs {
    return new CrawlJobs(SqliteJobRegistry.open(join(opts.out, "jobs.sqlite")), opts);
  }

  /**
   * After a task's result is applied: when its job has a page limit it may have reached, runs the end
   * rules on a fresh count before the next task is handed out.
   */
  async afterResult(task: Pick<FetchTask, "job" | "kind">): Promise<void> {
    const job = task.job ?? 0;
    const max = this.limited.get(job);
    if (max === undefined || task.kind === "robots" || task.kind === "sitemap") return;
    const since = (this.since.get(job) ?? 0) + 1;
    this.since.set(job, since);
    if ((this.counted.get(job) ?? 0) + since < max) return;
    await this.ending;
    this.fresh = true;
    await this.endDue();
  }

  /**
   * The number of job `id` for the command line's seeds (`--job`): created, running with no limits, when
   * new; a job that has ended takes no more seeds (a usage error, as the API's 409).
   */
  async seedJob(id: string): Promise<number> {
    if (id === DEFAULT_JOB_ID) return 0;
    try {
      const { job } = await this.service.show(id);
      if (isEnded(job)) throw new ConfigError(`--job ${id}: the job has ended (${job.reason ?? job.state}); give another id for new seeds`);
      return job.number;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    const created = await this.service.create({ id, seeds: [], maxPages: 0, maxDurationMs: 0, weight: 1 });
    this.opts.log.info(`created job ${id} for the command line's seeds`, { job: id, number: created.job.number });
    return created.job.number;
  }

  /** Runs the end rules once (one run at a time); a job ended is logged. */
  endDue(): Promise<void> {
    this.ending ??= this.service
      .endDue()
      .then((ended) => {
        for (const job of ended) this.opts.log.info(`job ${job.id} ended: ${job.reason}`, { job: job.id, reason: job.reason });
      })
      .catch((error: unknown) => this.opts.log.error("could not end the crawl jobs due", errorFields(error)))
      .finally(() => {
        this.ending = undefined;
      });
    return this.ending;
  }

  /** Stops the tick, lets a run of the end rules under way finish, and closes jobs.sqlite. */
  async close(): Promise<void> {
    clearInterval(this.ticker);
    await this.ending;
    this.stopWatch();
    this.registry.close();
  }

  /** Each job's counters for the end rules: fresh when a limit may have been reached, else as last recounted. */
  private counts(): Map<number, JobCounts> {
    const fresh = this.fresh;
    this.fresh = false;
    const counts = countsOf(this.opts.frontier.jobReport(fresh));
    if (fresh) {
      this.counted = new Map([...counts].map(([job, c]) => [job, c.pages]));
      this.since.clear();
    }
    return counts;
  }

  private heard(job: JobRecord): void {
    if (job.maxPages > 0 && !isEnded(job)) this.limited.set(job.number, job.maxPages);
    else this.limited.delete(job.number);
    const dropped = this.opts.frontier.setJob(job);
    if (dropped > 0) this.opts.log.info("dropped a cancelled job's queued URLs", { job: job.id, dropped });
  }

  private async addSeeds(addresses: AddressPolicy, urls: readonly string[], job: number, feeds: readonly string[]): Promise<SeedsAdded> {
    const total = urls.length + feeds.length;
    if (total === 0) throw new InvalidArgumentError("urls: give at least one URL");
    if (total > CRAWL_MAX_SEEDS_PER_REQUEST)
      throw new InvalidArgumentError(
        `urls: at most ${CRAWL_MAX_SEEDS_PER_REQUEST} URLs per request (urls and feeds together), got ${total}`,
      );
    const { accepted, rejected } = screenSeeds(urls, addresses, job, feeds);
    if (accepted.length > 0) {
      await this.opts.frontier.addSeeds(accepted);
      this.opts.onSeeds();
    }
    return { accepted: accepted.length, rejected };
  }
}

function countsOf(report: Record<string, JobCounts>): Map<number, JobCounts> {
  return new Map(Object.entries(report).map(([job, c]) => [Number(job), c]));
}

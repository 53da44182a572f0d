/**
 * Crawl jobs in `crawl`: the same JobService as the cluster's (core/jobs), over this crawl's own registry
 * (adapters/sqlite SqliteJobRegistry, `jobs.sqlite` under --out, so jobs survive a restart on the same
 * directory), its one frontier's counters (Frontier.jobReport: the job_counts rows and queued rows of the
 * frontier store), and seeds admitted straight into that frontier with the job's number. Every record
 * written reaches the frontier through `Frontier.setJob` (engine/frontier job-control.ts) as the cluster's
 * watch does; on open, every stored record does, before anything is handed out. The end rules
 * (JobService.endDue) run on a tick, as on the coordinator, and after each batch of results while a job
 * has a page limit: with one fetch in flight (--max-in-flight 1) a job stops exactly at maxPages; with
 * more, the fetches of the job already in flight finish and are counted (exact budgets per job are the
 * frontier's JobBudget, built apart).
 */
import { join } from "node:path";
import { SqliteJobRegistry } from "../adapters/sqlite/index.ts";
import type { PolicyConfig } from "../core/config/index.ts";
import { InvalidArgumentError } from "../core/errors/index.ts";
import { isEnded, JobService, type JobCounts, type JobRecord, type SeedsAdded } from "../core/jobs/index.ts";
import { AddressPolicy } from "../core/net/index.ts";
import type { Log } from "../core/ports/index.ts";
import { screenSeeds } from "../core/seeds/index.ts";
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
}

export class CrawlJobs {
  readonly service: JobService;
  private readonly stopWatch: () => void;
  private readonly ticker: ReturnType<typeof setInterval>;
  /** Jobs running with a page limit, as last written: only then is endDue worth a run after each batch. */
  private readonly limited = new Set<string>();
  private ending: Promise<void> | undefined;

  private constructor(
    private readonly registry: SqliteJobRegistry,
    private readonly opts: CrawlJobsOptions,
  ) {
    const addresses = AddressPolicy.of(opts.policy);
    this.service = new JobService({
      registry,
      counts: async () => countsOf(opts.frontier.jobReport(true)),
      seeds: { add: (urls, job) => this.addSeeds(addresses, urls, job) },
      now: opts.now,
    });
    this.stopWatch = registry.watchJobs((job) => this.heard(job));
    this.ticker = setInterval(() => void this.endDue(), END_TICK_MS);
    this.ticker.unref?.();
  }

  /** Opens `jobs.sqlite` under `out` and applies every stored job to the frontier. */
  static open(opts: CrawlJobsOptions): CrawlJobs {
    return new CrawlJobs(SqliteJobRegistry.open(join(opts.out, "jobs.sqlite")), opts);
  }

  /** After a batch of results: ends the jobs whose limit they reached, before the next task is handed out. */
  async afterResults(): Promise<void> {
    if (this.limited.size > 0) await this.endDue();
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

  close(): void {
    clearInterval(this.ticker);
    this.stopWatch();
    this.registry.close();
  }

  private heard(job: JobRecord): void {
    if (job.maxPages > 0 && !isEnded(job)) this.limited.add(job.id);
    else this.limited.delete(job.id);
    const dropped = this.opts.frontier.setJob(job);
    if (dropped > 0) this.opts.log.info("dropped a cancelled job's queued URLs", { job: job.id, dropped });
  }

  private async addSeeds(addresses: AddressPolicy, urls: readonly string[], job: number): Promise<SeedsAdded> {
    if (urls.length === 0) throw new InvalidArgumentError("urls: give at least one URL");
    if (urls.length > CRAWL_MAX_SEEDS_PER_REQUEST)
      throw new InvalidArgumentError(`urls: at most ${CRAWL_MAX_SEEDS_PER_REQUEST} URLs per request, got ${urls.length}`);
    const { accepted, rejected } = screenSeeds(urls, addresses, job);
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

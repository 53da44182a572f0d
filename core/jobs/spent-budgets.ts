/**
 * When a job's page budget (core/ports/job-budget.ts) is spent for good, in both modes: the cluster's lease
 * holder (coordinator/job-budgets.ts BudgetKeeper) and `crawl` (embedded/jobs.ts) give it to
 * JobService.endDue as its `budgets`. A job whose pool is empty and that no holder holds any of has nothing
 * more to hand out: once its page count has not moved for SETTLE_MS (the results of its last tasks applied
 * and counted), it ends `done` / `max-pages` even when units were lost to a fault (a task whose result never
 * came) and its pages are fewer than maxPages.
 *
 * Cost: one read of the budget per running job with maxPages a tick, and an entry per spent job.
 */
import type { JobBudget } from "../ports/index.ts";
import type { JobRecord } from "./job.ts";

/** How long a spent job's page count must stay still before it ends: a heartbeat's recount (5 s) and more. */
export const SETTLE_MS = 10_000;

export class SpentBudgets {
  /** Spent jobs by number: their page count when first seen spent, and since when it has not moved. */
  private readonly spentSince = new Map<number, { pages: number; since: number }>();

  constructor(protected readonly budget: JobBudget) {}

  /**
   * Whether `job` (running, with maxPages) has spent its whole budget and its page count stayed at `pages`
   * for SETTLE_MS: it ends `max-pages`.
   */
  async spentOut(job: JobRecord, pages: number, now: number): Promise<boolean> {
    if (!(job.maxPages > 0)) return false;
    const pool = await this.budget.read(job.number);
    if (!pool || pool.left > 0 || pool.held > 0) {
      this.spentSince.delete(job.number);
      return false;
    }
    const seen = this.spentSince.get(job.number);
    if (!seen || seen.pages !== pages) {
      this.spentSince.set(job.number, { pages, since: now });
      return false;
    }
    if (now - seen.since < SETTLE_MS) return false;
    this.spentSince.delete(job.number);
    return true;
  }
}

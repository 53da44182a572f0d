/**
 * The page budgets of `crawl`'s jobs with maxPages: the cluster's mechanism (core/ports/job-budget.ts, the
 * frontier side engine/frontier/job-budgets.ts, the end rule core/jobs SpentBudgets) over an in-memory
 * JobBudget with one holder, this process. The frontier hands out a job's page task only against a unit it
 * holds, and the crawl loop settles the units spent before it launches the tasks (embedded/crawl-loop.ts),
 * so a job's page results never pass maxPages whatever --max-in-flight is.
 *
 * What one process adds to the cluster's rules, both to make a job end at exactly maxPages:
 *  - a restart rebuilds the pools in memory: a job's pool starts from maxPages minus the page results the
 *    store already counted for it (frontier.sqlite's job_counts, committed with each result), so the pages
 *    of an earlier run are never granted again; a task in flight when the process died had no result
 *    counted, its URL is handed out again, and its unit with it;
 *  - a task given back with no result (the crawl stopping, a server at its --max-per-address cap, our own
 *    side failing) cannot have a result arrive later here, so its unit goes back to the pool (`givenBack`).
 *
 * Cost: nothing for jobs without maxPages; per budgeted job a pool and a custody (a few numbers), and one
 * read of the job counts table when its pool is made (once per job a run).
 */
import { MemoryJobBudget } from "../adapters/memory/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import type { FrontierStore } from "../engine/frontier/index.ts";

/** This process's name as the one holder of every job's budget. */
export const LOCAL_HOLDER = "local";

export class LocalPageBudget {
  readonly budget: MemoryJobBudget;

  constructor(store: Pick<FrontierStore, "jobCounts">) {
    this.budget = new MemoryJobBudget({ spentBefore: (job) => store.jobCounts.sums().get(job)?.pages ?? 0 });
  }

  /** The frontier's `budget` option. */
  get frontierOption(): { budget: MemoryJobBudget; holder: string } {
    return { budget: this.budget, holder: LOCAL_HOLDER };
  }

  /**
   * A task the crawl loop launched was given back to its host with no result: a page or media task of a
   * budgeted job returns its unit (a job without a pool has none to return).
   */
  givenBack(task: FetchTask): void {
    if (!task.job || task.kind === "robots" || task.kind === "sitemap") return;
    void this.budget.unspend(task.job, 1);
  }
}

/**
 * The page budgets of the crawl jobs with `maxPages`, as this frontier holds them (the port and its
 * records: core/ports/job-budget.ts; the design: docs/architecture.md, "Crawl jobs"). A job's page or media
 * task is handed out only against a unit of budget held here (`mayHandOut`, `spent`, called by
 * scheduling.ts); the units spent are written to the budget's store by `round` *before* the tasks leave the
 * frontier (the dispatcher awaits it between `nextTasks` and publishing), so what the store says this holder
 * holds is never more than it may still spend, and a crash loses at most unspent units, never counts twice.
 * A settle refused (the custody was reclaimed: this node was taken for gone) returns its tasks, which are
 * given back to their hosts unsent.
 *
 * A job with no budget here is starved in the JobGate (its URLs are held as a paused job's); when a host
 * meets one, `round` takes a chunk (core/jobs budgetChunk: what is left over the live frontier nodes, at
 * most 64, or twice what it spent the last round when that is more); a job spending here is topped up once
 * half its chunk is gone, before it starves. Budget unused for IDLE_RETURN_MS (its URLs moved to another node, or all were fetched) goes
 * back to the pool, so no node sits on pages another could fetch, and a stop gives back what is left.
 *
 * Every unit spent is a page result counted at most once (result-effects.ts counts each page or media
 * task's result once, wherever it is applied: adopted by a partition's next owner too), so a job's pages
 * never pass maxPages. A task that ends without a result (its fetch lost, the node stopping) keeps its unit
 * spent: its result may still come and be adopted. Such a unit is lost to the job, which then ends short of
 * maxPages (the coordinator ends it when the pool and every custody are empty: coordinator/job-budgets.ts).
 *
 * Cost: nothing for a crawl without maxPages (one map lookup per page task). Per budgeted job: a few
 * numbers here; one store write per dispatch round that spent units of it, and one take per chunk.
 */
import type { JobRecord } from "../../core/jobs/index.ts";
import { BUDGET_CHUNK_MAX, budgetChunk } from "../../core/jobs/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import type { JobBudget, Log } from "../../core/ports/index.ts";
import type { JobGate } from "./job-gate.ts";

/** Budget held here unspent this long goes back to the pool. */
export const IDLE_RETURN_MS = 5_000;

export interface JobBudgetsOptions {
  budget: JobBudget;
  /** This frontier's name in the budget's records (the node id). */
  holder: string;
  /** Live frontier nodes sharing the budgets (chunk size); default 1. */
  holders?: () => number;
  now: () => number;
  log?: Log;
}

interface Local {
  maxPages: number;
  /** Custody as the store last said (units not settled as spent). */
  held: number;
  /** Tasks handed out since the last settle, each a unit of `held`. */
  pending: FetchTask[];
  lastSpentAt: number;
  /** Units settled at the last round: the demand a take sizes its chunk by. */
  spentLastRound: number;
  /** The pool was empty at the last take: no top-up is asked for until the custody runs out. */
  poolEmpty: boolean;
}

export class JobBudgets {
  private readonly jobs = new Map<number, Local>();

  constructor(
    private readonly gate: JobGate,
    private readonly opts: JobBudgetsOptions,
  ) {}

  /** Takes a job's record: a running job with maxPages is budgeted from now on. */
  setJob(job: Pick<JobRecord, "number" | "state"> & Partial<JobRecord>): void {
    if (job.number === 0 || !(job.maxPages !== undefined && job.maxPages > 0)) {
      this.jobs.delete(job.number);
      this.gate.setStarved(job.number, false);
      return;
    }
    const local = this.jobs.get(job.number);
    if (!local) {
      this.jobs.set(job.number, {
        maxPages: job.maxPages,
        held: 0,
        pending: [],
        lastSpentAt: this.opts.now(),
        spentLastRound: 0,
        poolEmpty: false,
      });
    }
    // Starved matters only while the job runs: a paused or ended one is held by its state (and a job that
    // ended keeps no host looking again every half second).
    const held = local ? local.held - local.pending.length : 0;
    this.gate.setStarved(job.number, this.gate.isRunning(job.number) && held <= 0);
  }

  /**
   * Whether a page or media task of `job` may be handed out now: a job not budgeted may; a budgeted one only
   * with a unit left here; a job number whose record was not heard yet may not (it may have a maxPages).
   */
  mayHandOut(job: number | undefined): boolean {
    if (!job) return true;
    const local = this.jobs.get(job);
    if (!local) return this.gate.idOf(job) !== undefined;
    return local.held - local.pending.length > 0;
  }

  /** A task of a budgeted job was handed out: one unit spent (settled by the next `round`). */
  spent(task: FetchTask): void {
    const local = task.job ? this.jobs.get(task.job) : undefined;
    if (!local) return;
    local.pending.push(task);
    local.lastSpentAt = this.opts.now();
    if (local.held - local.pending.length <= 0) this.gate.setStarved(task.job!, true);
  }

  /**
   * Settles what was spent, takes chunks for wanted starved jobs, gives back idle budget. Resolves to the
   * tasks whose units could not be recorded: they must not be sent (give them back to their hosts).
   */
  async round(): Promise<FetchTask[]> {
    if (this.jobs.size === 0) return [];
    const refused: FetchTask[] = [];
    const wanted = this.gate.takeWanted();
    await Promise.all(
      [...this.jobs].map(async ([job, local]) => {
        local.spentLastRound = local.pending.length;
        if (local.pending.length > 0) await this.settle(job, local, refused);
        // Taken when a host met the job starved, or before it starves: a job spending tasks here is topped up
        // once half its chunk is gone, so its hosts are not held while the take is on its way.
        const demand = 2 * local.spentLastRound;
        const low = local.held === 0 || (!local.poolEmpty && local.held * 2 < Math.max(BUDGET_CHUNK_MAX, demand));
        if (low && (wanted.has(job) || local.spentLastRound > 0) && this.gate.isRunning(job)) await this.take(job, local, demand);
        else if (local.held > 0 && this.opts.now() - local.lastSpentAt >= IDLE_RETURN_MS) await this.giveBack(job, local);
        this.gate.setStarved(job, this.gate.isRunning(job) && local.held - local.pending.length <= 0);
      }),
    );
    return refused;
  }

  /** Gives every unit held here back to the pools (a clean stop or a drain). */
  async giveBackAll(): Promise<void> {
    await Promise.all([...this.jobs].map(([job, local]) => (local.held > 0 ? this.giveBack(job, local) : undefined)));
  }

  private async settle(job: number, local: Local, refused: FetchTask[]): Promise<void> {
    const tasks = local.pending;
    local.pending = [];
    try {
      const left = await this.opts.budget.settle(job, this.opts.holder, tasks.length);
      if (left !== undefined) {
        local.held = left;
        return;
      }
      this.opts.log?.warn("the page budget held here was reclaimed; tasks handed out against it are given back unsent", {
        job,
        tasks: tasks.length,
      });
    } catch (error) {
      // Unknown whether it was recorded: the tasks do not go, the custody is read again at the next take.
      this.opts.log?.warn("could not record the page budget spent; tasks handed out against it are given back unsent", {
        job,
        tasks: tasks.length,
        error: String(error),
      });
    }
    local.held = 0;
    for (const t of tasks) refused.push(t);
  }

  private async take(job: number, local: Local, demand: number): Promise<void> {
    try {
      const holders = Math.max(1, this.opts.holders?.() ?? 1);
      const { held, left } = await this.opts.budget.take(job, local.maxPages, this.opts.holder, (l) => budgetChunk(l, holders, demand));
      local.held = held;
      local.poolEmpty = left === 0;
      local.lastSpentAt = this.opts.now();
    } catch (error) {
      this.opts.log?.warn("could not take page budget; the job's tasks wait here", { job, error: String(error) });
    }
  }

  private async giveBack(job: number, local: Local): Promise<void> {
    const unspent = local.held - local.pending.length;
    if (unspent <= 0 || local.pending.length > 0) return;
    try {
      const given = await this.opts.budget.give(job, this.opts.holder, unspent);
      local.held -= given;
    } catch (error) {
      this.opts.log?.warn("could not give page budget back; kept for now", { job, error: String(error) });
    }
  }
}

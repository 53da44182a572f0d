/**
 * In-memory JobBudget (core/ports/job-budget.ts): `crawl` (embedded mode, one process: every holder is in
 * it) and tests. Same contract as the cluster's KV records, without the revisions: each call runs to its end
 * before another starts. Costs a map entry per job and one per (job, holder) with custody.
 *
 * What only one process can know, `crawl` uses (embedded/main.ts): the pages a job already has when its pool
 * is made (`spentBefore`: the counts a restart finds in the store, so a pool rebuilt in memory never grants
 * them again), and units spent on tasks given back with no result (`unspend`: in one process no result of
 * theirs can come later, so the job would otherwise end short of maxPages).
 */
import { askedCustody } from "../../core/jobs/index.ts";
import type { JobBudget } from "../../core/ports/index.ts";

interface Pool {
  maxPages: number;
  left: number;
}

export interface MemoryJobBudgetOptions {
  /** Page results job `job` already has when its pool is made: the pool starts with maxPages minus them. */
  spentBefore?: (job: number) => number;
}

export class MemoryJobBudget implements JobBudget {
  private readonly pools = new Map<number, Pool>();
  /** Job -> holder -> units in custody (entries with 0 are removed). */
  private readonly custody = new Map<number, Map<string, number>>();

  constructor(private readonly opts: MemoryJobBudgetOptions = {}) {}

  async take(job: number, maxPages: number, holder: string, chunk: (left: number) => number): Promise<{ held: number; left: number }> {
    let pool = this.pools.get(job);
    if (!pool) {
      pool = { maxPages, left: Math.max(0, maxPages - (this.opts.spentBefore?.(job) ?? 0)) };
      this.pools.set(job, pool);
    }
    const held = this.heldBy(job, holder);
    const units = Math.min(pool.left, askedCustody(chunk, pool.left) - held);
    if (units <= 0) return { held, left: pool.left };
    pool.left -= units;
    this.setHeld(job, holder, held + units);
    return { held: held + units, left: pool.left };
  }

  async settle(job: number, holder: string, spent: number): Promise<number | undefined> {
    const held = this.heldBy(job, holder);
    if (held === 0 || held < spent) return undefined;
    this.setHeld(job, holder, held - spent);
    return held - spent;
  }

  async give(job: number, holder: string, units: number): Promise<number> {
    const held = this.heldBy(job, holder);
    const given = Math.min(held, Math.max(0, units));
    const pool = this.pools.get(job);
    if (given === 0 || !pool) return 0;
    this.setHeld(job, holder, held - given);
    pool.left += given;
    return given;
  }

  /**
   * Units settled as spent on tasks that ended with no result and never will (given back to their hosts),
   * back to job `job`'s pool; never past maxPages with what holders hold. Resolves to the units returned.
   */
  async unspend(job: number, units: number): Promise<number> {
    const pool = this.pools.get(job);
    if (!pool || units <= 0) return 0;
    let held = 0;
    for (const u of this.custody.get(job)?.values() ?? []) held += u;
    const back = Math.min(units, pool.maxPages - held - pool.left);
    if (back <= 0) return 0;
    pool.left += back;
    return back;
  }

  async reclaim(holder: string): Promise<number> {
    let total = 0;
    for (const [job, holders] of this.custody) {
      const held = holders.get(holder);
      if (held) total += await this.give(job, holder, held);
    }
    return total;
  }

  async holders(): Promise<string[]> {
    const out = new Set<string>();
    for (const holders of this.custody.values()) for (const h of holders.keys()) out.add(h);
    return [...out];
  }

  async read(job: number): Promise<{ maxPages: number; left: number; held: number } | undefined> {
    const pool = this.pools.get(job);
    if (!pool) return undefined;
    let held = 0;
    for (const units of this.custody.get(job)?.values() ?? []) held += units;
    return { maxPages: pool.maxPages, left: pool.left, held };
  }

  private heldBy(job: number, holder: string): number {
    return this.custody.get(job)?.get(holder) ?? 0;
  }

  private setHeld(job: number, holder: string, units: number): void {
    let holders = this.custody.get(job);
    if (!holders) this.custody.set(job, (holders = new Map()));
    if (units > 0) holders.set(holder, units);
    else holders.delete(holder);
  }
}

/**
 * The coordinator's part of the jobs' page budgets (core/ports/job-budget.ts; the frontier's part is
 * engine/frontier/job-budgets.ts), run by the lease holder on its tick:
 *  - a holder that is no longer a live member (dead by missed heartbeats, left, or its record gone) has its
 *    custody reclaimed: its unspent units go back to the pools, so a frontier node killed for good takes no
 *    pages with it; one that comes back (a restart) takes afresh, and anything it spent against the old
 *    custody is refused (its settle fails, those tasks go back to their hosts unsent);
 *  - a job whose budget is spent (the pool empty, no node holding any) has nothing more to hand out: once its
 *    page count has not moved for SETTLE_MS (the results of its last tasks applied and reported), it ends
 *    `done` / `max-pages` even when units were lost to a fault (a task whose result never came) and its
 *    pages are fewer than maxPages.
 * Cost per tick: the holders' list (the bucket stream's subject list), and one read of each running job
 * with maxPages (its pool and custodies).
 */
import type { JobRecord } from "../core/jobs/index.ts";
import type { JobBudget } from "../core/ports/index.ts";
import type { Member } from "./membership.ts";

/** How long a spent job's page count must stay still before it ends: a heartbeat's recount (5 s) and more. */
export const SETTLE_MS = 10_000;

/** How often the holders are listed when the live frontier nodes have not changed (a missed reclaim is retried). */
export const RECLAIM_EVERY_MS = 30_000;

export class BudgetKeeper {
  /** Spent jobs by number: their page count when first seen spent, and since when it has not moved. */
  private readonly spentSince = new Map<number, { pages: number; since: number }>();
  /** The live frontier nodes at the last look for lost holders, and when it was. */
  private lastLive = "";
  private lastLookAt = -Infinity;

  constructor(private readonly budget: JobBudget) {}

  /**
   * Reclaims the custody of every holder that is not a live frontier member; returns the units returned per
   * holder. Looks (lists the holders) when the live frontier nodes changed since the last look, else at most
   * every RECLAIM_EVERY_MS: the list reads every custody record.
   */
  async reclaimLost(members: readonly Member[], now: number): Promise<Map<string, number>> {
    const live = new Set(
      members.filter((m) => m.record.role === "frontier" && (m.state === "live" || m.state === "draining")).map((m) => m.record.id),
    );
    const liveKey = [...live].sort().join(",");
    if (liveKey === this.lastLive && now - this.lastLookAt < RECLAIM_EVERY_MS) return new Map();
    this.lastLive = liveKey;
    this.lastLookAt = now;
    const reclaimed = new Map<string, number>();
    for (const holder of await this.budget.holders()) {
      if (live.has(holder)) continue;
      reclaimed.set(holder, await this.budget.reclaim(holder));
    }
    return reclaimed;
  }

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

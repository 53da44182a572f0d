/**
 * The coordinator's part of the jobs' page budgets (core/ports/job-budget.ts; the frontier's part is
 * engine/frontier/job-budgets.ts), run by the lease holder on its tick:
 *  - a holder that is no longer a live member (dead by missed heartbeats, left, or its record gone) has its
 *    custody reclaimed: its unspent units go back to the pools, so a frontier node killed for good takes no
 *    pages with it; one that comes back (a restart) takes afresh, and anything it spent against the old
 *    custody is refused (its settle fails, those tasks go back to their hosts unsent);
 *  - a job whose budget is spent ends `max-pages` (core/jobs SpentBudgets `spentOut`, shared with `crawl`).
 * Cost per tick: the holders' list (the bucket stream's subject list), and one read of each running job
 * with maxPages (its pool and custodies).
 */
import { SpentBudgets } from "../core/jobs/index.ts";
import type { Member } from "./membership.ts";

export { SETTLE_MS } from "../core/jobs/index.ts";

/** How often the holders are listed when the live frontier nodes have not changed (a missed reclaim is retried). */
export const RECLAIM_EVERY_MS = 30_000;

export class BudgetKeeper extends SpentBudgets {
  /** The live frontier nodes at the last look for lost holders, and when it was. */
  private lastLive = "";
  private lastLookAt = -Infinity;

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
}

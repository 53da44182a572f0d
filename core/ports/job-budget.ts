/**
 * JobBudget: a crawl job's pages, handed out as budgets so a job with `maxPages` never gets more page tasks
 * than that, whatever the number of frontier nodes (docs/architecture.md, "Crawl jobs"). Per job there is a
 * pool (the units never handed out, made with `maxPages` at the first take) and one custody per holder (a
 * frontier node): the units it took and has neither spent nor given back. A holder hands out one page task
 * per unit, and records what it spent (`settle`) *before* the tasks leave it, so a holder's custody as
 * stored is never more than it may still spend: after a crash its custody is exactly what a restart (or
 * `reclaim`) may use again, and nothing is counted twice.
 *
 * Invariant: pool + every custody + every unit settled as spent = maxPages. A step lost half-way (a process
 * killed between writing the pool and the custody) loses units, never makes them: a job may end short of
 * maxPages after such a fault, never past it.
 *
 * Writes are compare-and-set loops over the records' revisions; two holders may take at once.
 */
export interface JobBudget {
  /**
   * Tops `holder`'s custody of job `job` up from the pool (made with `maxPages` left when missing) to
   * `chunk(left)` units (at least 1), as far as what is left allows; a custody already that large is left as
   * it is. Resolves to the custody after it (units the holder may spend; 0 when it had none and the pool is
   * empty) and what the pool has left.
   */
  take(job: number, maxPages: number, holder: string, chunk: (left: number) => number): Promise<{ held: number; left: number }>;

  /**
   * `holder` spent `spent` units of its custody (tasks it is about to send out). Resolves to the custody
   * left, or undefined when its custody is gone or smaller than `spent` (reclaimed meanwhile): then nothing
   * was recorded and the tasks must not go out.
   */
  settle(job: number, holder: string, spent: number): Promise<number | undefined>;

  /** Gives `units` of `holder`'s custody back to the pool (unused); resolves to the units given back (≤ custody). */
  give(job: number, holder: string, units: number): Promise<number>;

  /**
   * Gives every unit `holder` holds, of every job, back to the pools: the holder left the cluster (its next
   * `settle` fails). Resolves to the units returned. Safe at any time: custody is only what was not spent.
   */
  reclaim(holder: string): Promise<number>;

  /** The holders with custody of some job (the coordinator reclaims those no longer members). */
  holders(): Promise<string[]>;

  /** A job's pool and the sum of its custodies; undefined when no holder ever took any. */
  read(job: number): Promise<{ maxPages: number; left: number; held: number } | undefined>;
}

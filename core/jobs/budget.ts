/**
 * How a job's page budget is cut into the chunks its holders take (core/ports/job-budget.ts): a share of
 * what is left per live frontier node, at most BUDGET_CHUNK_MAX, so the store is written once per chunk and
 * not per task, and a job near its end is split finely enough that no node sits on units another needs.
 */

/** Most units one take grants. */
export const BUDGET_CHUNK_MAX = 64;

/** The chunk a holder asks for: what is left split over `holders` (rounded up), 1 to BUDGET_CHUNK_MAX. */
export function budgetChunk(left: number, holders: number): number {
  return Math.min(BUDGET_CHUNK_MAX, Math.max(1, Math.ceil(left / Math.max(1, holders))));
}

/** The units a take grants from `left`: what `chunk` asks, at least 1, at most what is left. */
export function grantOf(chunk: (left: number) => number, left: number): number {
  const asked = Math.floor(chunk(left));
  return Math.min(left, Math.max(1, Number.isFinite(asked) ? asked : 1));
}

/**
 * How a job's page budget is cut into the chunks its holders take (core/ports/job-budget.ts): a share of
 * what is left per live frontier node, at most BUDGET_CHUNK_MAX unless the holder spends more a round, so the
 * store is written once per chunk and not per task, and a job near its end is split finely enough that no
 * node sits on units another needs.
 */

/** Most units one take grants. */
export const BUDGET_CHUNK_MAX = 64;

/**
 * The custody a holder tops itself up to: what is left split over `holders` (rounded up), at most
 * BUDGET_CHUNK_MAX, or `demand` (what the holder spends per dispatch round, doubled) when that is more, so a
 * node handing out more than 64 of a job's tasks a round is not held back by its chunks; at least 1.
 */
export function budgetChunk(left: number, holders: number, demand = 0): number {
  return Math.min(Math.max(BUDGET_CHUNK_MAX, demand), Math.max(1, Math.ceil(left / Math.max(1, holders))));
}

/** The custody `chunk` asks for at `left`: at least 1. */
export function askedCustody(chunk: (left: number) => number, left: number): number {
  const asked = Math.floor(chunk(left));
  return Math.max(1, Number.isFinite(asked) ? asked : 1);
}

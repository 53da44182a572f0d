/**
 * The turns a host's crawl jobs take, by weight: smooth weighted round robin over the jobs with URLs
 * queued at the host that may run. Each turn every candidate gains its weight in credit, the richest is
 * chosen and pays the sum of the weights; over any stretch a job with weight 3 gets three turns to every
 * one of a job with weight 1, spread out rather than in runs. Which job goes next only picks the host's
 * next URL: the host's politeness (one request at a time, one gap) is the host's, whatever the jobs.
 *
 * Kept per host only once it has seen URLs of two jobs (HostEntry.jobTurns), from the URLs queued while it
 * was in memory; a job found to have nothing left there is dropped from it (scheduling.ts).
 */
import type { HostEntry } from "./host-entry.ts";

/** Notes that the host got a URL of `job` (queued). */
export function noteJob(entry: HostEntry, job: number): void {
  const turns = entry.jobTurns;
  if (turns) {
    if (!turns.has(job)) turns.set(job, 0);
    return;
  }
  // The URLs queued before are taken for job default's: a wrong guess is dropped at its first empty turn.
  if (job !== 0)
    entry.jobTurns = new Map(
      entry.queued > 1
        ? [
            [0, 0],
            [job, 0],
          ]
        : [[job, 0]],
    );
}

/** Chooses the next of `candidates` (jobs in `turns`) by weight, moving the credits. */
export function nextTurn(turns: Map<number, number>, candidates: readonly number[], weightOf: (job: number) => number): number {
  let total = 0;
  let best = candidates[0]!;
  let bestCredit = -Infinity;
  for (const job of candidates) {
    const w = weightOf(job);
    total += w;
    const credit = (turns.get(job) ?? 0) + w;
    turns.set(job, credit);
    if (credit > bestCredit) {
      best = job;
      bestCredit = credit;
    }
  }
  turns.set(best, bestCredit - total);
  return best;
}

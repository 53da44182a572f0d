/**
 * The turns a host's crawl jobs take, by weight: smooth weighted round robin over the jobs with URLs
 * queued at the host that may run. Each turn every candidate gains its weight in credit, the richest is
 * chosen and pays the sum of the weights; over any stretch a job with weight 3 gets three turns to every
 * one of a job with weight 1, spread out rather than in runs. Which job goes next only picks the host's
 * next URL: the host's politeness (one request at a time, one gap) is the host's, whatever the jobs.
 *
 * Kept per host only once it has seen URLs of two jobs (HostEntry.jobTurns), from the URLs queued while it
 * was in memory; a job found to have nothing left there is dropped from it (scheduling.ts). A host loaded
 * from the store with work (a restart, a handoff, a rebuild, a cold host warmed) learns its jobs from its
 * queue rows (`learnJobs`, active-hosts.ts): from the job index for a partition loaded whole, from a bounded
 * walk of its first rows for one host warmed; a crawl without jobs reads nothing for it.
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

/**
 * Sets the turns of a host loaded from the store: `jobs` are its queued URLs per job number other than
 * default (default's may be among them too); `queued` is all it has queued, so what the others leave is
 * default's; `credits` the turns it had when it last went cold (kept in memory: active-hosts.ts), else
 * every job starts at 0. Nothing for a host with no URL of a job other than default.
 */
export function learnJobs(
  entry: HostEntry,
  jobs: ReadonlyMap<number, number>,
  queued: number,
  credits?: ReadonlyMap<number, number>,
): void {
  let others = 0;
  const turns = new Map<number, number>();
  for (const [job, n] of jobs) {
    if (job === 0 || n <= 0) continue;
    others += n;
    turns.set(job, credits?.get(job) ?? 0);
  }
  if (turns.size === 0) return;
  if (queued > others || (jobs.get(0) ?? 0) > 0) turns.set(0, credits?.get(0) ?? 0);
  entry.jobTurns = turns;
}

/**
 * The changes of a job's state, pure: each returns the new record or throws FailedPreconditionError saying
 * why the change does not apply. An ended job (done, cancelled) stays ended; pausing a paused job or
 * resuming a running one is a no-op, so a client retrying a call after a lost answer gets the same job.
 */
import { FailedPreconditionError } from "../errors/index.ts";
import { isEnded, type JobCounts, type JobEndReason, type JobRecord } from "./job.ts";

export type JobAction = "pause" | "resume" | "cancel";

export function applyAction(job: JobRecord, action: JobAction, now: number): JobRecord {
  if (action === "cancel") {
    if (job.state === "cancelled") return job;
    if (isEnded(job)) throw new FailedPreconditionError(`job ${job.id} has already ended (${job.reason ?? job.state}); nothing to cancel`);
    return end(job, "cancelled", now);
  }
  if (isEnded(job))
    throw new FailedPreconditionError(`job ${job.id} has ended (${job.state}, ${job.reason ?? "no reason"}); it cannot ${action}`);
  const state = action === "pause" ? "paused" : "running";
  return job.state === state ? job : { ...job, state };
}

/** Ends the job with `reason`: cancelled when the reason is a cancel, done otherwise. */
export function end(job: JobRecord, reason: JobEndReason, now: number): JobRecord {
  return { ...job, state: reason === "cancelled" ? "cancelled" : "done", reason, endedAt: now };
}

/**
 * Why a running job is over now, by its limits, or undefined while it may go on. `finished` (the queue ran
 * empty) is decided by whoever sees the whole queue, not here; `default` has no limits and never finishes.
 */
export function limitReached(job: JobRecord, counts: Pick<JobCounts, "pages">, now: number): JobEndReason | undefined {
  if (job.maxPages > 0 && counts.pages >= job.maxPages) return "max-pages";
  if (job.maxDurationMs > 0 && now - job.startedAt >= job.maxDurationMs) return "max-duration";
  return undefined;
}

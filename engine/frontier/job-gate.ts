/**
 * Which crawl jobs' URLs may be handed out now, as this frontier last heard (the cluster's job records
 * through the frontier node's watch; `crawl`'s own registry). A job it has not heard of is running: a URL
 * is never held back for want of news. Kept as the set of jobs that may not run (paused, done, cancelled),
 * at most MAX_JOBS numbers; the common case, every job running, costs one size check per task.
 */
import { isActive, type JobRecord } from "../../core/jobs/index.ts";

export class JobGate {
  private readonly held = new Map<number, JobRecord["state"]>();
  private heldJson = "[]";
  private readonly ended = new Set<number>();

  /** Takes a job's record (a write heard); returns whether its URLs may now run when they could not, or the reverse. */
  set(job: Pick<JobRecord, "number" | "state">): boolean {
    const was = !this.held.has(job.number);
    if (isActive(job)) this.held.delete(job.number);
    else this.held.set(job.number, job.state);
    if (job.state === "done" || job.state === "cancelled") this.ended.add(job.number);
    else this.ended.delete(job.number);
    this.heldJson = JSON.stringify([...this.held.keys()]);
    return was !== !this.held.has(job.number);
  }

  /** Whether URLs of `job` (a number; absent: 0) may be handed out. */
  runs(job: number | undefined): boolean {
    return this.held.size === 0 || !this.held.has(job ?? 0);
  }

  /** Whether `job` has ended: its new URLs (links of its pages still in flight) are not queued. */
  hasEnded(job: number | undefined): boolean {
    return this.ended.size > 0 && this.ended.has(job ?? 0);
  }

  /** Whether every job runs (nothing to filter). */
  get allRun(): boolean {
    return this.held.size === 0;
  }

  /** The held jobs' numbers as a JSON array, for the store's filtered head (json_each). */
  get heldList(): string {
    return this.heldJson;
  }
}

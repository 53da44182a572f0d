/**
 * Which crawl jobs' URLs may be handed out now, as this frontier last heard (the cluster's job records
 * through the frontier node's watch; `crawl`'s own registry). A job it has not heard of is running: a URL
 * is never held back for want of news. Kept as the set of jobs that may not run (paused, done, cancelled),
 * at most MAX_JOBS numbers; the common case, every job running, costs one size check per task.
 *
 * A job with maxPages whose page budget this frontier holds none of is *starved* (job-budgets.ts): held like
 * a paused job until budget comes; a starved job met at a host is noted as wanted, so budget is asked for
 * only by a frontier that has the job's URLs to hand out.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import { isActive, JOB_SCOPE_FIELDS, type JobRecord } from "../../core/jobs/index.ts";
import { ScopeFilter, ScopeRoots } from "../../core/scope/index.ts";

/** A job's own scope: its settings over the fleet's, and its seeds' hosts as the roots. */
export interface JobScopeRules {
  filter: ScopeFilter;
  policy: PolicyConfig;
}

export class JobGate {
  private readonly held = new Map<number, JobRecord["state"]>();
  private heldJson = "[]";
  private readonly ended = new Set<number>();
  private readonly scopes = new Map<number, JobScopeRules>();
  private readonly weights = new Map<number, number>();
  private readonly ids = new Map<number, string>([[0, "default"]]);
  private readonly starved = new Set<number>();
  /** Starved jobs met at a host since job-budgets.ts last asked (takeWanted). */
  private wanted = new Set<number>();

  constructor(private readonly policy: PolicyConfig) {}

  /** Takes a job's record (a write heard); returns whether its URLs may now run when they could not, or the reverse. */
  set(job: Pick<JobRecord, "number" | "state"> & Partial<JobRecord>): boolean {
    this.setScope(job);
    if (job.id !== undefined) this.ids.set(job.number, job.id);
    if (job.weight !== undefined && job.weight !== 1) this.weights.set(job.number, job.weight);
    else this.weights.delete(job.number);
    const was = !this.held.has(job.number);
    if (isActive(job)) this.held.delete(job.number);
    else this.held.set(job.number, job.state);
    if (job.state === "done" || job.state === "cancelled") this.ended.add(job.number);
    else this.ended.delete(job.number);
    this.heldJson = this.listHeld();
    return was !== !this.held.has(job.number);
  }

  /** Marks a job as without budget here (its URLs held) or with budget again. */
  setStarved(job: number, starved: boolean): void {
    if (starved === this.starved.has(job)) return;
    if (starved) this.starved.add(job);
    else this.starved.delete(job);
    this.heldJson = this.listHeld();
  }

  /** Whether any job is starved (a host held by one is looked at again soon: budget may come any moment). */
  get anyStarved(): boolean {
    return this.starved.size > 0;
  }

  /** The starved jobs met at a host since the last call (they have URLs here to spend budget on). */
  takeWanted(): Set<number> {
    const wanted = this.wanted;
    this.wanted = new Set();
    return wanted;
  }

  private listHeld(): string {
    return JSON.stringify([...new Set([...this.held.keys(), ...this.starved])]);
  }

  /**
   * The scope rules of a job that sets any scope or trap setting of its own (JOB_SCOPE_FIELDS); undefined
   * for one that does not (the fleet's rules apply) and for job default.
   */
  scopeOf(job: number | undefined): JobScopeRules | undefined {
    return job ? this.scopes.get(job) : undefined;
  }

  private setScope(job: Partial<JobRecord> & Pick<JobRecord, "number">): void {
    if (job.number === 0 || !JOB_SCOPE_FIELDS.some((f) => job[f] !== undefined)) {
      this.scopes.delete(job.number);
      return;
    }
    const own = Object.fromEntries(JOB_SCOPE_FIELDS.filter((f) => job[f] !== undefined).map((f) => [f, job[f]]));
    const policy = { ...this.policy, ...own } as PolicyConfig;
    const roots = new ScopeRoots();
    roots.add(job.roots ?? []);
    this.scopes.set(job.number, { filter: new ScopeFilter(policy, roots), policy });
  }

  /** Whether URLs of `job` (a number; absent: 0) may be handed out. A starved job asked about is noted as wanted. */
  runs(job: number | undefined): boolean {
    if (this.starved.size > 0 && this.starved.has(job ?? 0)) {
      if (!this.held.has(job ?? 0)) this.wanted.add(job ?? 0);
      return false;
    }
    return this.held.size === 0 || !this.held.has(job ?? 0);
  }

  /** Whether `job` is running as last heard (not paused or ended; starved or not). */
  isRunning(job: number): boolean {
    return !this.held.has(job);
  }

  /** Whether `job` has ended: its new URLs (links of its pages still in flight) are not queued. */
  hasEnded(job: number | undefined): boolean {
    return this.ended.size > 0 && this.ended.has(job ?? 0);
  }

  /** A job's id by its number ("default" for 0); undefined for a number whose record was not heard. */
  idOf(job: number | undefined): string | undefined {
    return this.ids.get(job ?? 0);
  }

  /** A job's weight in its hosts' turns (job-turns.ts); 1 when its record says none or was not heard. */
  weightOf(job: number): number {
    return this.weights.get(job) ?? 1;
  }

  /** Whether every job runs (nothing to filter). */
  get allRun(): boolean {
    return this.held.size === 0 && this.starved.size === 0;
  }

  /** The held jobs' numbers as a JSON array, for the store's filtered head (json_each). */
  get heldList(): string {
    return this.heldJson;
  }
}

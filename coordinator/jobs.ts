/**
 * Crawl jobs in the cluster: the registry is the cluster state's job records (NATS KV `jobs.<id>`, written
 * only by the lease holder, compare-and-set on the key's revision), every frontier node watches them
 * (pausing, cancelling and ending a job reach the frontier that way), and each job's counters are the sums
 * of what the live frontier nodes report for the partitions they serve (NodeRecord.jobs). Job `default`
 * exists without a record until it is first paused or resumed. Both edges (gRPC and the admin API) call this.
 */
import { FailedPreconditionError, NotFoundError, UnavailableError } from "../core/errors/index.ts";
import {
  DEFAULT_JOB_ID,
  MAX_JOBS,
  MAX_JOB_ROOTS,
  applyAction,
  checkJobId,
  defaultJob,
  end,
  isEnded,
  limitReached,
  type JobAction,
  type JobCounts,
  type JobRecord,
  type JobSpec,
} from "../core/jobs/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import { hostKeyOf, normalizeUrl } from "../core/url/index.ts";
import type { BudgetKeeper } from "./job-budgets.ts";
import type { Membership } from "./membership.ts";
import type { SeedOutcome, SeedPublisher } from "./seeds.ts";

/** A job as both APIs answer it: the record, its counters, and the seeds outcome when seeds were added. */
export interface JobView {
  job: JobRecord;
  counts: JobCounts;
}

export interface JobServiceOptions {
  state: ClusterState;
  membership: Pick<Membership, "view">;
  seeds: Pick<SeedPublisher, "add">;
  now: () => number;
  /** The jobs' page budgets (job-budgets.ts): a job whose budget is spent ends `max-pages`. Absent: by the count alone. */
  budgets?: Pick<BudgetKeeper, "spentOut">;
}

/** Compare-and-set tries before a change gives up (another write to the same job each time). */
const CAS_TRIES = 5;

export class JobService {
  /** Running jobs found with nothing queued at the last endDue: a second sighting ends them as finished. */
  private emptyBefore = new Set<string>();

  constructor(private readonly opts: JobServiceOptions) {}

  /** Creates the job and adds its seeds. 409 when the id is taken or the registry is full. */
  async create(spec: JobSpec): Promise<JobView & { seeds: SeedOutcome | undefined }> {
    const existing = await this.opts.state.listJobs();
    if (existing.some((j) => j.id === spec.id)) throw new FailedPreconditionError(`job ${spec.id} exists already; pick another id`);
    if (existing.length >= MAX_JOBS)
      throw new FailedPreconditionError(`the cluster holds ${MAX_JOBS} jobs, the most it keeps; no more can be created`);
    const now = this.opts.now();
    const { seeds, ...settings } = spec;
    // Numbers are never reused: the next after the highest ever given (records are never deleted).
    const number = existing.reduce((max, j) => Math.max(max, j.number), 0) + 1;
    const job: JobRecord = { ...settings, number, state: "running", createdAt: now, startedAt: now, roots: rootsOf([], seeds) };
    if ((await this.opts.state.casJob(job, 0)) === undefined)
      throw new FailedPreconditionError(`job ${spec.id} exists already; pick another id`);
    const outcome = seeds.length > 0 ? await this.opts.seeds.add(seeds, number) : undefined;
    return { job, counts: (await this.counts()).get(number) ?? zero(), seeds: outcome };
  }

  async list(): Promise<JobView[]> {
    const [jobs, counts] = await Promise.all([this.records(), this.counts()]);
    return jobs.map((job) => ({ job, counts: counts.get(job.number) ?? zero() }));
  }

  async show(id: string): Promise<JobView> {
    const job = await this.record(id);
    return { job, counts: (await this.counts()).get(job.number) ?? zero() };
  }

  /** Pauses, resumes or cancels the job (core/jobs/transitions.ts), retrying a lost compare-and-set. */
  async act(id: string, action: JobAction): Promise<JobView> {
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const stored = await this.stored(id);
      const next = applyAction(stored.job, action, this.opts.now());
      if (next !== stored.job && (await this.opts.state.casJob(next, stored.revision)) === undefined) continue;
      return { job: next, counts: (await this.counts()).get(next.number) ?? zero() };
    }
    throw new UnavailableError(`job ${id} kept changing under the ${action}; retry`);
  }

  /** Adds seeds to a job that has not ended. */
  async addSeeds(id: string, urls: readonly string[]): Promise<SeedOutcome> {
    const job = await this.record(id);
    if (isEnded(job))
      throw new FailedPreconditionError(`job ${id} has ended (${job.reason ?? job.state}); create a new job for more seeds`);
    return this.opts.seeds.add(urls, job.number);
  }

  /**
   * Ends the jobs whose time has come, on the lease holder's tick: `max-pages` once the live frontier
   * nodes' page results reach maxPages, `max-duration` once maxDuration has passed since the start,
   * `finished` once a running job with page results has nothing queued at two ticks in a row (a URL in flight
   * is still queued: its row leaves with its result). Frontier nodes hear the record and hold the job's
   * URLs back. With page budgets (job-budgets.ts) a job never gets more page tasks than maxPages, and one whose
   * budget is spent ends `max-pages` once its count settles (docs/architecture.md, "Crawl jobs"). Returns the
   * jobs ended.
   */
  async endDue(): Promise<JobRecord[]> {
    const [jobs, counts] = await Promise.all([this.opts.state.listJobs(), this.counts()]);
    const now = this.opts.now();
    const ended: JobRecord[] = [];
    const emptyNow = new Set<string>();
    for (const job of jobs) {
      if (job.id === DEFAULT_JOB_ID || isEnded(job)) continue;
      const c = counts.get(job.number) ?? zero();
      let reason = limitReached(job, c, now);
      if (!reason && job.state === "running" && (await this.opts.budgets?.spentOut(job, c.pages, now))) reason = "max-pages";
      if (!reason && job.state === "running" && c.pages > 0 && c.queued === 0) {
        emptyNow.add(job.id);
        if (this.emptyBefore.has(job.id)) reason = "finished";
      }
      if (!reason) continue;
      const stored = await this.opts.state.getJob(job.id);
      if (!stored || isEnded(stored.job)) continue;
      const next = end(stored.job, reason, now);
      if ((await this.opts.state.casJob(next, stored.revision)) !== undefined) ended.push(next);
    }
    this.emptyBefore = emptyNow;
    return ended;
  }

  /** Every job record, `default` first (its stored record, or the implicit one), then in order of creation. */
  async records(): Promise<JobRecord[]> {
    const stored = await this.opts.state.listJobs();
    const def = stored.find((j) => j.id === DEFAULT_JOB_ID) ?? defaultJob(0);
    return [def, ...stored.filter((j) => j.id !== DEFAULT_JOB_ID).sort((a, b) => a.number - b.number)];
  }

  private async record(id: string): Promise<JobRecord> {
    return (await this.stored(id)).job;
  }

  /** The job and its revision (0 for an implicit `default`, so its first write creates it). */
  private async stored(id: string): Promise<{ job: JobRecord; revision: number }> {
    checkJobId(id);
    const found = await this.opts.state.getJob(id);
    if (found) return found;
    if (id === DEFAULT_JOB_ID) return { job: defaultJob(0), revision: 0 };
    throw new NotFoundError(`no job ${id}`);
  }

  /** Each job's counters summed over the live frontier nodes' reports. */
  private async counts(): Promise<Map<number, JobCounts>> {
    const view = await this.opts.membership.view();
    const sums = new Map<number, JobCounts>();
    for (const m of view.members) {
      if (m.record.role !== "frontier" || m.state === "dead" || m.state === "left" || !m.record.jobs) continue;
      for (const [number, c] of Object.entries(m.record.jobs)) {
        const sum = sums.get(Number(number)) ?? zero();
        sum.pages += c.pages;
        sum.errors += c.errors;
        sum.queued += c.queued;
        sums.set(Number(number), sum);
      }
    }
    return sums;
  }
}

/** `roots` and the hosts of the URLs among `seeds` that normalize, each once; 409 past MAX_JOB_ROOTS. */
function rootsOf(roots: readonly string[], seeds: readonly string[]): string[] {
  const out = new Set(roots);
  for (const seed of seeds) {
    const n = normalizeUrl(seed);
    if (n.ok) out.add(hostKeyOf(n.url));
  }
  if (out.size > MAX_JOB_ROOTS)
    throw new FailedPreconditionError(`a job's seeds may name at most ${MAX_JOB_ROOTS} hosts; these would make ${out.size}`);
  return [...out];
}

function zero(): JobCounts {
  return { pages: 0, errors: 0, queued: 0 };
}

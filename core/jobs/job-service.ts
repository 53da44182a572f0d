/**
 * Crawl jobs as both modes serve them: the registry is a port (core/ports JobRegistry: the cluster state's
 * records in the cluster, a SQLite table in `crawl`), each job's counters come from the caller (the live
 * frontier nodes' reports summed, or `crawl`'s one frontier), and seeds go where the caller sends them.
 * Whoever holds the registry's pen calls this: the coordinator's lease holder, or `crawl`. Job `default`
 * exists without a record until it is first paused or resumed. Every edge (gRPC, the admin API, `crawl
 * --http`) calls this; the end rules (endDue) are here once for both modes.
 */
import { FailedPreconditionError, NotFoundError, UnavailableError } from "../errors/index.ts";
import type { JobRegistry } from "../ports/index.ts";
import { hostKeyOf, normalizeUrl } from "../url/index.ts";
import { DEFAULT_JOB_ID, MAX_JOBS, MAX_JOB_ROOTS, defaultJob, isEnded, type JobCounts, type JobRecord, type JobSpec } from "./job.ts";
import { applyAction, end, limitReached, type JobAction } from "./transitions.ts";
import { checkJobId } from "./job-request.ts";

/** What adding seeds did: how many were taken, and each refused with its reason. */
export interface SeedsAdded {
  accepted: number;
  rejected: Array<{ url: string; reason: string }>;
}

/** A job as both APIs answer it: the record, its counters, and the seeds outcome when seeds were added. */
export interface JobView {
  job: JobRecord;
  counts: JobCounts;
}

export interface JobServiceOptions {
  registry: JobRegistry;
  /** Each job's counters by job number, as whoever counts them sums them (jobs absent: zero). */
  counts: () => Promise<Map<number, JobCounts>>;
  /**
   * Adds seeds, and feeds (read as feeds), carrying the job's number (0: `default`); throws
   * InvalidArgumentError on a bad request.
   */
  seeds: { add(urls: readonly string[], job: number, feeds: readonly string[]): Promise<SeedsAdded> };
  now: () => number;
  /**
   * The jobs' page budgets, when page tasks are handed out against them (coordinator/job-budgets.ts): true
   * once a job's budget is spent and its count has settled, so it ends `max-pages`. Absent: by the count alone.
   */
  budgets?: { spentOut(job: JobRecord, pages: number, now: number): Promise<boolean> };
}

/** Compare-and-set tries before a change gives up (another write to the same job each time). */
const CAS_TRIES = 5;

export class JobService {
  /** Running jobs found with nothing queued at the last endDue: a second sighting ends them as finished. */
  private emptyBefore = new Set<string>();

  constructor(private readonly opts: JobServiceOptions) {}

  /** Creates the job and adds its seeds. 409 when the id is taken or the registry is full. */
  async create(spec: JobSpec): Promise<JobView & { seeds: SeedsAdded | undefined }> {
    const existing = await this.opts.registry.listJobs();
    if (existing.some((j) => j.id === spec.id)) throw new FailedPreconditionError(`job ${spec.id} exists already; pick another id`);
    if (existing.length >= MAX_JOBS)
      throw new FailedPreconditionError(`the registry holds ${MAX_JOBS} jobs, the most it keeps; no more can be created`);
    const now = this.opts.now();
    const { seeds, feeds = [], ...settings } = spec;
    // Numbers are never reused: the next after the highest ever given (records are never deleted).
    const number = existing.reduce((max, j) => Math.max(max, j.number), 0) + 1;
    const job: JobRecord = {
      ...settings,
      number,
      state: "running",
      createdAt: now,
      startedAt: now,
      roots: rootsOf([], [...seeds, ...feeds]),
    };
    if ((await this.opts.registry.casJob(job, 0)) === undefined)
      throw new FailedPreconditionError(`job ${spec.id} exists already; pick another id`);
    const outcome = seeds.length + feeds.length > 0 ? await this.opts.seeds.add(seeds, number, feeds) : undefined;
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
      if (next !== stored.job && (await this.opts.registry.casJob(next, stored.revision)) === undefined) continue;
      return { job: next, counts: (await this.counts()).get(next.number) ?? zero() };
    }
    throw new UnavailableError(`job ${id} kept changing under the ${action}; retry`);
  }

  /** Adds seeds, and feeds (read as feeds), to a job that has not ended. */
  async addSeeds(id: string, urls: readonly string[], feeds: readonly string[] = []): Promise<SeedsAdded> {
    const job = await this.record(id);
    if (isEnded(job))
      throw new FailedPreconditionError(`job ${id} has ended (${job.reason ?? job.state}); create a new job for more seeds`);
    return this.opts.seeds.add(urls, job.number, feeds);
  }

  /**
   * Ends the jobs whose time has come, on the registry holder's tick (the coordinator's lease holder, `crawl`): `max-pages` once the live frontier
   * nodes' page results reach maxPages, `max-duration` once maxDuration has passed since the start,
   * `finished` once a running job with page results has nothing queued at two ticks in a row (a URL in flight
   * is still queued: its row leaves with its result). Frontiers hear the record (watchJobs) and hold the
   * job's URLs back. In the cluster the page count arrives with the nodes' heartbeats, so a job may end a
   * heartbeat's worth of its fetches past maxPages (docs/architecture.md, "Crawl jobs"). Returns the jobs ended.
   */
  async endDue(): Promise<JobRecord[]> {
    const [jobs, counts] = await Promise.all([this.opts.registry.listJobs(), this.counts()]);
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
      const stored = await this.opts.registry.getJob(job.id);
      if (!stored || isEnded(stored.job)) continue;
      const next = end(stored.job, reason, now);
      if ((await this.opts.registry.casJob(next, stored.revision)) !== undefined) ended.push(next);
    }
    this.emptyBefore = emptyNow;
    return ended;
  }

  /** Every job record, `default` first (its stored record, or the implicit one), then in order of creation. */
  async records(): Promise<JobRecord[]> {
    const stored = await this.opts.registry.listJobs();
    const def = stored.find((j) => j.id === DEFAULT_JOB_ID) ?? defaultJob(0);
    return [def, ...stored.filter((j) => j.id !== DEFAULT_JOB_ID).sort((a, b) => a.number - b.number)];
  }

  private async record(id: string): Promise<JobRecord> {
    return (await this.stored(id)).job;
  }

  /** The job and its revision (0 for an implicit `default`, so its first write creates it). */
  private async stored(id: string): Promise<{ job: JobRecord; revision: number }> {
    checkJobId(id);
    const found = await this.opts.registry.getJob(id);
    if (found) return found;
    if (id === DEFAULT_JOB_ID) return { job: defaultJob(0), revision: 0 };
    throw new NotFoundError(`no job ${id}`);
  }

  private counts(): Promise<Map<number, JobCounts>> {
    return this.opts.counts();
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

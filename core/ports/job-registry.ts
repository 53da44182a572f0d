/**
 * Where crawl job records are kept (core/jobs): the cluster's state bucket (NATS KV `jobs.<id>`, through
 * ClusterState) or, in `crawl`, a table in a SQLite file under --out (adapters/sqlite). Contract:
 *  - `getJob(id)` returns the job's record and its revision, or undefined when there is none.
 *  - `listJobs()` returns every job record, in no particular order.
 *  - `casJob(job, revision)` writes the record only if the job's stored revision still equals `revision`
 *    (0: only if the job does not exist yet) and returns the new revision (positive, higher than the one
 *    before), or undefined on a conflict, writing nothing. Records are never deleted: an ended job stays,
 *    so its id and number are never reused. A write that resolved survives a restart of the process.
 *  - `watchJobs(onJob)` calls back with every record present, then with every later write, each at least
 *    once and a job's writes in order, until the returned function is called.
 */
import type { JobRecord } from "../jobs/index.ts";

export interface JobRegistry {
  getJob(id: string): Promise<{ job: JobRecord; revision: number } | undefined>;
  listJobs(): Promise<JobRecord[]>;
  casJob(job: JobRecord, revision: number): Promise<number | undefined>;
  watchJobs(onJob: (job: JobRecord) => void): () => void;
}

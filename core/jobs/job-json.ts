/**
 * A job as the HTTP APIs answer it (GET /v1/jobs/{id}, and every route that returns a job): the record's
 * settings, its state and counters; times as ISO 8601 strings, `endedAt` and `reason` null until it ends.
 */
import { formatDuration } from "../config/index.ts";
import type { JobCounts, JobRecord } from "./job.ts";
import { JOB_SCOPE_FIELDS } from "./job-request.ts";

export interface JobJson extends JobCounts {
  id: string;
  number: number;
  state: string;
  reason: string | null;
  startedAt: string;
  endedAt: string | null;
  maxPages: number;
  maxDuration: string;
  weight: number;
  [setting: string]: unknown;
}

export function jobJson(job: JobRecord, counts: JobCounts): JobJson {
  const out: JobJson = {
    id: job.id,
    number: job.number,
    state: job.state,
    reason: job.reason ?? null,
    pages: counts.pages,
    queued: counts.queued,
    errors: counts.errors,
    startedAt: new Date(job.startedAt).toISOString(),
    endedAt: job.endedAt === undefined ? null : new Date(job.endedAt).toISOString(),
    maxPages: job.maxPages,
    maxDuration: formatDuration(job.maxDurationMs),
    weight: job.weight,
  };
  for (const field of JOB_SCOPE_FIELDS) if (job[field] !== undefined) out[field] = job[field];
  return out;
}

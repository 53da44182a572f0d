/**
 * The dashboard's crawl jobs: one row per job (id, state, pages of maxPages, queued, errors, reason), the
 * first DASHBOARD_JOB_ROWS in the registry's order (`default`, then by creation) and how many more there
 * are, so the page stays small whatever the number of jobs (the registry holds up to MAX_JOBS).
 */
import type { JobView } from "../jobs/index.ts";
import type { JobRow } from "./types.ts";

export const DASHBOARD_JOB_ROWS = 50;

export function jobRows(jobs: readonly JobView[], rows = DASHBOARD_JOB_ROWS): { rows: JobRow[]; more: number } {
  return {
    rows: jobs.slice(0, rows).map(({ job, counts }) => ({
      id: job.id,
      state: job.state,
      pages: counts.pages,
      maxPages: job.maxPages,
      queued: counts.queued,
      errors: counts.errors,
      reason: job.reason ?? null,
    })),
    more: Math.max(0, jobs.length - rows),
  };
}

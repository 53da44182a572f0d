/**
 * The `job` label of the metrics and the dashboard, bounded: the first MAX_JOB_LABELS jobs that have not
 * ended (by number, `default` first) keep their id, ended jobs and the rest are summed under "other", so a
 * thousand jobs make at most MAX_JOB_LABELS + 1 series per metric.
 */
import { isEnded, type JobCounts, type JobRecord } from "./job.ts";

export const MAX_JOB_LABELS = 50;
export const OTHER_JOBS_LABEL = "other";

export interface LabelledJobCounts extends JobCounts {
  job: string;
}

export function jobLabels(jobs: ReadonlyArray<{ job: JobRecord; counts: JobCounts }>, max = MAX_JOB_LABELS): LabelledJobCounts[] {
  const live = jobs.filter((j) => !isEnded(j.job)).sort((a, b) => a.job.number - b.job.number);
  const kept = new Set(live.slice(0, max).map((j) => j.job.number));
  const out: LabelledJobCounts[] = [];
  const other: LabelledJobCounts = { job: OTHER_JOBS_LABEL, pages: 0, errors: 0, queued: 0 };
  for (const { job, counts } of [...jobs].sort((a, b) => a.job.number - b.job.number)) {
    if (kept.has(job.number)) out.push({ job: job.id, ...counts });
    else {
      other.pages += counts.pages;
      other.errors += counts.errors;
      other.queued += counts.queued;
    }
  }
  if (jobs.length > kept.size) out.push(other);
  return out;
}

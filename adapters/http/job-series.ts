/**
 * The crawl jobs' series for /metrics, with a `job` label: pages (counter), errors (counter) and queued
 * (gauge) per job, the first jobs by core/jobs `jobLabels` (at most 50 labels, the rest summed under
 * `other`), so a metric has at most 51 series whatever the number of jobs. `prefix` names them: the
 * coordinator's `cluster.job` (crawler_cluster_job_pages_total), `crawl --http`'s `job`
 * (crawler_job_pages_total).
 */
import { jobLabels, type JobView } from "../../core/jobs/index.ts";
import type { LabelledSample } from "./prometheus.ts";

export function jobSeries(jobs: readonly JobView[], prefix: string): LabelledSample[] {
  return jobLabels(jobs).flatMap((j) => [
    { name: `${prefix}.pages`, kind: "counter" as const, labels: { job: j.job }, value: j.pages },
    { name: `${prefix}.errors`, kind: "counter" as const, labels: { job: j.job }, value: j.errors },
    { name: `${prefix}.queued`, kind: "gauge" as const, labels: { job: j.job }, value: j.queued },
  ]);
}

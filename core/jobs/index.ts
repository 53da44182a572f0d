/**
 * Crawl jobs, pure: the record and its states (job.ts), the changes of state and the limits (transitions.ts),
 * and reading a job from untrusted JSON (job-request.ts). The registry that stores them is a port
 * (core/ports ClusterState's job records); the frontier counts and enforces them.
 */
export {
  DEFAULT_JOB_ID,
  DEFAULT_JOB_NUMBER,
  JOB_ID_PATTERN,
  MAX_JOBS,
  MAX_JOB_ROOTS,
  defaultJob,
  isActive,
  isEnded,
  type JobCounts,
  type JobEndReason,
  type JobRecord,
  type JobScope,
  type JobSpec,
  type JobState,
} from "./job.ts";
export { applyAction, end, limitReached, type JobAction } from "./transitions.ts";
export { JOB_SCOPE_FIELDS, checkJobId, jobCreateRequest, jobSeedsRequest, type JobSeeds } from "./job-request.ts";
export { jobJson, type JobJson } from "./job-json.ts";
export { MAX_JOB_LABELS, OTHER_JOBS_LABEL, jobLabels, type LabelledJobCounts } from "./job-labels.ts";
export { JobService, type JobServiceOptions, type JobView, type SeedsAdded } from "./job-service.ts";
export { BUDGET_CHUNK_MAX, askedCustody, budgetChunk } from "./budget.ts";
export { SETTLE_MS, SpentBudgets } from "./spent-budgets.ts";

/**
 * Crawl jobs on the wire (CoordinatorService's job calls): a job record and its counters to JobInfo, a
 * CreateJobRequest to the JSON shape core/jobs validates (so gRPC and the admin API refuse the same input
 * with the same messages), and JobInfo back to the JSON the admin API answers (crawlctl prints that).
 */
import { formatDuration } from "../../core/config/index.ts";
import { JOB_SCOPE_FIELDS, type JobCounts, type JobJson, type JobRecord, type JobScope } from "../../core/jobs/index.ts";
import { JobAction, JobState, type CreateJobRequest, type JobInfo, type JobSettings } from "../gen/crawler/coordinator/v1/coordinator.ts";

const STATES = {
  running: JobState.JOB_STATE_RUNNING,
  paused: JobState.JOB_STATE_PAUSED,
  done: JobState.JOB_STATE_DONE,
  cancelled: JobState.JOB_STATE_CANCELLED,
} as const;

export function jobInfoOf(job: JobRecord, counts: JobCounts): JobInfo {
  return {
    id: job.id,
    number: job.number,
    state: STATES[job.state],
    reason: job.reason ?? "",
    pages: BigInt(counts.pages),
    queued: BigInt(counts.queued),
    errors: BigInt(counts.errors),
    startedAtMs: BigInt(job.startedAt),
    endedAtMs: BigInt(job.endedAt ?? 0),
    maxPages: BigInt(job.maxPages),
    maxDuration: formatDuration(job.maxDurationMs),
    weight: job.weight,
    settings: settingsOf(job),
  };
}

/** JobInfo as the admin API writes a job (core/jobs/job-json.ts). */
export function jobJsonOf(info: JobInfo): JobJson {
  const state = (Object.keys(STATES) as Array<keyof typeof STATES>).find((k) => STATES[k] === info.state) ?? "unknown";
  const out: JobJson = {
    id: info.id,
    number: info.number,
    state,
    reason: info.reason === "" ? null : info.reason,
    pages: Number(info.pages),
    queued: Number(info.queued),
    errors: Number(info.errors),
    startedAt: new Date(Number(info.startedAtMs)).toISOString(),
    endedAt: info.endedAtMs === 0n ? null : new Date(Number(info.endedAtMs)).toISOString(),
    maxPages: Number(info.maxPages),
    maxDuration: info.maxDuration,
    weight: info.weight,
  };
  return { ...out, ...scopeOf(info.settings) };
}

/** The request as the admin API's JSON body, for core/jobs' jobCreateRequest to check. */
export function jobCreateBodyOf(req: CreateJobRequest): Record<string, unknown> {
  return {
    id: req.id,
    ...(req.seeds.length > 0 && { seeds: req.seeds }),
    ...(req.feeds.length > 0 && { feeds: req.feeds }),
    ...(req.maxPages !== 0n && { maxPages: Number(req.maxPages) }),
    ...(req.maxDuration !== "" && { maxDuration: req.maxDuration }),
    ...(req.weight !== 0 && { weight: req.weight }),
    ...scopeOf(req.settings),
  };
}

/** The core/jobs action of a ChangeJobRequest, or undefined for an unspecified one. */
export function jobActionOf(action: JobAction): "pause" | "resume" | "cancel" | undefined {
  switch (action) {
    case JobAction.JOB_ACTION_PAUSE:
      return "pause";
    case JobAction.JOB_ACTION_RESUME:
      return "resume";
    case JobAction.JOB_ACTION_CANCEL:
      return "cancel";
    default:
      return undefined;
  }
}

export function jobActionFrom(action: "pause" | "resume" | "cancel"): JobAction {
  return { pause: JobAction.JOB_ACTION_PAUSE, resume: JobAction.JOB_ACTION_RESUME, cancel: JobAction.JOB_ACTION_CANCEL }[action];
}

export function settingsOf(scope: JobScope): JobSettings {
  const list = (values: string[] | undefined) => (values === undefined ? undefined : { values: [...values] });
  return {
    scope: scope.scope,
    maxDepth: scope.maxDepth,
    allowHosts: list(scope.allowHosts),
    allowUrls: list(scope.allowUrls),
    denyUrls: list(scope.denyUrls),
    denyExtensions: list(scope.denyExtensions),
    maxUrlLength: scope.maxUrlLength,
    maxRepeatedSegment: scope.maxRepeatedSegment,
  };
}

function scopeOf(settings: JobSettings | undefined): Record<string, unknown> {
  if (!settings) return {};
  const out: Record<string, unknown> = {};
  for (const field of JOB_SCOPE_FIELDS) {
    const value = settings[field];
    if (value === undefined) continue;
    out[field] = typeof value === "object" ? [...value.values] : value;
  }
  return out;
}

/**
 * A crawl job: seeds, their own scope and limits, and a share of the fetch capacity. Plain data, kept in
 * the cluster's state (one record per job) and, in `crawl`, in the frontier store. A job has a small
 * integer number besides its id: every queued URL carries the number (a few bytes a row at a billion
 * URLs), never the id string. Job `default` (number 0) always exists: seeds added without a job are its.
 */
export type JobState = "running" | "paused" | "done" | "cancelled";

/** Why a job ended: its page limit, its time limit, a cancel, or its queue ran empty. */
export type JobEndReason = "max-pages" | "max-duration" | "cancelled" | "finished";

/** The scope and trap settings of the config table a job may set for itself (the rest are the fleet's). */
export interface JobScope {
  scope?: "host" | "domain" | "any";
  maxDepth?: number;
  allowHosts?: string[];
  allowUrls?: string[];
  denyUrls?: string[];
  denyExtensions?: string[];
  maxUrlLength?: number;
  maxRepeatedSegment?: number;
}

/** What a caller asks for when creating a job (validated by job-request.ts). */
export interface JobSpec extends JobScope {
  id: string;
  seeds: string[];
  /** Feed URLs (RSS, Atom) of the job: each read as a feed, its items the job's like its seeds; absent: none. */
  feeds?: string[];
  /** Page results after which the job stops asking for pages; 0: no limit. */
  maxPages: number;
  /** Milliseconds after its start after which the job stops; 0: no limit. */
  maxDurationMs: number;
  /** Its share of a shared host's turns, relative to the other jobs there (1..1000). */
  weight: number;
}

/** The stored job: its spec (seeds and feeds apart: they go to the frontier, not into the record) and its state. */
export interface JobRecord extends Omit<JobSpec, "seeds" | "feeds"> {
  /** 0 for `default`, 1, 2... in order of creation; never reused. */
  number: number;
  state: JobState;
  /** Set when the job ended (done or cancelled). */
  reason?: JobEndReason;
  createdAt: number;
  /** When it last began running (creation); epoch ms. */
  startedAt: number;
  /** When it ended; absent while running or paused. */
  endedAt?: number;
  /** The hosts of its seeds: where `scope: host` (or `domain`) keeps it. At most MAX_JOB_ROOTS. */
  roots?: string[];
}

/** A job's counters, summed over the partitions that hold its URLs. */
export interface JobCounts {
  /** Page results of the job (every outcome: fetched, error, redirect, robots denial, duplicate). */
  pages: number;
  /** Of those, errors (network, 4xx, 5xx). */
  errors: number;
  /** URLs of the job in the queues now. */
  queued: number;
}

export const DEFAULT_JOB_ID = "default";
export const DEFAULT_JOB_NUMBER = 0;
/** Jobs the registry holds at most (the design bound: labels, per-host turn tables and records stay small). */
export const MAX_JOBS = 1000;
/** Seed hosts a job keeps as the roots of its scope, at most (a record stays well under NATS KV's value limit). */
export const MAX_JOB_ROOTS = 10_000;
export const JOB_ID_PATTERN = /^[a-z0-9-]{1,40}$/;

/** The job seeds belong to when none is named, as if it had been created with the fleet's own settings. */
export function defaultJob(now: number): JobRecord {
  return {
    id: DEFAULT_JOB_ID,
    number: DEFAULT_JOB_NUMBER,
    maxPages: 0,
    maxDurationMs: 0,
    weight: 1,
    state: "running",
    createdAt: now,
    startedAt: now,
  };
}

export function isEnded(job: Pick<JobRecord, "state">): boolean {
  return job.state === "done" || job.state === "cancelled";
}

/** Whether a job's URLs may be handed out: running, not ended, not paused. */
export function isActive(job: Pick<JobRecord, "state">): boolean {
  return job.state === "running";
}

/**
 * Reading a job from untrusted JSON (the admin API's body, a gRPC request turned into the same shape): each
 * field checked by the same rule the config table applies to its flag (core/config's value kinds), unknown
 * fields refused, so a typo is an error rather than a setting silently left out. Every error is an
 * InvalidArgumentError naming the field; input is quoted only clipped.
 */
import { formatDuration, parseDuration, policyFieldSpec, type ValueKind } from "../config/index.ts";
import { InvalidArgumentError } from "../errors/index.ts";
import { clip, jsonKind as kind, jsonObject as object, onlyFields } from "../input/index.ts";
import { MAX_URL_LENGTH } from "../url/index.ts";
import { DEFAULT_JOB_ID, JOB_ID_PATTERN, type JobScope, type JobSpec } from "./job.ts";

/** The scope and trap settings a job may set, by the config table's field name. */
export const JOB_SCOPE_FIELDS = [
  "scope",
  "maxDepth",
  "allowHosts",
  "allowUrls",
  "denyUrls",
  "denyExtensions",
  "maxUrlLength",
  "maxRepeatedSegment",
] as const satisfies ReadonlyArray<keyof JobScope>;

const LIMIT_FIELDS = ["id", "seeds", "feeds", "maxPages", "maxDuration", "weight"] as const;
const CREATE_FIELDS: readonly string[] = [...LIMIT_FIELDS, ...JOB_SCOPE_FIELDS];
const MAX_WEIGHT = 1000;
/** A week: a longer crawl is a job without a time limit. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/** Throws unless `id` is a job id: 1-40 characters of a-z, 0-9 and -. */
export function checkJobId(id: unknown, where = "id"): string {
  if (typeof id !== "string") throw new InvalidArgumentError(`${where}: must be a string, got ${kind(id)}`);
  if (!JOB_ID_PATTERN.test(id)) throw new InvalidArgumentError(`${where}: "${clip(id)}" must be 1-40 characters of a-z, 0-9 and -`);
  return id;
}

/**
 * `{"id", "seeds"?, "feeds"?, "maxPages"?, "maxDuration"?, "weight"?, scope fields...}` → JobSpec. `maxDuration` is a
 * duration as the config table writes them ("90s", "2h"; 0 or absent: none). `default` cannot be created: it exists.
 */
export function jobCreateRequest(body: unknown, maxSeeds: number): JobSpec {
  const obj = object(body, "body");
  onlyFields(obj, CREATE_FIELDS, "body");
  const id = checkJobId(obj["id"]);
  if (id === DEFAULT_JOB_ID)
    throw new InvalidArgumentError(`id: "${DEFAULT_JOB_ID}" is the job of seeds added without one; it always exists`);
  const spec: JobSpec = {
    id,
    seeds: obj["seeds"] === undefined ? [] : seedList(obj["seeds"], maxSeeds, "seeds"),
    ...(obj["feeds"] !== undefined && { feeds: seedList(obj["feeds"], maxSeeds, "feeds") }),
    maxPages: count(obj["maxPages"], "maxPages", 0, Number.MAX_SAFE_INTEGER) ?? 0,
    maxDurationMs: duration(obj["maxDuration"]),
    weight: count(obj["weight"], "weight", 1, MAX_WEIGHT) ?? 1,
  };
  const total = spec.seeds.length + (spec.feeds?.length ?? 0);
  if (total > maxSeeds)
    throw new InvalidArgumentError(`seeds: at most ${maxSeeds} URLs per request (seeds and feeds together), got ${total}`);
  for (const field of JOB_SCOPE_FIELDS) {
    const value = obj[field];
    if (value !== undefined) (spec as unknown as Record<string, unknown>)[field] = scopeValue(field, value);
  }
  return spec;
}

/** A job's seeds to add: page URLs and feed URLs (RSS, Atom: read as feeds). */
export interface JobSeeds {
  urls: string[];
  feeds: string[];
}

/** `{"urls": [...], "feeds": [...]}` for a job's seeds: either may be left out, not both; together at most `maxSeeds`. */
export function jobSeedsRequest(body: unknown, maxSeeds: number): JobSeeds {
  const obj = object(body, "body");
  onlyFields(obj, ["urls", "feeds"], "body");
  if (obj["urls"] === undefined && obj["feeds"] === undefined)
    throw new InvalidArgumentError("urls: required (or feeds), an array of URL strings");
  const urls = obj["urls"] === undefined ? [] : seedList(obj["urls"], maxSeeds, "urls");
  const feeds = obj["feeds"] === undefined ? [] : seedList(obj["feeds"], maxSeeds, "feeds");
  if (urls.length + feeds.length === 0)
    throw new InvalidArgumentError(`${obj["urls"] === undefined ? "feeds" : "urls"}: give at least one URL`);
  if (urls.length + feeds.length > maxSeeds)
    throw new InvalidArgumentError(
      `urls: at most ${maxSeeds} URLs per request (urls and feeds together), got ${urls.length + feeds.length}`,
    );
  return { urls, feeds };
}

function seedList(value: unknown, max: number, where: string): string[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError(`${where}: must be an array of URL strings, got ${kind(value)}`);
  if (value.length > max) throw new InvalidArgumentError(`${where}: at most ${max} URLs per request, got ${value.length}`);
  value.forEach((u, i) => {
    if (typeof u !== "string") throw new InvalidArgumentError(`${where}[${i}]: must be a string, got ${kind(u)}`);
    if (u.trim() === "") throw new InvalidArgumentError(`${where}[${i}]: must not be empty`);
    if (u.length > MAX_URL_LENGTH) throw new InvalidArgumentError(`${where}[${i}]: longer than ${MAX_URL_LENGTH} characters`);
  });
  return value as string[];
}

function count(value: unknown, where: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new InvalidArgumentError(`${where}: must be a whole number, got ${kind(value)}`);
  if (value < min || value > max) throw new InvalidArgumentError(`${where}: must be between ${min} and ${max}, got ${value}`);
  return value;
}

function duration(value: unknown): number {
  if (value === undefined || value === 0 || value === "0") return 0;
  if (typeof value !== "string")
    throw new InvalidArgumentError(`maxDuration: must be a duration such as "90s" or "2h", got ${kind(value)}`);
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (error) {
    throw new InvalidArgumentError(`maxDuration: ${(error as Error).message}`);
  }
  if (ms < 0 || ms > MAX_DURATION_MS)
    throw new InvalidArgumentError(`maxDuration: must be between 0 and ${formatDuration(MAX_DURATION_MS)}, got "${clip(value)}"`);
  return ms;
}

/** A scope field's JSON value, checked by its config table row: lists as arrays of strings, the rest as their JSON type. */
function scopeValue(field: (typeof JOB_SCOPE_FIELDS)[number], value: unknown): unknown {
  const kindOf = policyFieldSpec(field) as unknown as ValueKind<unknown>;
  const isList = Array.isArray(policyFieldSpec(field).default);
  let parsed: unknown;
  try {
    if (isList) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
        throw new Error(`must be an array of strings, got ${kind(value)}`);
      // Parsing the written form gives the entries in the canonical form the filter applies.
      parsed = [...(kindOf.parse(kindOf.format(value)) as readonly string[])];
    } else if (field === "scope") {
      if (typeof value !== "string") throw new Error(`must be a string, got ${kind(value)}`);
      parsed = kindOf.parse(value);
    } else {
      if (typeof value !== "number" || !Number.isInteger(value)) throw new Error(`must be a whole number, got ${kind(value)}`);
      parsed = value;
    }
  } catch (error) {
    throw new InvalidArgumentError(`${field}: ${clip((error as Error).message, 200)}`);
  }
  const problem = kindOf.check(parsed);
  if (problem) throw new InvalidArgumentError(`${field}: ${clip(problem, 200)}`);
  return parsed;
}

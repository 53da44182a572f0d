/**
 * FetchResult (core/model) <-> crawler.fetch.v1.FetchResult. Proto3 scalars have no presence, so two
 * model fields are rebuilt from what the fetch worker guarantees: `changed` is present exactly when a
 * fingerprint is (the worker computes both from the same body) and otherwise only when true; `truncated`
 * is present only when true. A robots verdict of "parse" always carries its text (possibly ""); other
 * verdicts carry text only when it is non-empty. A network-error or skipped result must name a known error
 * kind or skip reason, and a note must be a known note: anything else is a CodecError, like an unknown kind.
 * Times travel twice: in whole milliseconds (`*_ms`) and in microseconds (`*_us`), which the decoder
 * prefers, since politeness multiplies a fetch's duration by ten and a rounded millisecond would come back
 * as ten; `sentAt` travels in microseconds only.
 */
import {
  isFetchErrorKind,
  isResultNote,
  isSkipReason,
  type FetchResult,
  type RecordLocation,
  type RenderReport,
  type ResultKind,
} from "../../core/model/index.ts";
import * as pb from "../gen/crawler/fetch/v1/fetch.ts";
import { CodecError } from "./errors.ts";
import { decodeOrThrow, taskKindFromProto, taskKindToProto } from "./fetch-task.ts";
import { fromInt64, optional, toInt64, toUint32, toUint64 } from "./numbers.ts";
import { sitemapSummaryFromProto, sitemapSummaryToProto } from "./sitemap.ts";

type RobotsVerdictName = NonNullable<FetchResult["robots"]>["verdict"];

const resultKinds: Record<ResultKind, pb.ResultKind> = {
  response: pb.ResultKind.RESULT_KIND_RESPONSE,
  "network-error": pb.ResultKind.RESULT_KIND_NETWORK_ERROR,
  skipped: pb.ResultKind.RESULT_KIND_SKIPPED,
};

const verdicts: Record<RobotsVerdictName, pb.RobotsVerdict> = {
  "allow-all": pb.RobotsVerdict.ROBOTS_VERDICT_ALLOW_ALL,
  "disallow-all": pb.RobotsVerdict.ROBOTS_VERDICT_DISALLOW_ALL,
  parse: pb.RobotsVerdict.ROBOTS_VERDICT_PARSE,
};

function resultKindFromProto(kind: pb.ResultKind): ResultKind {
  for (const [name, value] of Object.entries(resultKinds)) if (value === kind) return name as ResultKind;
  throw new CodecError(`result kind ${kind} is not a known kind`);
}

function verdictFromProto(verdict: pb.RobotsVerdict): RobotsVerdictName | undefined {
  if (verdict === pb.RobotsVerdict.ROBOTS_VERDICT_UNSPECIFIED) return undefined;
  for (const [name, value] of Object.entries(verdicts)) if (value === verdict) return name as RobotsVerdictName;
  throw new CodecError(`robots verdict ${verdict} is not a known verdict`);
}

export function fetchResultToProto(result: FetchResult): pb.FetchResult {
  const kind = resultKinds[result.kind];
  if (kind === undefined) throw new CodecError(`unknown result kind ${JSON.stringify(result.kind)}`);
  let robotsVerdict = pb.RobotsVerdict.ROBOTS_VERDICT_UNSPECIFIED;
  if (result.robots) {
    const v = verdicts[result.robots.verdict];
    if (v === undefined) throw new CodecError(`unknown robots verdict ${JSON.stringify(result.robots.verdict)}`);
    robotsVerdict = v;
  }
  return {
    taskId: result.taskId,
    kind,
    taskKind: taskKindToProto(result.taskKind),
    url: result.url,
    host: result.host,
    partition: toUint32("partition", result.partition),
    status: toUint32("status", result.status),
    error: result.error ?? "",
    note: result.kind === "response" ? (result.note ?? "") : "",
    refusal: result.kind === "skipped" ? (result.refusal ?? "") : "",
    startedAtMs: toInt64("startedAt", result.startedAt),
    endedAtMs: toInt64("endedAt", result.endedAt),
    fingerprint: result.fingerprint ?? "",
    simhash: result.simhash ?? "",
    etag: result.etag ?? "",
    lastModified: result.lastModified ?? "",
    retryAfter: result.retryAfter ?? "",
    redirectTo: result.redirectTo ?? "",
    changed: result.changed ?? false,
    duplicateOf: result.duplicateOf ?? "",
    nearDuplicateOf: result.nearDuplicateOf ?? "",
    linksFound: toUint32("linksFound", result.linksFound),
    robotsVerdict,
    robotsText: result.robots?.text ?? "",
    bytes: toUint64("bytes", result.bytes),
    truncated: result.truncated ?? false,
    startedAtUs: toInt64("startedAt", result.startedAt * 1000),
    endedAtUs: toInt64("endedAt", result.endedAt * 1000),
    sentAtUs: result.sentAt === undefined ? 0n : toInt64("sentAt", result.sentAt * 1000),
    sitemap: result.sitemap ? sitemapSummaryToProto(result.sitemap) : undefined,
    mediaFound: toUint32("mediaFound", result.mediaFound ?? 0),
    pausedUs: toUint64("pausedMs", Math.round((result.pausedMs ?? 0) * 1000)),
    job: toUint32("job", result.job ?? 0),
    contentType: result.contentType ?? "",
    warc: result.warc ? locationToProto("warc", result.warc) : undefined,
    text: result.text ? locationToProto("text", result.text) : undefined,
    render: result.render ? renderReportToProto(result.render) : undefined,
  };
}

const RENDER_OUTCOMES: Record<RenderReport["outcome"], pb.RenderOutcome> = {
  rendered: pb.RenderOutcome.RENDER_OUTCOME_RENDERED,
  "as-received": pb.RenderOutcome.RENDER_OUTCOME_AS_RECEIVED,
  failed: pb.RenderOutcome.RENDER_OUTCOME_FAILED,
};

function renderReportToProto(r: RenderReport): pb.RenderReport {
  return {
    outcome: RENDER_OUTCOMES[r.outcome],
    reason: r.reason ?? "",
    extraLinks: toUint32("render.extraLinks", r.extraLinks),
    hostRequests: toUint32("render.hostRequests", r.hostRequests),
    browserRestarts: toUint32("render.browserRestarts", r.browserRestarts ?? 0),
    hostThrottled: r.hostThrottled ?? false,
  };
}

function renderReportFromProto(msg: pb.RenderReport): RenderReport {
  const outcome = (Object.keys(RENDER_OUTCOMES) as RenderReport["outcome"][]).find((k) => RENDER_OUTCOMES[k] === msg.outcome);
  if (outcome === undefined) throw new CodecError(`render outcome ${msg.outcome} is not a known outcome`);
  const r: RenderReport = { outcome, extraLinks: msg.extraLinks, hostRequests: msg.hostRequests };
  const reason = optional(msg.reason);
  if (reason !== undefined) r.reason = reason;
  if (msg.browserRestarts > 0) r.browserRestarts = msg.browserRestarts;
  if (msg.hostThrottled) r.hostThrottled = true;
  return r;
}

/** A time sent twice: microseconds when set (0 means an older sender), else whole milliseconds. */
function preciseTime(field: string, us: bigint, ms: bigint): number {
  return us !== 0n ? fromInt64(`${field}Us`, us) / 1000 : fromInt64(`${field}Ms`, ms);
}

const optionalStrings = [
  "fingerprint",
  "simhash",
  "etag",
  "lastModified",
  "retryAfter",
  "redirectTo",
  "duplicateOf",
  "nearDuplicateOf",
  "contentType",
] as const;

export function fetchResultFromProto(msg: pb.FetchResult): FetchResult {
  if (msg.taskId === "") throw new CodecError("fetch result without a task id");
  const fields: RequiredFields = {
    taskId: msg.taskId,
    taskKind: taskKindFromProto(msg.taskKind),
    url: msg.url,
    host: msg.host,
    partition: msg.partition,
    status: msg.status,
    startedAt: preciseTime("startedAt", msg.startedAtUs, msg.startedAtMs),
    endedAt: preciseTime("endedAt", msg.endedAtUs, msg.endedAtMs),
    linksFound: msg.linksFound,
    bytes: fromInt64("bytes", msg.bytes),
  };
  const result = withKind(msg, fields);
  for (const key of optionalStrings) {
    const value = optional(msg[key]);
    if (value !== undefined) result[key] = value;
  }
  if (msg.changed || msg.fingerprint !== "") result.changed = msg.changed;
  if (msg.truncated) result.truncated = true;
  if (msg.sentAtUs !== 0n) result.sentAt = fromInt64("sentAtUs", msg.sentAtUs) / 1000;
  if (msg.mediaFound > 0) result.mediaFound = msg.mediaFound;
  if (msg.pausedUs > 0n) result.pausedMs = fromInt64("pausedUs", msg.pausedUs) / 1000;
  if (msg.job > 0) result.job = msg.job;
  if (msg.render) result.render = renderReportFromProto(msg.render);
  const verdict = verdictFromProto(msg.robotsVerdict);
  if (verdict !== undefined) {
    result.robots = { verdict };
    if (verdict === "parse" || msg.robotsText !== "") result.robots.text = msg.robotsText;
  }
  if (msg.sitemap) result.sitemap = sitemapSummaryFromProto(msg.sitemap);
  if (msg.warc) result.warc = locationFromProto("warc", msg.warc);
  if (msg.text) result.text = locationFromProto("text", msg.text);
  return result;
}

function locationToProto(field: string, location: RecordLocation): pb.RecordLocation {
  return {
    file: location.file,
    offset: toUint64(`${field}.offset`, location.offset),
    length: toUint64(`${field}.length`, location.length),
  };
}

/** A location must name a file and a record of at least one byte: anything else cannot be read back. */
function locationFromProto(field: string, msg: pb.RecordLocation): RecordLocation {
  const length = fromInt64(`${field}.length`, msg.length);
  if (msg.file === "" || length === 0) throw new CodecError(`${field} location without a file or a length`);
  return { file: msg.file, offset: fromInt64(`${field}.offset`, msg.offset), length };
}

type RequiredFields = Pick<
  FetchResult,
  "taskId" | "taskKind" | "url" | "host" | "partition" | "status" | "startedAt" | "endedAt" | "linksFound" | "bytes"
>;

/** The kind with what it requires: a failure its error kind or skip reason, a response its note if any. */
function withKind(msg: pb.FetchResult, fields: RequiredFields): FetchResult {
  const kind = resultKindFromProto(msg.kind);
  if (kind === "response") {
    // A fetch node older than the note field wrote the note into `error`.
    const note = optional(msg.note) ?? optional(msg.error);
    if (note === undefined) return { ...fields, kind };
    if (!isResultNote(note)) throw new CodecError(`result note ${JSON.stringify(note)} is not a known note`);
    return { ...fields, kind, note };
  }
  const error = msg.error;
  if (!isFetchErrorKind(error)) {
    throw new CodecError(`${kind} result with ${error === "" ? "no error kind" : `unknown error kind ${JSON.stringify(error)}`}`);
  }
  if (kind === "skipped") {
    if (!isSkipReason(error)) throw new CodecError(`skipped result with ${JSON.stringify(error)}, which is not a skip reason`);
    const refusal = optional(msg.refusal);
    if (refusal !== undefined && !/^[a-z][a-z-]{0,31}$/.test(refusal))
      throw new CodecError("skipped result with a malformed refusal reason");
    return refusal === undefined ? { ...fields, kind, error } : { ...fields, kind, error, refusal };
  }
  if (isSkipReason(error)) throw new CodecError(`network-error result with ${JSON.stringify(error)}, which is a skip reason`);
  return { ...fields, kind, error };
}

export function encodeFetchResult(result: FetchResult): Uint8Array {
  return pb.FetchResult.encode(fetchResultToProto(result)).finish();
}

export function decodeFetchResult(bytes: Uint8Array): FetchResult {
  return fetchResultFromProto(decodeOrThrow("FetchResult", () => pb.FetchResult.decode(bytes)));
}

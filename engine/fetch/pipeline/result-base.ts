/**
 * Builds the common part of a FetchResult from a task and an HTTP outcome, so each step only adds what it
 * learned. A response becomes a "response" result; an error outcome a "network-error" result with its kind,
 * or a "skipped" one when the kind is a refusal of our own (a blocked address: the host was never asked).
 */
import { isSkipReason, type FetchResult, type FetchTask, type ResponseResult } from "../../../core/model/index.ts";
import { retryAfterAsDelay } from "../../../core/politeness/index.ts";
import type { FetchError, FetchOutcome, FetchResponse } from "../http/index.ts";

const MAX_CONTENT_TYPE = 200;

export function resultFor(task: FetchTask, outcome: FetchResponse): ResponseResult;
export function resultFor(task: FetchTask, outcome: FetchError | FetchOutcome): FetchResult;
export function resultFor(task: FetchTask, outcome: FetchOutcome): FetchResult {
  const common = {
    taskId: task.taskId,
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    startedAt: outcome.startedAt,
    endedAt: outcome.endedAt,
    ...(outcome.pausedMs ? { pausedMs: outcome.pausedMs } : {}),
    ...(outcome.serverWaitMs ? { serverWaitMs: outcome.serverWaitMs } : {}),
    linksFound: 0,
    bytes: 0,
  };
  if (outcome.kind === "error") {
    const error = outcome.error;
    // A refused address is not the host's answer: the task is skipped, with the address policy's reason,
    // so counters and the URL's note say which rule refused it.
    if (isSkipReason(error))
      return { ...common, kind: "skipped", status: 0, error, ...(outcome.refusal ? { refusal: outcome.refusal } : {}) };
    if (error === "local") return { ...common, kind: "network-error", status: 0, error, local: outcome.local, message: outcome.message };
    return { ...common, kind: "network-error", status: 0, error };
  }
  return {
    ...common,
    kind: "response",
    status: outcome.status,
    etag: outcome.headers["etag"],
    lastModified: outcome.headers["last-modified"],
    // A date is read here, on the wall clock at arrival; what travels is a delay (see retryAfterAsDelay).
    retryAfter: retryAfterAsDelay(outcome.headers["retry-after"], Date.now()),
    truncated: outcome.truncated || undefined,
    ...contentTypeOf(outcome.headers["content-type"]),
  };
}

/** The Content-Type a result reports: the header as sent, bounded (a hostile server can send kilobytes). */
function contentTypeOf(header: string | undefined): { contentType?: string } {
  const value = header?.trim().slice(0, MAX_CONTENT_TYPE);
  return value ? { contentType: value } : {};
}

/**
 * Builds the common part of a FetchResult from a task and an HTTP outcome, so each step only adds what it
 * learned. Network errors and responses differ only in kind, status and error code.
 */
import type { FetchResult, FetchTask } from "../../../core/model/index.ts";
import type { FetchOutcome } from "../http/index.ts";

export function resultFor(task: FetchTask, outcome: FetchOutcome): FetchResult {
  const common = {
    taskId: task.taskId,
    taskKind: task.kind,
    url: task.url,
    host: task.host,
    partition: task.partition,
    startedAt: outcome.startedAt,
    endedAt: outcome.endedAt,
    linksFound: 0,
    bytes: 0,
  };
  if (outcome.kind === "error") {
    const skipped = outcome.error === "blocked-address";
    return { ...common, kind: skipped ? "skipped" : "network-error", status: 0, error: outcome.error };
  }
  return {
    ...common,
    kind: "response",
    status: outcome.status,
    etag: outcome.headers["etag"],
    lastModified: outcome.headers["last-modified"],
    retryAfter: outcome.headers["retry-after"],
    truncated: outcome.truncated || undefined,
  };
}

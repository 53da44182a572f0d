/**
 * The fetch path of one media file (an image, video or audio a page named, with --fetch-media): the same
 * request as a page's (conditional GET, capped decompression) under the media body cap, then a redirect
 * becomes a new URL, an exact duplicate a revisit record, anything else a `response` record. A media body
 * is never parsed: nothing in it is a link, whatever its bytes look like.
 */
import type { FetchTask } from "../../../core/model/index.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import { duplicateStep } from "./duplicate-step.ts";
import { resultFor } from "./result-base.ts";
import { nonContentOutput } from "./status-step.ts";
import { storeResponse } from "./store-step.ts";
import type { WorkerDeps } from "./types.ts";

export async function runMediaTask(deps: WorkerDeps, task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
  const outcome = await deps.fetcher.fetch({
    url: task.url,
    etag: task.etag,
    lastModified: task.lastModified,
    signal,
    maxBodyBytes: deps.maxMediaBodyBytes,
  });
  if (outcome.kind === "error") return { result: resultFor(task, outcome), links: [] };
  const result = resultFor(task, outcome);
  const done = await nonContentOutput(deps, task, outcome, result);
  if (done) return done;
  const duplicate = await duplicateStep(deps, task, outcome, result);
  await storeResponse(deps.store, outcome, result, { revisit: duplicate.revisit });
  return { result, links: [] };
}

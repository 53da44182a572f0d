/**
 * What a response that carries no content to keep as such means, for pages and media alike: a redirect
 * becomes a target URL the frontier admits as a new URL (never followed inline; a Location that does not
 * normalize is noted), and any other status outside 2xx (304 included) is stored as it came. Returns the
 * task's output for those, or undefined for a 2xx, whose content the task's own steps handle.
 */
import type { FetchTask, ResponseResult } from "../../../core/model/index.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import { normalizeUrl } from "../../../core/url/index.ts";
import type { FetchResponse } from "../http/index.ts";
import { storeResponse } from "./store-step.ts";
import type { WorkerDeps } from "./types.ts";

export async function nonContentOutput(
  deps: WorkerDeps,
  task: FetchTask,
  response: FetchResponse,
  result: ResponseResult,
): Promise<WorkOutput | undefined> {
  const status = response.status;
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400 && status !== 304) {
    const location = response.headers["location"];
    const target = location ? normalizeUrl(location, task.url) : undefined;
    if (target?.ok) result.redirectTo = target.url;
    else if (location) result.note = `bad-location: ${target && !target.ok ? target.reason : "missing"}`;
  }
  await storeResponse(deps.store, response, result);
  return { result, links: [] };
}

/**
 * The fetch path of one page, as an ordered list of small steps:
 *
 *   request (conditional GET, capped decompression)  -> http/
 *   redirect? -> normalize the Location; the frontier admits it as a new URL (never followed inline)
 *   fingerprint -> an exact duplicate of another URL is neither stored nor parsed
 *   parse (HTML only) -> meta robots / X-Robots-Tag, links, text
 *   near-duplicate check (SimHash) -> recorded, the frontier down-ranks
 *   store (WARC) -> unless noindex
 *
 * Politeness and robots.txt are not steps here: the frontier that owns the host checked both before it
 * issued the task.
 */
import { exactFingerprint, simhash64 } from "../../../core/content/index.ts";
import type { FetchTask } from "../../../core/model/index.ts";
import { normalizeUrl } from "../../../core/url/index.ts";
import type { FetchResponse } from "../http/index.ts";
import { decodeBody, extractPage, isHtmlContentType, parseXRobotsTag } from "../parse/index.ts";
import { selectLinks } from "./links-step.ts";
import { resultFor } from "./result-base.ts";
import { storeResponse } from "./store-step.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import type { WorkerDeps } from "./types.ts";

export async function runPageTask(deps: WorkerDeps, task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
  const outcome = await deps.fetcher.fetch({ url: task.url, etag: task.etag, lastModified: task.lastModified, signal });
  const result = resultFor(task, outcome);
  if (outcome.kind === "error") return { result, links: [] };

  if (outcome.status >= 300 && outcome.status < 400 && outcome.status !== 304) {
    const location = outcome.headers["location"];
    const target = location ? normalizeUrl(location, task.url) : undefined;
    if (target?.ok) result.redirectTo = target.url;
    else if (location) result.error = `bad-location: ${target && !target.ok ? target.reason : "missing"}`;
    result.bytes = await storeResponse(deps.store, outcome);
    return { result, links: [] };
  }
  if (outcome.status < 200 || outcome.status >= 300) {
    result.bytes = await storeResponse(deps.store, outcome);
    return { result, links: [] };
  }
  return handleContent(deps, task, outcome, result);
}

async function handleContent(
  deps: WorkerDeps,
  task: FetchTask,
  response: FetchResponse,
  result: WorkOutput["result"],
): Promise<WorkOutput> {
  const fingerprint = exactFingerprint(response.body);
  result.fingerprint = fingerprint;
  result.changed = task.previousFingerprint !== undefined && task.previousFingerprint !== fingerprint;
  const duplicateOf = await deps.content.claimExact(fingerprint, task.url);
  if (duplicateOf) {
    result.duplicateOf = duplicateOf;
    return { result, links: [] };
  }

  const contentType = response.headers["content-type"];
  if (response.unsupportedEncoding || !isHtmlContentType(contentType, response.body.subarray(0, 512))) {
    result.bytes = await storeResponse(deps.store, response);
    return { result, links: [] };
  }

  const header = parseXRobotsTag(response.headers["x-robots-tag"], deps.agentToken);
  const page = extractPage(decodeBody(response.body, contentType), task.url, { agentToken: deps.agentToken });
  const noindex = header.noindex || page.metaRobots.noindex;
  const nofollow = header.nofollow || page.metaRobots.nofollow;
  const selection = selectLinks(task, page, nofollow);
  result.linksFound = selection.links.length;

  if (page.text.length > 0) {
    const hash = simhash64(page.text);
    result.simhash = hash.toString(16).padStart(16, "0");
    const near = await deps.content.claimNear(hash, task.url);
    if (near) result.nearDuplicateOf = near;
  }
  if (noindex) result.error = "noindex";
  else result.bytes = await storeResponse(deps.store, response);
  return { result, links: selection.links };
}

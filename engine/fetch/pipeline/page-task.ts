/**
 * The fetch path of one page, as an ordered list of small steps:
 *
 *   request (conditional GET, capped decompression)   -> http/
 *   redirect or other non-2xx -> stored as it came; a redirect's target is a new URL (status-step.ts)
 *   exact duplicate -> of another URL: a revisit record, not parsed; of this URL's last visit: a revisit
 *                      record, parsed (duplicate-step.ts)
 *   parse (HTML only) -> meta robots / X-Robots-Tag, links, media, text
 *   near-duplicate check (SimHash) -> on a first visit, a page within 3 bits of a stored page is kept as a
 *                      revisit record naming it, and its links are marked so the frontier queues them at
 *                      the lowest priority (docs/warc.md)
 *   render -> when the task asks and the process has a browser: the links only scripts make, and the
 *             rendered DOM and its text (render-step.ts)
 *   store (WARC) -> unless noindex; with a metadata record listing the page's media, the page's text (a
 *             WET record: the rendered DOM's when rendered) and, after the response, the rendered DOM
 *   media -> listed always; returned as URLs of kind "media" when the task asks for them (media-step.ts)
 *
 * Politeness and robots.txt are not steps here: the frontier that owns the host checked both before it
 * issued the task.
 */
import { simhash64 } from "../../../core/content/index.ts";
import type { FetchTask, PageText, ResponseResult, Revisit } from "../../../core/model/index.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import type { FetchResponse } from "../http/index.ts";
import { decodeBody, extractPage, isHtmlContentType, parseXRobotsTag, type ExtractedPage } from "../parse/index.ts";
import { duplicateStep } from "./duplicate-step.ts";
import { selectLinks } from "./links-step.ts";
import { selectMedia } from "./media-step.ts";
import { resultFor } from "./result-base.ts";
import { nonContentOutput } from "./status-step.ts";
import { renderStep, storeRendered } from "./render-step.ts";
import { storeResponse } from "./store-step.ts";
import type { WorkerDeps } from "./types.ts";

export async function runPageTask(deps: WorkerDeps, task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
  const outcome = await deps.fetcher.fetch({ url: task.url, etag: task.etag, lastModified: task.lastModified, signal });
  if (outcome.kind === "error") return { result: resultFor(task, outcome), links: [] };
  const result = resultFor(task, outcome);
  return (await nonContentOutput(deps, task, outcome, result)) ?? handleContent(deps, task, outcome, result, signal);
}

/** What a page's WET record keeps: its title and visible text, as parsed (bounded there). */
function pageText(page: Pick<ExtractedPage, "title" | "text">): PageText {
  return page.title ? { title: page.title, text: page.text } : { text: page.text };
}

async function handleContent(
  deps: WorkerDeps,
  task: FetchTask,
  response: FetchResponse,
  result: ResponseResult,
  signal?: AbortSignal,
): Promise<WorkOutput> {
  const duplicate = await duplicateStep(deps, task, response, result);
  if (duplicate.ofAnother) {
    await storeResponse(deps.store, response, result, { revisit: duplicate.revisit });
    return { result, links: [] };
  }

  const contentType = response.headers["content-type"];
  if (response.unsupportedEncoding || !isHtmlContentType(contentType, response.body.subarray(0, 512))) {
    await storeResponse(deps.store, response, result, { revisit: duplicate.revisit });
    return { result, links: [] };
  }

  const header = parseXRobotsTag(response.headers["x-robots-tag"], deps.agentToken);
  const html = decodeBody(response.body, contentType);
  const page = extractPage(html, task.url, { agentToken: deps.agentToken });
  const noindex = header.noindex || page.metaRobots.noindex;
  const nofollow = header.nofollow || page.metaRobots.nofollow;
  const links = selectLinks(task, page, nofollow);
  const media = selectMedia(task, page, nofollow);
  result.linksFound = links.length;
  if (media.refs.length > 0) result.mediaFound = media.refs.length;

  let revisit: Revisit | undefined = duplicate.revisit;
  if (page.text.length > 0) {
    const hash = simhash64(page.text);
    result.simhash = hash.toString(16).padStart(16, "0");
    const near = await deps.content.claimNear(hash, task.url);
    // Only a first visit is judged a near duplicate: a refetched page is compared with its own last visit.
    if (near && task.previousFingerprint === undefined) {
      result.nearDuplicateOf = near;
      revisit = { profile: "near-duplicate", refersToUri: near, simhash: result.simhash };
      for (const link of links) link.foundOnNearDuplicate = true;
    }
  }
  // Rendered before storing, so the page's one WET record holds the text a reader of the page sees. A page
  // that forbids following its links has none to give by rendering either.
  const rendered = nofollow ? undefined : await renderStep(deps, { task, response, html, page, links, result, signal });
  if (noindex) result.note = "noindex";
  else {
    const recordId = await storeResponse(deps.store, response, result, {
      revisit,
      media: media.refs,
      text: pageText(rendered?.page ?? page),
    });
    // After the response, so a crash can lose the DOM but never leave it naming a record that is not there.
    if (rendered && recordId !== undefined) await storeRendered(deps, response.url, recordId, rendered);
  }
  const found = rendered && rendered.links.length > 0 ? [...links, ...rendered.links] : links;
  return { result, links: media.urls.length > 0 ? [...found, ...media.urls] : found };
}

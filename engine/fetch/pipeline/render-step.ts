/**
 * The render step of a page task (after the page is parsed, before it is stored): when the task asks for rendering
 * (`always`, or `auto` and the HTML looks script-built: core/render detector.ts), the page is rendered by
 * the process's Renderer (engine/render) from the response already fetched, and
 *
 *   - the links its rendered DOM has that the HTML did not are returned, marked `foundByRender`, along
 *     with the targets of navigations its scripts tried (a rendered `meta robots nofollow` drops them);
 *   - the DOM (and a screenshot, when on) is handed back, to be stored after the response, referring to it
 *     (`storeRendered`, engine/fetch/warc/rendered-records.ts);
 *   - the result reports it (`render`), and its end moves to the end of the last request the render made
 *     to the page's host, with the longest of those requests as its fetch time: the frontier counts the
 *     host's next gap from there, as if those requests were the task's own (they were made in its turn),
 *     and a 429 or 503 among them slows the host down as the page's own would (`hostThrottled`);
 *   - the rendered DOM's title and text are handed back (`page`), which the page's WET record keeps.
 *
 * A render that fails (crashed tab, deadline, browser gone) leaves the page as parsed from its HTML.
 */
import type { DiscoveredUrl, FetchResponse, FetchTask, ResponseResult } from "../../../core/model/index.ts";
import { judgeShape } from "../../../core/render/index.ts";
import { hostKeyOf, normalizeUrl } from "../../../core/url/index.ts";
import { extractPage, type ExtractedPage } from "../parse/index.ts";
import { selectLinks } from "./links-step.ts";
import { pageShape } from "./page-shape.ts";
import type { WorkerDeps } from "./types.ts";

export interface RenderStepInput {
  task: FetchTask;
  response: FetchResponse;
  /** The HTML as decoded, and what the parse made of it. */
  html: string;
  page: ExtractedPage;
  /** The links taken from the HTML. */
  links: readonly DiscoveredUrl[];
  result: ResponseResult;
  signal?: AbortSignal;
}

export interface RenderStepOutput {
  /** Links found only by rendering. */
  links: DiscoveredUrl[];
  /** The rendered DOM's title and visible text. */
  page: Pick<ExtractedPage, "title" | "text">;
  /** The DOM as the browser left it, and its screenshot when taken. */
  dom: string;
  screenshot?: Uint8Array;
}

export async function renderStep(deps: WorkerDeps, input: RenderStepInput): Promise<RenderStepOutput | undefined> {
  const { task, response, result } = input;
  if (!task.render || !deps.renderer) return undefined;
  if (task.render === "auto") {
    const verdict = judgeShape(pageShape(input.html, input.page));
    if (verdict === "as-received") {
      result.render = { outcome: "as-received", reason: verdict, extraLinks: 0, hostRequests: 0 };
      return undefined;
    }
  }
  const out = await deps.renderer.render(task, response, input.signal);
  if (out.host.requests > 0) {
    result.endedAt = out.host.endedAt;
    result.pausedMs = Math.max(0, result.endedAt - result.startedAt - out.host.longestMs);
  }
  const hostRequests = out.host.requests;
  const restarts = {
    ...(out.restarts > 0 ? { browserRestarts: out.restarts } : {}),
    ...(out.host.throttled ? { hostThrottled: true } : {}),
  };
  if (out.page.kind === "failed") {
    result.render = { outcome: "failed", reason: out.page.reason, extraLinks: 0, hostRequests, ...restarts };
    return undefined;
  }
  const rendered = extractPage(out.page.dom, task.url, { agentToken: deps.agentToken });
  const known = new Set(input.links.map((l) => l.url));
  const nearDuplicate = input.links[0]?.foundOnNearDuplicate;
  const extra: DiscoveredUrl[] = [];
  const add = (link: DiscoveredUrl) => {
    if (known.has(link.url)) return;
    known.add(link.url);
    extra.push({ ...link, foundByRender: true, ...(nearDuplicate ? { foundOnNearDuplicate: true } : {}) });
  };
  if (!rendered.metaRobots.nofollow) {
    for (const link of selectLinks(task, rendered, false)) add(link);
    for (const target of out.page.navigations) {
      const n = normalizeUrl(target);
      if (n.ok) add({ url: n.url, host: hostKeyOf(n.url), depth: task.depth + 1, sourceUrl: task.url, redirectHops: 0 });
    }
  }
  result.render = { outcome: "rendered", extraLinks: extra.length, hostRequests, ...restarts };
  result.linksFound += extra.length;
  return {
    links: extra,
    page: { title: rendered.title, text: rendered.text },
    dom: out.page.dom,
    ...(out.page.screenshot ? { screenshot: out.page.screenshot } : {}),
  };
}

/** Stores a rendered page's DOM (and screenshot) beside its response record, referring to it. */
export async function storeRendered(deps: WorkerDeps, url: string, responseRecordId: string, rendered: RenderStepOutput): Promise<void> {
  if (!deps.store.writeRendered) return;
  await deps.store.writeRendered({
    url,
    responseRecordId,
    renderedAt: deps.now(),
    dom: rendered.dom,
    ...(rendered.screenshot ? { screenshot: rendered.screenshot } : {}),
  });
}

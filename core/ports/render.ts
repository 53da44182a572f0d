/**
 * Rendering a page in a headless browser (engine/render implements it with Chromium), and keeping what it
 * produced. The fetch path holds a `Renderer` only where a browser is available (`crawl` with `--render`
 * other than never, a fetch node that has Chromium).
 */
import type { FetchResponse, FetchTask } from "../model/index.ts";

/** The browser's side of one render. */
export type RenderedPage =
  | {
      kind: "rendered";
      /** The DOM as the browser left it, serialized. */
      dom: string;
      screenshot?: Uint8Array;
      /** The page had not finished loading at the deadline: the DOM is what it had built by then. */
      timedOut: boolean;
      /** Navigations the page's scripts tried (refused: the render keeps its page), to be followed as links. */
      navigations: string[];
    }
  | { kind: "failed"; reason: "crashed" | "deadline" | "browser"; message: string };

export interface RenderOutput {
  page: RenderedPage;
  /**
   * The requests made to the page's own host during the render (the page itself excluded), and when the
   * last of them ended and how long the longest took: the frontier's gap is counted from there.
   */
  host: { requests: number; endedAt: number; longestMs: number; throttled: boolean };
  /** Requests the page made, by how each was answered (`host`, `cache`, `page`, `refused.<reason>`). */
  answers: Record<string, number>;
  /** Browser restarts (crash, kill, memory cap) since the renderer last reported one. */
  restarts: number;
}

/**
 * Contract: `render` never rejects for anything a page or a server can do (a crashed tab, a page that never
 * loads, a browser that dies are `failed` outcomes); it rejects only for a bug. Every request the page makes
 * is answered by the crawler (robots.txt, the host's gap and one-at-a-time rule, the address policy, the
 * body cap); the page itself is `response`, never fetched again. It resolves by the render deadline,
 * counted from when a pool slot and a browser are free for the page (the wait for a slot is bounded by the
 * deadlines of the renders ahead of it).
 */
export interface Renderer {
  render(task: FetchTask, response: FetchResponse, signal?: AbortSignal): Promise<RenderOutput>;
}

/** Where a rendered page's records go (the WARC writer): the DOM and the screenshot, tied to the response record. */
export interface RenderedStore {
  writeRendered(capture: {
    url: string;
    responseRecordId: string;
    renderedAt: number;
    dom: string;
    screenshot?: Uint8Array;
  }): Promise<void>;
}

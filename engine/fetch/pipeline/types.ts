/**
 * What the fetch path needs from its surroundings and what it produces. A FetchWorker gets its parts
 * (the HTTP fetcher, the content index, the page store) from its composition root, borrows them, and
 * closes none of them.
 */
import type { ContentIndex, Fetcher, PageStore, RenderedStore, Renderer, StreamingFetcher } from "../../../core/ports/index.ts";

export interface WorkerDeps {
  /** The HTTP step; a streaming one reads sitemaps without holding them whole (else they are capped at `maxBodyBytes`). */
  fetcher: Fetcher & Partial<StreamingFetcher>;
  /** The body cap, which also caps the copy of a sitemap kept in the WARC file. Default 5 MiB. */
  maxBodyBytes?: number;
  content: ContentIndex;
  /** The page store; one that keeps rendered pages too (the WARC writer) stores their DOM beside the response. */
  store: PageStore & Partial<RenderedStore>;
  /** Renders pages whose task asks for it; absent: this process does not render (the task's ask is ignored). */
  renderer?: Renderer;
  /** Our robots.txt product token, for agent-scoped meta robots and X-Robots-Tag. */
  agentToken: string;
  /**
   * The policy's gap rule for the one case the worker waits itself, between two hops of a robots.txt
   * redirect on the same host: gap >= multiplier x the hop's fetch time, plus the margin.
   */
  gap: { multiplier: number; marginMs: number };
  /** Body cap of a media task (--max-media-body); absent: the fetcher's own cap. */
  maxMediaBodyBytes?: number;
  /** Waits, abortably; injected so tests need no real sleeps. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

/**
 * What the fetch path needs from its surroundings and what it produces. A FetchWorker gets its parts
 * (the HTTP fetcher, the content index, the page store) from its composition root, borrows them, and
 * closes none of them.
 */
import type { ContentIndex, Fetcher, PageStore } from "../../../core/ports/index.ts";

export interface WorkerDeps {
  fetcher: Fetcher;
  content: ContentIndex;
  store: PageStore;
  /** Our robots.txt product token, for agent-scoped meta robots and X-Robots-Tag. */
  agentToken: string;
  /** Body cap of a media task (--max-media-body); absent: the fetcher's own cap. */
  maxMediaBodyBytes?: number;
  /** Waits, abortably; injected so tests need no real sleeps. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

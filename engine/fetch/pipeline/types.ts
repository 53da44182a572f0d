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
  /**
   * The policy's gap rule for the one case the worker waits itself, between two hops of a robots.txt
   * redirect on the same host: gap >= multiplier x the hop's fetch time, plus the margin.
   */
  gap: { multiplier: number; marginMs: number };
  /** Waits, abortably; injected so tests need no real sleeps. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

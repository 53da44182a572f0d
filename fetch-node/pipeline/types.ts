/**
 * What the fetch path needs from its surroundings and what it produces. A FetchWorker gets its parts
 * (the HTTP fetcher, the content index, the page store) from its composition root, borrows them, and
 * closes none of them.
 */
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import type { ContentIndex } from "../content/content-index.ts";
import type { FetchOutcome, FetchRequest } from "../http/index.ts";
import type { CapturedExchange } from "../warc/index.ts";

/** The HTTP step, as the worker uses it (HttpFetcher implements it). */
export interface Fetcher {
  fetch(req: FetchRequest): Promise<FetchOutcome>;
}

/** Where fetched exchanges are kept (the WARC writer implements it). */
export interface PageStore {
  write(exchange: CapturedExchange): Promise<unknown>;
}

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

/**
 * Runs fetch tasks: a FetchWorker in this thread, or a runner that hands tasks to another thread or
 * process. `run` resolves with the task's output; it rejects only for a bug, a broken store, or an abort.
 */
export interface TaskRunner {
  run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput>;
}

/** The outcome of one task: the result for the URL's owner and the links for their hosts' owners. */
export interface WorkOutput {
  result: FetchResult;
  links: DiscoveredUrl[];
}

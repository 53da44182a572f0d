/**
 * The fetch path's ports: the HTTP step it calls (`Fetcher`), where it keeps pages (`PageStore`), and how
 * a frontier's caller runs a task (`TaskRunner`), in this thread, on other threads, or on a fetch node.
 */
import type { CapturedExchange, DiscoveredUrl, FetchOutcome, FetchRequest, FetchResult, FetchTask } from "../model/index.ts";

/**
 * The HTTP step. Contract: `fetch` never rejects for anything a server or the network can do; every failure
 * is an `error` outcome whose kind says how to react. It rejects only for a bug.
 */
export interface Fetcher {
  fetch(req: FetchRequest): Promise<FetchOutcome>;
}

/** Where fetched exchanges are kept (the WARC writer). Contract: resolved means written; a rejection is a broken store. */
export interface PageStore {
  write(exchange: CapturedExchange): Promise<unknown>;
}

/** The outcome of one task: the result for the URL's owner and the links for their hosts' owners. */
export interface WorkOutput {
  result: FetchResult;
  links: DiscoveredUrl[];
}

/**
 * Runs fetch tasks. Contract: `run` resolves with the task's output; it rejects only for a bug, a broken
 * store, or an abort through `signal`. A task rejected is not done: its caller gives it back.
 */
export interface TaskRunner {
  run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput>;
}

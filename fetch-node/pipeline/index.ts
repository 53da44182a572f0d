/**
 * The fetch path: FetchWorker and the ports it needs. See page-task.ts for the order of the steps.
 */
export { FetchWorker } from "./worker.ts";
export type { Fetcher, PageStore, TaskRunner, WorkerDeps, WorkOutput } from "./types.ts";

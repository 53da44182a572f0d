/**
 * The fetch path: FetchWorker and the ports it needs. See page-task.ts for the order of the steps.
 */
export { FetchWorker } from "./worker.ts";
export type { WorkerDeps } from "./types.ts";

/**
 * FetchWorker: runs one fetch task end to end and returns the result and the links found. It is the same
 * code in embedded mode (called in-process by the crawl loop) and on a fetch node (called for each task
 * pulled from JetStream). It never throws for anything a web server can do; a thrown error means a bug or a
 * broken store, and the caller decides (the fetch node does not ack, so the task is redelivered).
 *
 * A task of a crawl job other than `default` (`task.job`) gives its job to its result and to every link it
 * found, here, in one place: the links of a job's pages are that job's.
 */
import type { FetchTask } from "../../../core/model/index.ts";
import { runMediaTask } from "./media-task.ts";
import { runPageTask } from "./page-task.ts";
import { runRobotsTask } from "./robots-task.ts";
import { runSitemapTask } from "./sitemap-task.ts";
import type { WorkOutput } from "../../../core/ports/index.ts";
import type { WorkerDeps } from "./types.ts";

export class FetchWorker {
  constructor(private readonly deps: WorkerDeps) {}

  async run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
    const out = await this.runKind(task, signal);
    const job = task.job;
    if (!job) return out;
    out.result.job = job;
    for (const link of out.links) link.job = job;
    return out;
  }

  private runKind(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
    switch (task.kind) {
      case "robots":
        return runRobotsTask(this.deps, task, signal);
      case "sitemap":
        return runSitemapTask(this.deps, task, signal);
      case "media":
        return runMediaTask(this.deps, task, signal);
      default:
        return runPageTask(this.deps, task, signal);
    }
  }
}

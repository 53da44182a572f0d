/**
 * Runs fetch tasks on a separate thread (see thread.ts) behind the same `run(task, signal)` shape as an
 * in-process FetchWorker, so the crawl loop cannot tell them apart. Aborting any task's signal aborts every
 * task in flight on the thread: the loop only aborts when the whole crawl stops.
 */
import type { FetchTask } from "../../core/model/index.ts";
import type { WorkOutput } from "../../fetch-node/pipeline/index.ts";
import type { FetchThreadInit, FromThread, ToThread } from "./protocol.ts";

export class ThreadedFetchRunner {
  private readonly waiting = new Map<string, { resolve: (o: WorkOutput) => void; reject: (e: Error) => void }>();
  private closed: (() => void) | undefined;
  private fatal: Error | undefined;
  /** Signals already wired to abort the thread: one listener per signal, not one per task. */
  private readonly watched = new WeakSet<AbortSignal>();
  private outbox: FetchTask[] = [];

  private constructor(private readonly worker: Worker) {
    worker.onmessage = (event: MessageEvent<FromThread>) => this.receive(event.data);
    worker.onerror = (event) => this.fail(new Error(`fetch thread crashed: ${(event as ErrorEvent).message}`));
  }

  static async start(init: FetchThreadInit): Promise<ThreadedFetchRunner> {
    const worker = new Worker(new URL("./thread.ts", import.meta.url).href);
    const runner = new ThreadedFetchRunner(worker);
    await new Promise<void>((resolve, reject) => {
      runner.onReady = resolve;
      runner.onFatal = reject;
      runner.post({ type: "init", init });
    });
    return runner;
  }

  private onReady: (() => void) | undefined;
  private onFatal: ((e: Error) => void) | undefined;

  run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
    if (this.fatal) return Promise.reject(this.fatal);
    return new Promise((resolve, reject) => {
      this.waiting.set(task.taskId, { resolve, reject });
      if (signal && !signal.aborted && !this.watched.has(signal)) {
        this.watched.add(signal);
        signal.addEventListener("abort", () => this.post({ type: "abort" }), { once: true });
      }
      this.outbox.push(task);
      if (this.outbox.length === 1) queueMicrotask(() => this.flushOutbox());
    });
  }

  /** Closes the thread's fetcher, WARC writer and content index, then ends the thread. */
  async close(): Promise<void> {
    if (!this.fatal) {
      await new Promise<void>((resolve) => {
        this.closed = resolve;
        this.post({ type: "close" });
      });
    }
    this.worker.terminate();
  }

  /** Tasks launched in one turn of the crawl loop go to the thread in one message. */
  private flushOutbox(): void {
    const tasks = this.outbox;
    this.outbox = [];
    if (tasks.length > 0) this.post({ type: "tasks", tasks });
  }

  private post(msg: ToThread): void {
    this.worker.postMessage(msg);
  }

  private receive(msg: FromThread): void {
    switch (msg.type) {
      case "ready":
        this.onReady?.();
        break;
      case "done":
        for (const { taskId, output } of msg.outputs) this.take(taskId)?.resolve(output);
        break;
      case "failed":
        this.take(msg.taskId)?.reject(new Error(msg.aborted ? "aborted: crawl stopping" : msg.message));
        break;
      case "closed":
        this.closed?.();
        break;
      case "fatal":
        this.fail(new Error(`fetch thread failed to start: ${msg.message}`));
        break;
    }
  }

  private take(taskId: string) {
    const w = this.waiting.get(taskId);
    this.waiting.delete(taskId);
    return w;
  }

  private fail(error: Error): void {
    this.fatal = error;
    this.onFatal?.(error);
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    this.closed?.();
  }
}

/**
 * Runs fetch tasks on separate threads (see thread.ts) behind the same `run(task, signal)` shape as an
 * in-process FetchWorker, so the crawl loop cannot tell them apart. Each host always goes to the same thread
 * (its keep-alive connection lives there); the threads share one content index, held here and consulted by
 * message. Aborting any task's signal aborts every task in flight: the loop only aborts when the crawl stops.
 */
import type { FetchTask } from "../../core/model/index.ts";
import { hash32 } from "../../core/hash/index.ts";
import { preciseNow, receivedResult } from "../../core/politeness/index.ts";
import type { AddressGate, AddressPass, ContentIndex, WorkOutput } from "../../core/ports/index.ts";
import { unpackLinks, type Claim, type FetchThreadInit, type FromThread, type GateAsk, type ToThread } from "./protocol.ts";

class FetchThread {
  private readonly waiting = new Map<string, { resolve: (o: WorkOutput) => void; reject: (e: Error) => void }>();
  private outbox: FetchTask[] = [];
  private closed: (() => void) | undefined;
  private ready: { resolve: () => void; reject: (e: Error) => void } | undefined;
  /** Passes of the address gate this thread holds, by the thread's id for them. */
  private readonly passes = new Map<number, AddressPass>();
  /** Answers to the thread's gate asks not sent yet: those of one turn go in one message. */
  private answers: Array<{ id: number; waitedMs?: number }> = [];
  fatal: Error | undefined;

  constructor(
    private readonly worker: Worker,
    private readonly content: ContentIndex,
    private readonly gate: AddressGate | undefined,
  ) {
    worker.onmessage = (event: MessageEvent<FromThread>) => this.receive(event.data);
    worker.onerror = (event) => this.fail(new Error(`fetch thread crashed: ${(event as ErrorEvent).message}`));
  }

  start(init: FetchThreadInit): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ready = { resolve, reject };
      this.post({ type: "init", init });
    });
  }

  run(task: FetchTask): Promise<WorkOutput> {
    if (this.fatal) return Promise.reject(this.fatal);
    return new Promise((resolve, reject) => {
      this.waiting.set(task.taskId, { resolve, reject });
      this.outbox.push(task);
      // Tasks launched in one turn of the crawl loop go to the thread in one message.
      if (this.outbox.length === 1) queueMicrotask(() => this.flushOutbox());
    });
  }

  abort(): void {
    this.post({ type: "abort" });
  }

  async close(): Promise<void> {
    if (!this.fatal) {
      await new Promise<void>((resolve) => {
        this.closed = resolve;
        this.post({ type: "close" });
      });
    }
    this.worker.terminate();
    this.leaveAll();
  }

  /** A thread gone holds nothing: its passes go back to the gate. */
  private leaveAll(): void {
    for (const pass of this.passes.values()) pass.leave();
    this.passes.clear();
  }

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
        this.ready?.resolve();
        break;
      case "done": {
        if (msg.claims.length > 0) void this.answer(msg.claims);
        // The results' times were taken on the fetch thread's clock: move them onto this thread's.
        const at = preciseNow();
        for (const { taskId, result, links } of msg.outputs)
          this.take(taskId)?.resolve({ result: receivedResult(result, at), links: unpackLinks(links) });
        break;
      }
      case "gate":
        this.gateAsked(msg.asks, msg.arrivals, msg.leaves);
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

  /** Gives back the passes the thread left, and asks the gate for new ones, each answered when it comes. */
  private gateAsked(asks: readonly GateAsk[], arrivals: readonly number[], leaves: readonly number[]): void {
    for (const id of arrivals) this.passes.get(id)?.arrived();
    for (const id of leaves) {
      this.passes.get(id)?.leave();
      this.passes.delete(id);
    }
    for (const ask of asks) {
      if (this.gate === undefined || this.fatal) {
        this.queueAnswer({ id: ask.id });
        continue;
      }
      void this.gate.enter(ask.key, ask.waitMs).then((pass) => {
        if (pass === undefined) return this.queueAnswer({ id: ask.id });
        if (this.fatal) return pass.leave();
        this.passes.set(ask.id, pass);
        this.queueAnswer({ id: ask.id, waitedMs: pass.waitedMs });
      });
    }
  }

  /** Queues one gate answer; the turn's answers leave together at its end. */
  private queueAnswer(a: { id: number; waitedMs?: number }): void {
    this.answers.push(a);
    if (this.answers.length > 1) return;
    queueMicrotask(() => {
      const answers = this.answers;
      this.answers = [];
      if (answers.length > 0) this.post({ type: "passes", answers });
    });
  }

  /** Answers a batch of claims in one message, in the order they were asked. */
  private async answer(claims: readonly Claim[]): Promise<void> {
    const answers: Array<{ id: number; owner?: string }> = [];
    for (const c of claims) {
      const owner =
        c.kind === "exact" ? await this.content.claimExact(c.key, c.url) : await this.content.claimNear(BigInt(`0x${c.key}`), c.url);
      answers.push(owner === undefined ? { id: c.id } : { id: c.id, owner });
    }
    this.post({ type: "claimed", answers });
  }

  private take(taskId: string) {
    const w = this.waiting.get(taskId);
    this.waiting.delete(taskId);
    return w;
  }

  private fail(error: Error): void {
    this.fatal = error;
    this.leaveAll();
    this.ready?.reject(error);
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    this.closed?.();
  }
}

export class ThreadedFetchRunner {
  /** Signals already wired to abort the threads: one listener per signal, not one per task. */
  private readonly watched = new WeakSet<AbortSignal>();

  private constructor(private readonly threads: FetchThread[]) {}

  /** Starts `count` fetch threads; WARC files of thread i are named `<prefix>-t<i>-...`. */
  static async start(
    init: Omit<FetchThreadInit, "warcPrefix" | "addressGate"> & { warcPrefix: string },
    content: ContentIndex,
    count: number,
    addressGate?: AddressGate,
  ): Promise<ThreadedFetchRunner> {
    const threads = Array.from(
      { length: count },
      () => new FetchThread(new Worker(new URL("./thread.ts", import.meta.url).href), content, addressGate),
    );
    const runner = new ThreadedFetchRunner(threads);
    try {
      await Promise.all(
        threads.map((t, i) =>
          t.start({
            ...init,
            addressGate: addressGate !== undefined,
            warcPrefix: count === 1 ? init.warcPrefix : `${init.warcPrefix}-t${i}`,
          }),
        ),
      );
    } catch (error) {
      await runner.close().catch(() => {});
      throw error;
    }
    return runner;
  }

  run(task: FetchTask, signal?: AbortSignal): Promise<WorkOutput> {
    if (signal && !signal.aborted && !this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener("abort", () => this.threads.forEach((t) => t.abort()), { once: true });
    }
    return this.threads[hash32(task.host) % this.threads.length]!.run(task);
  }

  /** Closes every thread's fetcher and WARC writer, then ends the threads. The content index is the caller's. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

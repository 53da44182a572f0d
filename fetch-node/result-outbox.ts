/**
 * Where a finished task's outputs wait while the bus cannot take them. A fetch node publishes a task's
 * links and then its result before it acks the task; when NATS is down (restarting, failing over, cut
 * off), those publishes fail. Dropping the outputs and nak'ing the task (what the node did before) loses
 * the work twice over: the nak cannot reach a dead connection either, so the task comes back only after
 * its ack wait, its host stalls that long, and the page is fetched a second time. Instead the outputs are
 * kept here and published again, every `retryMaxMs` at most, until the bus takes them; the caller acks the
 * task then.
 *
 * Bounded: an output waits inside its task's handler, which keeps its slot of the node's concurrency, so at
 * most `concurrency` outputs wait, and a node whose slots are all waiting pulls no more tasks. A node
 * killed meanwhile loses only those outputs: their tasks were never acked and are redelivered. The first
 * failure of an outage is logged, and the end of it with how many outputs waited and for how long.
 */
import { errorFields } from "../core/errors/index.ts";
import type { Log, WorkOutput } from "../core/ports/index.ts";
import type { Counters } from "../core/stats/index.ts";

export interface ResultOutboxOptions {
  /** Publishes one task's outputs (links, then result); rejects when the bus refuses any of them. */
  publish: (output: WorkOutput) => Promise<void>;
  counters: Counters;
  log: Log;
  /** First retry delay; doubles per failed attempt. Default 100 ms. */
  retryMinMs?: number;
  /** Longest delay between two attempts: how late after the bus is back an output goes. Default 1 s. */
  retryMaxMs?: number;
  now?: () => number;
}

export class ResultOutbox {
  private readonly waitingNow = new Set<WorkOutput>();
  /** Start of the current outage (first failure while nothing waited), for the log. */
  private outageSince: number | undefined;
  private heldThisOutage = 0;
  private readonly now: () => number;

  constructor(private readonly opts: ResultOutboxOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Outputs waiting for the bus now. */
  get waiting(): number {
    return this.waitingNow.size;
  }

  /**
   * Publishes `output`, retrying until the bus takes it: true once published; false when `signal` aborted
   * first (the node is stopping: the task is given back unacked). `whileHeld` runs when the output starts
   * to wait and before each retry (at most every `retryMaxMs`): how the node says its attempt is alive.
   */
  async deliver(output: WorkOutput, signal: AbortSignal, whileHeld?: () => Promise<void>): Promise<boolean> {
    let error: unknown;
    try {
      await this.opts.publish(output);
      return true;
    } catch (e) {
      error = e;
    }
    this.hold(output, error);
    let published = false;
    try {
      let delayMs = this.opts.retryMinMs ?? 100;
      for (;;) {
        await whileHeld?.();
        if (!(await sleep(delayMs, signal))) return false;
        try {
          await this.opts.publish(output);
          this.opts.counters.add("fetcher.outbox.published-late");
          published = true;
          return true;
        } catch {
          delayMs = Math.min(this.opts.retryMaxMs ?? 1_000, delayMs * 2);
        }
      }
    } finally {
      this.release(output, published);
    }
  }

  private hold(output: WorkOutput, error: unknown): void {
    if (this.waitingNow.size === 0 && this.outageSince === undefined) {
      this.outageSince = this.now();
      this.heldThisOutage = 0;
      this.opts.log.warn(
        "publishing a task's links or result failed; holding finished tasks until the bus takes them (they are acked then)",
        errorFields(error),
      );
    }
    this.waitingNow.add(output);
    this.heldThisOutage++;
    this.opts.counters.add("fetcher.outbox.held");
  }

  private release(output: WorkOutput, published: boolean): void {
    this.waitingNow.delete(output);
    if (this.waitingNow.size > 0 || this.outageSince === undefined) return;
    if (published) {
      this.opts.log.info("the bus takes publishes again; every held task was published", {
        held: this.heldThisOutage,
        waitedMs: this.now() - this.outageSince,
      });
    }
    this.outageSince = undefined;
  }
}

/** Resolves true after `ms`, or false at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      resolve(false);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

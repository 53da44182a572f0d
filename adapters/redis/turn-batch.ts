/**
 * The calls an adapter makes to Redis in one turn of the event loop, sent as one script call when the turn
 * ends (`setImmediate`), so none waits longer than the turn and a busy process pays one round trip, not one
 * per call. The fetch claims (redis-fetch-claims.ts) and the address gate (redis-address-gate.ts) batch this
 * way; each batch script applies its ops in the order they were made and answers for each, in the same
 * order (`answerOf` finds an op's answer in the reply).
 *
 * An op is its keys and its arguments; the batch sends every op's keys, then `headArgs` followed by every
 * op's arguments, joined in order. A batch that fails, or that cannot be sent because the connection is
 * down, fails each of its ops, with the error `failure` makes of it for that op.
 */
import { setImmediate } from "node:timers";

export interface TurnBatchOptions<Op extends BatchedOp, Answer> {
  /** A batch this long is sent at once, before its turn ends. */
  readonly maxOps: number;
  /** Arguments that come before every batch's ops (the same for all batches). */
  readonly headArgs?: readonly string[];
  /** Whether the connection can take a command now. */
  readonly ready: () => boolean;
  /** Sends one batch: the ops' keys and arguments, joined as above. */
  readonly send: (keys: string[], args: string[]) => Promise<unknown[]>;
  /** An op's answer, from the reply of its batch and its place in it. */
  readonly answerOf: (reply: readonly unknown[], index: number) => Answer;
  /** The connection was down when the batch was due. */
  readonly downError: () => unknown;
  /** What an op fails with when its batch failed with `error`. */
  readonly failure: (op: Op, error: unknown) => unknown;
}

export interface BatchedOp {
  readonly keys: readonly string[];
  readonly args: readonly string[];
}

interface Queued<Op, Answer> {
  readonly op: Op;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: unknown) => void;
}

export class TurnBatch<Op extends BatchedOp, Answer> {
  #queued: Queued<Op, Answer>[] = [];
  #scheduled = false;
  /** Batches sent and not answered yet (`settled` waits for them). */
  readonly #sending = new Set<Promise<void>>();

  constructor(private readonly o: TurnBatchOptions<Op, Answer>) {}

  /** Queues `op` for this turn's batch (`now`: sends the batch at once); resolves with its answer. */
  add(op: Op, now = false): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.#queued.push({ op, resolve, reject });
      if (now || this.#queued.length >= this.o.maxOps) this.flush();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends what is queued now, as one script call, and hands each op its answer (or its failure). */
  flush(): void {
    this.#scheduled = false;
    const queued = this.#queued;
    if (queued.length === 0) return;
    this.#queued = [];
    if (!this.o.ready()) {
      const down = this.o.downError();
      for (const q of queued) q.reject(this.o.failure(q.op, down));
      return;
    }
    const keys: string[] = [];
    const args: string[] = this.o.headArgs ? [...this.o.headArgs] : [];
    for (const { op } of queued) {
      for (const k of op.keys) keys.push(k);
      for (const a of op.args) args.push(a);
    }
    const sent = this.o.send(keys, args).then(
      (reply) => {
        for (const [i, q] of queued.entries()) q.resolve(this.o.answerOf(reply, i));
      },
      (error: unknown) => {
        for (const q of queued) q.reject(this.o.failure(q.op, error));
      },
    );
    this.#sending.add(sent);
    void sent.finally(() => this.#sending.delete(sent));
  }

  /** Sends what is queued and waits until every batch sent has its answer. */
  async settled(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.#sending]);
  }
}

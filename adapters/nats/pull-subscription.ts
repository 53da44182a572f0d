/**
 * One subscriber of a durable pull consumer: a handler called per message with at most `concurrency`
 * running at once, and each JetStream message mapped to a Delivery (ack / nak(delay) / term, first call
 * wins; deliveryCount from the message's info). Two ways of pulling, chosen by the kind of handler:
 *
 *  - "consume" (url and result handlers: short, one at a time, throughput matters): `consume()` with
 *    `maxMessages` pulled ahead. nats.js queues its next pull request behind the messages already
 *    buffered, so a slow handler stops the pulling instead of letting messages pile up. Each pull request
 *    lasts `consumeExpiresMs`: one lost with a server (or a consumer leader that moved) is noticed by its
 *    missed heartbeats and pulled again after about that long.
 *  - "fetch" (fetch tasks: seconds each, many at once): take every free handler slot, then `fetch()`
 *    exactly that many. Nothing waits in a client buffer while its ack wait runs down, and a task
 *    redelivered after a fetch node stalled goes to a node with a free slot, not back into a full one.
 *
 * A handler that throws without settling its message gets it nak'ed after `errorNakDelayMs`; a message
 * that cannot be decoded is terminated (it never will be decodable), and so is one whose encoding version
 * (core/cluster/bus-encoding.ts) this node does not read: decoding it could misread it. If the consumer is
 * missing (ensureRegion not run yet) or the pull dies (connection lost), the subscription retries with
 * backoff until stop(), and at once when the connection comes back. stop() stops pulling, waits for the handlers already running, and leaves buffered but
 * unhandled messages unacked: the server redelivers them after the ack wait, maybe to another subscriber.
 */
import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { BUS_ENCODING_HEADER, readBusEncoding } from "../../core/cluster/index.ts";
import type { Delivery, Subscription } from "../../core/ports/index.ts";
import { Semaphore } from "./semaphore.ts";

export interface PullSubscriptionOptions<T> {
  stream: string;
  consumer: string;
  /** The message's data (and subject) as the handler's T; a throw terminates the message. */
  decode: (bytes: Uint8Array, subject: string) => T;
  handler: (d: Delivery<T>) => Promise<void>;
  mode: "consume" | "fetch";
  /** Handlers running at once. */
  concurrency: number;
  /** consume mode: messages pulled ahead of the handlers (consume's max_messages). */
  maxMessages: number;
  /** fetch mode: how long one fetch request waits for messages. */
  fetchExpiresMs: number;
  /** consume mode: how long one pull request lasts (a lost one is noticed after about this long). */
  consumeExpiresMs: number;
  errorNakDelayMs: number;
  /** Ask the server to confirm each ack (a round trip per message) instead of sending it and moving on. */
  confirmAcks: boolean;
  /**
   * Whether the server understands `+TERM <reason>` (2.10+). nats-server 2.9 takes a term with a reason
   * for an unknown ack and redelivers the message after the ack wait, so there the reason is dropped.
   */
  termWithReason: () => boolean;
  onError: (err: unknown, where: string) => void;
  /** Registers a callback for the connection coming back after a drop; returns the unsubscribe. */
  whenReconnected?: (f: () => void) => () => void;
  /** A message of an encoding version this node does not read was terminated. */
  onRefused: (reason: string, subject: string, seq: number) => void;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

export class PullSubscription<T> implements Subscription {
  private stopping = false;
  private messages: ConsumerMessages | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly slots: Semaphore;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;
  private readonly where: string;
  private readonly unwatch: (() => void) | undefined;
  /** The connection came back: the next retry goes at once, and the backoff starts over. */
  private retryNow = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly opts: PullSubscriptionOptions<T>,
  ) {
    this.slots = new Semaphore(Math.max(1, opts.concurrency));
    this.where = `${opts.stream}/${opts.consumer}`;
    this.unwatch = opts.whenReconnected?.(() => {
      this.retryNow = true;
      this.wake?.();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.unwatch?.();
      this.wake?.();
      this.messages?.stop();
    }
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    let retryMs = RETRY_MIN_MS;
    while (!this.stopping) {
      try {
        const consumer = await this.js.consumers.get(this.opts.stream, this.opts.consumer);
        if (this.opts.mode === "consume") {
          await this.consume(consumer);
          if (!this.stopping) throw new Error("consume ended");
        } else {
          while (!this.stopping) await this.fetchBatch(consumer);
        }
      } catch (err) {
        if (this.stopping) return;
        if (this.retryNow) {
          this.retryNow = false;
          retryMs = RETRY_MIN_MS;
          continue;
        }
        this.opts.onError(err, `${this.where}: pull failed (retrying in ${retryMs} ms)`);
        await this.sleep(retryMs);
        if (this.retryNow) {
          this.retryNow = false;
          retryMs = RETRY_MIN_MS;
        } else {
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
        }
      }
    }
  }

  private async consume(consumer: Consumer): Promise<void> {
    const messages = await consumer.consume({ max_messages: this.opts.maxMessages, expires: this.opts.consumeExpiresMs });
    if (!this.track(messages)) return;
    for await (const m of messages) {
      await this.slots.acquire();
      this.start(m);
    }
    const closed = await messages.closed();
    if (closed instanceof Error && !this.stopping) throw closed;
  }

  private async fetchBatch(consumer: Consumer): Promise<void> {
    await this.slots.acquire();
    let held = 1;
    while (this.slots.tryAcquire()) held++;
    try {
      if (this.stopping) return;
      const messages = await consumer.fetch({ max_messages: held, expires: this.opts.fetchExpiresMs });
      if (!this.track(messages)) return;
      for await (const m of messages) {
        held--;
        this.start(m); // takes over the slot acquired for it
      }
      const closed = await messages.closed();
      if (closed instanceof Error && !this.stopping) throw closed;
    } finally {
      for (; held > 0; held--) this.slots.release();
    }
  }

  /** Remembers the pull so stop() can end it; false (and ends it) when stop() came first. */
  private track(messages: ConsumerMessages): boolean {
    this.messages = messages;
    if (!this.stopping) return true;
    messages.stop();
    return false;
  }

  /** Runs the handler for `m` in a slot the caller already holds. */
  private start(m: JsMsg): void {
    if (this.stopping) {
      // Taken from the buffer but never handed out: give it back at once rather than after the ack wait.
      this.slots.release();
      m.nak();
      return;
    }
    const task = this.handle(m).finally(() => {
      this.slots.release();
      this.inFlight.delete(task);
    });
    this.inFlight.add(task);
  }

  private async handle(m: JsMsg): Promise<void> {
    const encoding = readBusEncoding(m.headers?.get(BUS_ENCODING_HEADER));
    if (!encoding.ok) {
      new JsDelivery(m, undefined, this.opts).term(`refused: ${encoding.reason}`.slice(0, 200));
      this.opts.onRefused(encoding.reason, m.subject, m.seq);
      return;
    }
    let data: T;
    try {
      data = this.opts.decode(m.data, m.subject);
    } catch (err) {
      const delivery = new JsDelivery(m, undefined, this.opts);
      delivery.term(`undecodable: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200));
      this.opts.onError(err, `${this.where}: message ${m.seq} terminated`);
      return;
    }
    const delivery = new JsDelivery(m, data, this.opts);
    try {
      await this.opts.handler(delivery);
    } catch (err) {
      if (delivery.settle()) m.nak(this.opts.errorNakDelayMs);
      this.opts.onError(err, `${this.where}: handler failed on message ${m.seq}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

class JsDelivery<T> implements Delivery<T> {
  private settled = false;
  readonly deliveryCount: number;

  constructor(
    private readonly m: JsMsg,
    readonly data: T,
    private readonly opts: Pick<PullSubscriptionOptions<unknown>, "confirmAcks" | "termWithReason">,
  ) {
    this.deliveryCount = m.info.deliveryCount;
  }

  /** True the first time: the caller may settle the message. */
  settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    return true;
  }

  async ack(): Promise<void> {
    if (!this.settle()) return;
    if (this.opts.confirmAcks) await this.m.ackAck();
    else this.m.ack();
  }

  nak(delayMs?: number): void {
    if (this.settle()) this.m.nak(delayMs);
  }

  term(reason: string): void {
    if (this.settle()) this.m.term(this.opts.termWithReason() ? reason : undefined);
  }
}

/**
 * One subscriber of a durable pull consumer: a handler called per message with at most `concurrency`
 * running at once, and each JetStream message mapped to a Delivery (ack / nak(delay) / term, first call
 * wins; deliveryCount from the message's info, `copy` its stream sequence). Messages are pulled with
 * `fetch()` requests of a bounded life into this subscription's own queue, never more than it has room
 * for:
 *
 *  - "consume" (url and result handlers: short, several at once so they share a commit): room for the running
 *    handlers plus `maxMessages` pulled ahead; the next request goes out once half of that is free, so a
 *    slow handler stops the pulling instead of letting messages pile up. A request lasts `consumeExpiresMs`.
 *  - "fetch" (fetch tasks: seconds each, many at once): room for the free handler slots only, fetched
 *    exactly, once a sixteenth of them is free. Nothing waits in a client buffer while its ack wait runs down,
 *    and a task redelivered after a fetch node stalled goes to a node with a free slot, not back into a full one.
 *
 * Why not nats.js's `consume()`: a pull request lives on the consumer's leader, and when that leader is
 * lost (its NATS server of a 3-server cluster killed) the request dies with it. consume() ignores the
 * "leadership change" status the server answers such a pull with, notices only by two missed heartbeats,
 * then asks for the consumer's info, which times out while no leader is elected, and waits a whole pull
 * lifetime between tries: measured, a results consumer whose new leader was elected 3 to 8 s after the loss
 * was pulled again only 17 s after it, and its hosts waited that long. A `fetch()` ends on that status (or
 * on missed heartbeats) and is pulled again after at most RETRY_MAX_MS, the Consumer handle is kept (no
 * info request per retry), and `whenLeaderElected` (the server's leader-elected advisory for this
 * consumer) ends the pull under way and pulls again at once: the new leader is asked the moment it exists;
 * for some seconds after, pulls are short, so one the settling election never answered costs seconds, not
 * a long pull's heartbeats (WARY_MS). Messages go from a pull into the queue without waiting, so ending a
 * pull never leaves one behind in a buffer.
 *
 * A handler that throws without settling its message gets it nak'ed after `errorNakDelayMs`; a message
 * that cannot be decoded is terminated (it never will be decodable), and so is one whose encoding version
 * (core/cluster/bus-encoding.ts) this node does not read: decoding it could misread it. If the consumer is
 * missing (ensureRegion not run yet) or the pull dies (connection lost), the subscription retries with
 * backoff until stop(), and at once when the connection comes back. stop() stops pulling, waits for the
 * handlers already running, and naks what was queued but not started, so another subscriber takes it now.
 */
import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { BUS_ENCODING_HEADER, readBusEncoding } from "../../core/cluster/index.ts";
import type { Delivery, Subscription } from "../../core/ports/index.ts";

export interface PullSubscriptionOptions<T> {
  stream: string;
  consumer: string;
  /**
   * Makes the consumer (idempotently) before the first pull and whenever it is found missing; absent: a
   * missing consumer is waited for (someone else makes it: ensureRegion).
   */
  makeConsumer?: () => Promise<void>;
  /** The message's data (and subject) as the handler's T; a throw terminates the message. */
  decode: (bytes: Uint8Array, subject: string) => T;
  handler: (d: Delivery<T>) => Promise<void>;
  mode: "consume" | "fetch";
  /** Handlers running at once. */
  concurrency: number;
  /** consume mode: messages pulled ahead of the handlers. */
  maxMessages: number;
  /** fetch mode: how long one fetch request waits for messages. */
  fetchExpiresMs: number;
  /** consume mode: how long one pull request lasts (a lost one is noticed after about this long). */
  consumeExpiresMs: number;
  /**
   * The consumer's ack wait. A message queued here, waiting for a handler, for a third of it is reported in
   * progress (`+WPI`) every third of it, so a deep queue never sees it redelivered; a message being handled
   * is not (a handler that hangs lets it go to another subscriber after the ack wait).
   */
  ackWaitMs: number;
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
  /**
   * Registers a callback for a new leader of this consumer (the server's leader-elected advisory);
   * returns the unsubscribe. The pull under way, held by the old leader, is ended and sent again.
   */
  whenLeaderElected?: (f: () => void) => () => void;
  /** A message of an encoding version this node does not read was terminated. */
  onRefused: (reason: string, subject: string, seq: number) => void;
}

/**
 * Fetch mode pulls once this share of its slots is free (1/16: 16 of 256), not for every slot freed: a pull
 * is a request, a reply subject and a status at its end on client and server alike, and one per task cost
 * the cluster about a twentieth of its rate (bench/README.md, "Issue 8, evening"). A task waits for it no
 * longer than the node takes to finish that many.
 */
const FETCH_PULL_FRACTION = 16;
const RETRY_MIN_MS = 100;
/** Longest wait between two pulls that failed: how late after a new consumer leader exists we ask it. */
const RETRY_MAX_MS = 1_000;
/**
 * After a sign that the consumer's leader moved (its advisory, the connection back, a pull failed), pulls
 * last WARY_PULL_MS for WARY_MS: a pull sent while the election was still settling, and answered by nobody,
 * is then found out by its missed heartbeats (half its life each, two missed) in 2 s, not in two heartbeats
 * of a long pull (a minute at most). The likely story of the leader-loss test's one timeout under full-suite
 * load (its subscription waited past 30 s for the message published after the loss; not reproduced alone).
 */
const WARY_MS = 10_000;
const WARY_PULL_MS = 2_000;

export class PullSubscription<T> implements Subscription {
  private stopping = false;
  private messages: ConsumerMessages | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** Pulled, not yet handed to a handler. */
  private readonly queue: JsMsg[] = [];
  private running = 0;
  /** Messages this subscription may hold at once (queued and running). */
  private readonly capacity: number;
  /** Free room below which no pull is sent (consume mode: half the room; fetch mode: a sixteenth of the slots, at least one). */
  private readonly minPull: number;
  private readonly concurrency: number;
  private wake: (() => void) | undefined;
  private readonly loop: Promise<void>;
  private readonly where: string;
  private readonly unwatch: Array<() => void> = [];
  /** The connection came back or a new leader was elected: the next retry goes at once, the backoff starts over. */
  private retryNow = false;
  /** Until when pulls are short: the consumer's leader may have just moved (see WARY_MS). */
  private waryUntil = 0;
  private consumer: Consumer | undefined;
  /** Messages pulled and still queued, with when they were pulled (for in-progress reports). */
  private readonly held = new Map<JsMsg, number>();
  private readonly progressTimer: ReturnType<typeof setInterval>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly opts: PullSubscriptionOptions<T>,
  ) {
    this.concurrency = Math.max(1, opts.concurrency);
    const ahead = opts.mode === "consume" ? Math.max(1, opts.maxMessages) : 0;
    this.capacity = this.concurrency + ahead;
    this.minPull =
      opts.mode === "consume"
        ? Math.max(1, Math.floor(this.capacity / 2))
        : Math.max(1, Math.floor(this.concurrency / FETCH_PULL_FRACTION));
    this.where = `${opts.stream}/${opts.consumer}`;
    const again = () => {
      this.retryNow = true;
      this.beWary();
      this.wake?.();
      // The pull under way may be held by a server or leader that is gone: end it and ask again.
      this.messages?.stop();
    };
    if (opts.whenReconnected) this.unwatch.push(opts.whenReconnected(again));
    if (opts.whenLeaderElected) this.unwatch.push(opts.whenLeaderElected(again));
    const every = Math.max(250, Math.floor(opts.ackWaitMs / 3));
    this.progressTimer = setInterval(() => this.reportProgress(every), every);
    this.loop = this.run();
  }

  /** Tells the server that messages held longer than `ms` are still being worked on. */
  private reportProgress(ms: number): void {
    const before = Date.now() - ms;
    for (const [m, since] of this.held) if (since <= before) m.working();
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      for (const f of this.unwatch) f();
      this.wake?.();
      this.messages?.stop();
    }
    await this.loop;
    // Pulled but never handed out: give them back at once rather than after the ack wait.
    for (const m of this.queue.splice(0)) {
      this.held.delete(m);
      m.nak();
    }
    await Promise.allSettled([...this.inFlight]);
    clearInterval(this.progressTimer);
    this.held.clear();
  }

  private async run(): Promise<void> {
    let retryMs = RETRY_MIN_MS;
    let failing = 0;
    while (!this.stopping) {
      try {
        if (this.room() < this.minPull) {
          await this.sleep(RETRY_MAX_MS); // woken when a handler finishes
          continue;
        }
        if (!this.consumer) {
          await this.opts.makeConsumer?.();
          this.consumer = await this.js.consumers.get(this.opts.stream, this.opts.consumer);
        }
        await this.pull(this.consumer);
        failing = 0;
        retryMs = RETRY_MIN_MS;
      } catch (err) {
        if (this.stopping) return;
        this.beWary();
        if (isGone(err)) this.consumer = undefined; // deleted or never created: look it up again
        if (this.retryNow) {
          this.retryNow = false;
          retryMs = RETRY_MIN_MS;
          continue;
        }
        // The first failure of a run is logged; the rest (a leader being elected: every retry fails) only counted.
        if (failing++ === 0) this.opts.onError(err, `${this.where}: pull failed (retrying every ${RETRY_MAX_MS} ms at most)`);
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

  private beWary(): void {
    this.waryUntil = Date.now() + WARY_MS;
  }

  /** Free room for pulled messages. */
  private room(): number {
    return this.capacity - this.queue.length - this.running;
  }

  /** One pull request for the free room; its messages go to the queue as they come. Throws when the pull failed. */
  private async pull(consumer: Consumer): Promise<void> {
    const usual = this.opts.mode === "consume" ? this.opts.consumeExpiresMs : this.opts.fetchExpiresMs;
    const expires = Date.now() < this.waryUntil ? Math.min(usual, WARY_PULL_MS) : usual;
    this.retryNow = false;
    const messages = await consumer.fetch({ max_messages: this.room(), expires });
    if (!this.track(messages)) return;
    for await (const m of messages) {
      // Never awaits: every message the pull yields is in the queue before the pull can be ended.
      this.queue.push(m);
      this.held.set(m, Date.now());
      this.pump();
    }
    const closed = await messages.closed();
    this.messages = undefined;
    if (closed instanceof Error && !this.stopping && !this.retryNow) throw closed;
  }

  /** Remembers the pull so stop() can end it; false (and ends it) when stop() came first. */
  private track(messages: ConsumerMessages): boolean {
    this.messages = messages;
    if (!this.stopping) return true;
    messages.stop();
    return false;
  }

  /** Hands queued messages to handlers while there are free slots. */
  private pump(): void {
    while (!this.stopping && this.running < this.concurrency && this.queue.length > 0) {
      const m = this.queue.shift()!;
      // Handed to its handler: no longer reported in progress, so a handler that hangs lets it be redelivered.
      this.held.delete(m);
      this.running++;
      const task = this.handle(m).finally(() => {
        // Settled (or left to its ack wait by a handler that neither acked nor threw): no longer reported.
        this.held.delete(m);
        this.running--;
        this.inFlight.delete(task);
        this.pump();
        if (this.room() >= this.minPull) this.wake?.();
      });
      this.inFlight.add(task);
    }
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
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wake === done) self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }
}

/** The consumer or its stream is not there (deleted, or not created yet): the cached handle is useless. */
function isGone(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /consumer (not found|deleted)|stream not found/i.test(message);
}

class JsDelivery<T> implements Delivery<T> {
  private settled = false;
  readonly deliveryCount: number;
  /** The stream sequence: the same on every redelivery, another for a second stored copy of the message. */
  readonly copy: number;

  constructor(
    private readonly m: JsMsg,
    readonly data: T,
    private readonly opts: Pick<PullSubscriptionOptions<unknown>, "confirmAcks" | "termWithReason">,
  ) {
    this.deliveryCount = m.info.deliveryCount;
    this.copy = m.seq;
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

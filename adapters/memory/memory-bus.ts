/**
 * The in-process MessageBus, for unit tests of the roles: the same semantics as the JetStream bus, in
 * memory. One queue per durable consumer (`fetchers` per region, `urls-<p>` and `results-<p>` per
 * partition), shared by all its subscribers; a delivered message stays owned by the queue until it is
 * acked or terminated, comes back after the ack wait when nobody settles it, comes back after the delay
 * when nak'ed, and goes to whichever subscriber has a free handler slot (round robin); every delivery
 * of a stored message carries its sequence as its `copy`. Tasks are de-duplicated on taskId within the
 * duplicate window (a task published again after it is a second copy; a re-offer, on taskId and its
 * number). Messages are copied on publish
 * (structuredClone, or through the protobuf codec with `viaCodec`), so a handler never shares an object
 * with a publisher.
 *
 * Publishing to a region before ensureRegion rejects, as JetStream does when no stream stores the subject.
 */
import { checkToken, consumers, subjects } from "../../core/cluster/index.ts";
import { type Delivery, type MessageBus, type Subscription, type TaskInbox, type TaskRoute } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import {
  decodeDiscoveredLinks,
  decodeFetchResult,
  decodeFetchTask,
  encodeDiscoveredLinks,
  encodeFetchResult,
  encodeFetchTask,
} from "../../proto/codec/index.ts";

export interface MemoryBusOptions {
  /** Ack wait of the fetch-task queue. Default 60 s. */
  fetchAckWaitMs?: number;
  /** Ack wait of the url and result queues. Default 30 s. */
  ackWaitMs?: number;
  /** Messages out unacked at once per queue. Default 1000. */
  maxAckPending?: number;
  /** Task dedup window. Default 2 min. */
  duplicateWindowMs?: number;
  /** Delay before a message whose handler threw is redelivered. Default 1 s. */
  errorNakDelayMs?: number;
  /** Copy messages through the protobuf codec (catches values the wire cannot carry). Default false. */
  viaCodec?: boolean;
  /** Clock for the duplicate window. Default Date.now. */
  now?: () => number;
  /** Errors of handlers, which have no caller to return to. Default: console.error. */
  onError?: (err: unknown, where: string) => void;
}

interface Item {
  seq: number;
  data: unknown;
  deliveries: number;
  /** Bumped on every delivery; a nak or expiry of an older delivery is ignored. */
  token: number;
  state: "ready" | "delayed" | "inflight";
  timer?: ReturnType<typeof setTimeout>;
}

type Handler = (d: Delivery<unknown>) => Promise<void>;

interface Subscriber {
  handler: Handler;
  capacity: number;
  running: Set<Promise<void>>;
  stopped: boolean;
}

class Queue {
  readonly items = new Map<number, Item>();
  readonly ready: Item[] = [];
  readonly subscribers: Subscriber[] = [];
  inflight = 0;
  private nextSub = 0;

  constructor(
    readonly name: string,
    readonly ackWaitMs: number,
  ) {}

  /** Keeps the ready list in stream order, so a redelivered message goes out before newer ones. */
  makeReady(item: Item): void {
    item.state = "ready";
    let i = this.ready.length;
    while (i > 0 && this.ready[i - 1]!.seq > item.seq) i--;
    this.ready.splice(i, 0, item);
  }

  pickSubscriber(): Subscriber | undefined {
    for (let n = 0; n < this.subscribers.length; n++) {
      const sub = this.subscribers[(this.nextSub + n) % this.subscribers.length]!;
      if (!sub.stopped && sub.running.size < sub.capacity) {
        this.nextSub = (this.nextSub + n + 1) % this.subscribers.length;
        return sub;
      }
    }
    return undefined;
  }
}

export class MemoryBus implements MessageBus {
  private readonly regions = new Map<string, number>();
  private readonly queues = new Map<string, Queue>();
  private readonly seenTaskIds = new Map<string, number>();
  private readonly subscriptions = new Set<Subscription>();
  /** Inboxes removed (empty), kept with their subscribers until a task or a subscription makes them again. */
  private readonly orphans = new Map<string, Queue>();
  private seq = 0;
  private closed = false;
  private readonly dispatchScheduled = new Set<Queue>();
  private readonly o: Required<MemoryBusOptions>;

  constructor(options: MemoryBusOptions = {}) {
    this.o = {
      fetchAckWaitMs: options.fetchAckWaitMs ?? 60_000,
      ackWaitMs: options.ackWaitMs ?? 30_000,
      maxAckPending: options.maxAckPending ?? 1000,
      duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
      errorNakDelayMs: options.errorNakDelayMs ?? 1_000,
      viaCodec: options.viaCodec ?? false,
      now: options.now ?? Date.now,
      onError: options.onError ?? ((err, where) => console.error(`memory-bus: ${where}:`, err)),
    };
  }

  async ensureRegion(region: string, partitions: number): Promise<void> {
    checkToken("region", region);
    if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
    this.regions.set(region, Math.max(partitions, this.regions.get(region) ?? 0));
  }

  async publishTask(region: string, task: FetchTask, route: TaskRoute = {}): Promise<void> {
    const data = this.o.viaCodec ? decodeFetchTask(encodeFetchTask(task, region)) : structuredClone(task);
    this.requireRegion(region, subjects.fetch(region));
    if (route.to !== undefined) checkToken("node id", route.to);
    const now = this.o.now();
    this.forgetOldTaskIds(now);
    const reoffer = route.reoffer ?? 0;
    const key = reoffer > 0 ? `${task.taskId}~${reoffer}` : task.taskId;
    const seenUntil = this.seenTaskIds.get(key);
    if (seenUntil !== undefined && seenUntil > now) return; // a duplicate: stored once, and still a success
    this.seenTaskIds.set(key, now + this.o.duplicateWindowMs);
    this.enqueue(
      this.taskQueue(region, task.render ? consumers.renderers : route.to === undefined ? consumers.fetchers : consumers.inbox(route.to)),
      data,
    );
  }

  /** Nothing here loses a delivery on its way: never called. */
  onTasksMayBeLost(): () => void {
    return () => {};
  }

  async publishResult(region: string, result: FetchResult): Promise<void> {
    const data = this.o.viaCodec ? decodeFetchResult(encodeFetchResult(result)) : structuredClone(result);
    this.requireRegion(region, subjects.results(region, result.partition));
    this.enqueue(this.queue(`${region}/${consumers.results(result.partition)}`, this.o.ackWaitMs), data);
  }

  async publishUrls(region: string, partition: number, urls: readonly DiscoveredUrl[]): Promise<void> {
    const data = this.o.viaCodec ? decodeDiscoveredLinks(encodeDiscoveredLinks(partition, urls)).urls : structuredClone([...urls]);
    this.requireRegion(region, subjects.urls(region, partition));
    this.enqueue(this.queue(`${region}/${consumers.urls(partition)}`, this.o.ackWaitMs), data);
  }

  consumeTasks(
    region: string,
    handler: (d: Delivery<FetchTask>) => Promise<void>,
    opts: { concurrency: number; render?: boolean; inbox?: string },
  ): Subscription {
    const capacity = Math.max(1, Math.floor(opts.concurrency));
    if (opts.inbox !== undefined) checkToken("node id", opts.inbox);
    const consumer = opts.render ? consumers.renderers : opts.inbox === undefined ? consumers.fetchers : consumers.inbox(opts.inbox);
    return this.subscribe(this.taskQueue(region, consumer), handler as Handler, capacity);
  }

  async ensureTaskInbox(region: string, node: string): Promise<void> {
    this.requireRegion(region, subjects.inbox(region, checkToken("node id", node)));
    this.taskQueue(region, consumers.inbox(node));
  }

  async taskInboxes(region: string): Promise<TaskInbox[]> {
    const prefix = `${region}/${consumers.inboxPrefix}`;
    const out: TaskInbox[] = [];
    for (const [name, q] of this.queues) {
      if (!name.startsWith(prefix)) continue;
      out.push({ node: name.slice(prefix.length), waiting: q.items.size - q.inflight, unacked: q.inflight });
    }
    return out;
  }

  async removeTaskInbox(region: string, node: string): Promise<boolean> {
    const name = `${region}/${consumers.inbox(node)}`;
    const q = this.queues.get(name);
    if (!q) return true;
    if (q.items.size > 0) return false;
    this.queues.delete(name);
    // Subscribers still attached stay so: the next task sent to the inbox makes it again, and they get it.
    if (q.subscribers.length > 0) this.orphans.set(name, q);
    return true;
  }

  consumeUrls(region: string, partition: number, handler: (d: Delivery<DiscoveredUrl[]>) => Promise<void>): Subscription {
    return this.subscribe(this.queue(`${region}/${consumers.urls(partition)}`, this.o.ackWaitMs), handler as Handler, 1);
  }

  consumeResults(region: string, partition: number, handler: (d: Delivery<FetchResult>) => Promise<void>): Subscription {
    return this.subscribe(this.queue(`${region}/${consumers.results(partition)}`, this.o.ackWaitMs), handler as Handler, 1);
  }

  /** Stops every subscription (waiting for running handlers) and cancels every timer; messages are dropped. */
  async close(): Promise<void> {
    // Handlers still running may publish (a fetch worker publishes before it acks): stop them first.
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.closed = true;
    for (const q of this.queues.values()) for (const item of q.items.values()) clearTimeout(item.timer);
    this.queues.clear();
  }

  /** Messages stored in a consumer's queue (ready, delayed or unacked), for tests: e.g. `"eu/urls-3"`. */
  depth(queueName: string): number {
    return this.queues.get(queueName)?.items.size ?? 0;
  }

  private requireRegion(region: string, subject: string): void {
    if (this.closed) throw new Error("memory-bus: publish after close");
    if (!this.regions.has(region)) throw new Error(`no stream stores ${subject}: run ensureRegion for its region first`);
  }

  private forgetOldTaskIds(now: number): void {
    // Amortized: sweep only when the map has grown, so a steady stream of tasks costs O(1) each.
    if (this.seenTaskIds.size < 1024 || this.seenTaskIds.size % 1024 !== 0) return;
    for (const [id, until] of this.seenTaskIds) if (until <= now) this.seenTaskIds.delete(id);
  }

  private queue(name: string, ackWaitMs: number): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = this.orphans.get(name) ?? new Queue(name, ackWaitMs);
      this.orphans.delete(name);
      this.queues.set(name, q);
    }
    return q;
  }

  private taskQueue(region: string, consumer: string): Queue {
    return this.queue(`${region}/${consumer}`, this.o.fetchAckWaitMs);
  }

  private enqueue(q: Queue, data: unknown): void {
    const item: Item = { seq: ++this.seq, data, deliveries: 0, token: 0, state: "ready" };
    q.items.set(item.seq, item);
    q.makeReady(item);
    this.scheduleDispatch(q);
  }

  private scheduleDispatch(q: Queue): void {
    if (this.dispatchScheduled.has(q)) return;
    this.dispatchScheduled.add(q);
    // Handlers never run inside publish() or ack(): always on a later turn, as over the network.
    queueMicrotask(() => {
      this.dispatchScheduled.delete(q);
      this.dispatch(q);
    });
  }

  private dispatch(q: Queue): void {
    while (q.ready.length > 0 && q.inflight < this.o.maxAckPending && !this.closed) {
      const sub = q.pickSubscriber();
      if (!sub) return;
      const item = q.ready.shift()!;
      item.state = "inflight";
      item.deliveries++;
      const token = ++item.token;
      q.inflight++;
      item.timer = setTimeout(() => this.requeue(q, item, token, 0), q.ackWaitMs);
      this.run(q, sub, item, token);
    }
  }

  /** Puts an unacked delivery back (ack wait passed, or nak), unless it was settled or redelivered since. */
  private requeue(q: Queue, item: Item, token: number, delayMs: number): void {
    if (item.token !== token || item.state !== "inflight" || !q.items.has(item.seq)) return;
    clearTimeout(item.timer);
    q.inflight--;
    if (delayMs > 0) {
      item.state = "delayed";
      item.timer = setTimeout(() => {
        if (!q.items.has(item.seq)) return;
        q.makeReady(item);
        this.scheduleDispatch(q);
      }, delayMs);
    } else {
      q.makeReady(item);
    }
    this.scheduleDispatch(q);
  }

  /** Ack or term: the message is gone, whichever delivery of it settles it (as with JetStream). */
  private remove(q: Queue, item: Item): void {
    if (!q.items.delete(item.seq)) return;
    clearTimeout(item.timer);
    if (item.state === "inflight") q.inflight--;
    else if (item.state === "ready") q.ready.splice(q.ready.indexOf(item), 1);
    this.scheduleDispatch(q);
  }

  private run(q: Queue, sub: Subscriber, item: Item, token: number): void {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      return true;
    };
    const delivery: Delivery<unknown> = {
      data: item.data,
      deliveryCount: item.deliveries,
      copy: item.seq,
      ack: async () => {
        if (settle()) this.remove(q, item);
      },
      nak: (delayMs?: number) => {
        if (settle()) this.requeue(q, item, token, delayMs ?? 0);
      },
      term: () => {
        if (settle()) this.remove(q, item);
      },
    };
    const running: Promise<void> = (async () => {
      try {
        await sub.handler(delivery);
      } catch (err) {
        if (settle()) this.requeue(q, item, token, this.o.errorNakDelayMs);
        this.o.onError(err, `${q.name}: handler failed on message ${item.seq}`);
      }
    })().finally(() => {
      sub.running.delete(running);
      this.scheduleDispatch(q);
    });
    sub.running.add(running);
  }

  private subscribe(q: Queue, handler: Handler, capacity: number): Subscription {
    if (this.closed) throw new Error("memory-bus: subscribe after close");
    const sub: Subscriber = { handler, capacity, running: new Set(), stopped: false };
    q.subscribers.push(sub);
    this.scheduleDispatch(q);
    const subscription: Subscription = {
      stop: async () => {
        sub.stopped = true;
        const i = q.subscribers.indexOf(sub);
        if (i >= 0) q.subscribers.splice(i, 1);
        this.subscriptions.delete(subscription);
        await Promise.allSettled([...sub.running]);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }
}

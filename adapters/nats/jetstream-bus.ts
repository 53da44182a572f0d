/**
 * MessageBus over JetStream (docs/cluster.md): protobuf messages (proto/codec) on the subjects of
 * core/cluster/names.ts, work-queue streams with file storage, one durable pull consumer per partition
 * and one shared `fetchers` consumer per region.
 *
 * Publishing: every publish resolves only on the JetStream ack (stored durably) and rejects otherwise,
 * but callers need not await one before starting the next: up to `publishWindow` publishes are in
 * flight at once and later ones queue for a slot, which is what keeps throughput at tens of thousands a
 * second where awaiting each caps near 4k/s. Tasks and results carry `Nats-Msg-Id` = taskId, so one
 * published again within the duplicate window is stored once (and still resolves). While the connection
 * is down a publish fails at once, and one waiting for its ack fails as soon as the connection drops
 * (BusUnavailableError, connection-watch.ts): callers keep what failed and publish it again, and do so as
 * soon as the connection is back rather than after a publish timeout. Subscriptions whose pulls failed
 * during the outage pull again the moment it is back, and a subscription whose consumer elects a new
 * leader (a server of a region's cluster lost) pulls again the moment the server announces it
 * (leader-advisories.ts); a publish still waiting for its ack when its stream elects a new leader fails
 * then (BusUnavailableError), so its caller publishes it again to the new leader at once. Every message carries its encoding
 * version (`Crawl-Encoding`, core/cluster/bus-encoding.ts); a subscription terminates a message of a
 * version this node does not read, logs why through `onError` and counts it as `bus.refused.encoding`.
 *
 * Links for another region (`publishUrls`) go to that region's stream through the gateway. With
 * `localRegion` set, a publish there that fails (the other region's servers do not answer: frozen, down,
 * cut off) is stored instead in this region's forward stream (`crawl.forward.<local>.<to>.<p>`), and that
 * region is sent straight there for `unreachableForMs`; `forwardLinks` (run by the fetch nodes) moves what
 * waits there to its region once it answers again. So a region losing its servers neither stalls the
 * other regions' fetches nor makes them fetch again (a failed link publish would fail the task), and no
 * link is lost: it waits, durably, in the region that found it.
 *
 * The connection is borrowed: close() stops this bus's subscriptions and waits for its publishes, and
 * leaves the connection to its owner.
 */
import { jetstream, type ConsumerInfo, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/nats-core";
import { BUS_ENCODING_HEADER, BUS_ENCODINGS, checkToken, consumers, streams, subjects } from "../../core/cluster/index.ts";
import type { Counters } from "../../core/stats/index.ts";
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
import { ConnectionWatch } from "./connection-watch.ts";
import { LeaderAdvisories } from "./leader-advisories.ts";
import { BusUnavailableError, isConsumerNotFound, isNoStream } from "./errors.ts";
import { PullSubscription } from "./pull-subscription.ts";
import { ensureInboxConsumer, ensureRegionStreams, type RegionSettings } from "./region-setup.ts";
import { Semaphore } from "./semaphore.ts";

export interface JetStreamBusOptions {
  /**
   * Ack wait of the `fetchers` consumer: how late a task comes back from a fetch node that died or hangs,
   * or from a delivery lost with a NATS server; a fetch node's handling of a task must fit in it. Kept well
   * above a fetch (20 s at most): a consumer leader elected after a server is lost redelivers what was out
   * longer than this (in-progress reports reach only the old leader), and a task fetched twice at once
   * would break its host's gap. Default 60 s.
   */
  fetchAckWaitMs?: number;
  /**
   * Ack wait of the `urls-<p>` and `results-<p>` consumers. Messages a subscriber has queued are reported
   * in progress, so this bounds how late a delivery lost with a NATS server (a consumer leader killed while
   * sending it) comes back, and a handler's time (their handlers are short and idempotent); a result lost
   * that way holds its host until it does. Default 5 s (was 30 s: measured, two hosts waited 30 s after a server of three was
   * killed).
   */
  ackWaitMs?: number;
  /** Unacked messages a consumer may have out, over all its subscribers. Default 1000. */
  maxAckPending?: number;
  /** Deliveries before the server gives up on a message; -1 (default): never, poison messages are term'ed. */
  maxDeliver?: number;
  /** Duplicate window of the streams: task dedup on taskId holds within it. Default 2 min. */
  duplicateWindowMs?: number;
  /** Publishes awaiting their ack at once; more wait for a slot. Default 2048. */
  publishWindow?: number;
  /** How long a publish waits for its JetStream ack. Default 5 s. */
  publishTimeoutMs?: number;
  /** Messages a url/result subscription pulls ahead of its handlers. Default 64. */
  pullAhead?: number;
  /**
   * Handlers a url/result subscription runs at once. Each of them waits for the frontier's group commit
   * (up to 50 ms), so with one at a time a partition took at most ~18 messages a second and the rest
   * queued: measured in the crawl benchmark (2 + 2 nodes), results reached the frontier 220-490 ms after
   * they were sent at the median and over 5 s at the 90th percentile, holding their hosts' next fetch that
   * long. Messages handled at once join one commit. Default 32.
   */
  partitionConcurrency?: number;
  /**
   * How long a task subscription's fetch request waits for tasks before asking again. Task subscriptions
   * pull only as many tasks as they have free handler slots (a fetch takes seconds, and a task waiting in
   * a client buffer runs down its ack wait). Default 5 s; at least 1 s.
   */
  taskFetchExpiresMs?: number;
  /**
   * How long one pull request of a url/result subscription lasts before it is renewed. A pull held by a
   * server that died, or by a consumer leader that moved (a server of a region's cluster lost), is sent
   * again when the new leader is announced; failing that (the announcement missed) it is noticed after
   * two missed idle heartbeats, half this long each: about this long after the loss. Default 5 s; at
   * least 1 s.
   */
  pullExpiresMs?: number;
  /** Delay before a message whose handler threw (without settling it) is redelivered. Default 1 s. */
  errorNakDelayMs?: number;
  /** Wait for the server to confirm each ack (one round trip each). Default false: a lost ack only means a redelivery. */
  confirmAcks?: boolean;
  /**
   * Every region of the crawl (the coordinator's, from its region rules), for stream placement. When the
   * NATS server this bus is connected to belongs to a cluster named after one of these regions, or after
   * the region being set up, the deployment runs one NATS cluster per region named after it (the fleet of
   * deploy/terraform, a multi-region `cluster up`), and `ensureRegion(r)` places r's streams in the cluster
   * named r, whichever region's server the caller is connected to. Otherwise (a standalone server, clusters
   * named otherwise) JetStream puts them in the cluster of the connection. Default: none.
   */
  regions?: readonly string[];
  /**
   * The region of the servers this bus is connected to: links for another region that cannot be published
   * there go to this region's forward stream (see the module comment). Default: none (a failed publish
   * rejects).
   */
  localRegion?: string;
  /** After a failed publish to another region, how long its links go straight to the forward stream. Default 10 s. */
  unreachableForMs?: number;
  /**
   * Copies JetStream keeps of each stream the bus creates: 1 (default) on a single server, 3 on a region's
   * 3-server cluster, where losing one server then loses nothing. An existing stream is changed in place.
   */
  replicas?: number;
  /** Errors with no caller to return to (consume loops, undecodable or refused messages). Default: console.error. */
  onError?: (err: unknown, where: string) => void;
  /** Where refused messages are counted (`bus.refused.encoding`): the process's counters. */
  counters?: Counters;
}

const defaults = {
  fetchAckWaitMs: 60_000,
  ackWaitMs: 5_000,
  maxAckPending: 1000,
  maxDeliver: -1,
  duplicateWindowMs: 120_000,
  publishWindow: 2048,
  publishTimeoutMs: 5_000,
  pullAhead: 64,
  partitionConcurrency: 32,
  taskFetchExpiresMs: 5_000,
  pullExpiresMs: 5_000,
  errorNakDelayMs: 1_000,
  confirmAcks: false,
  regions: [] as readonly string[],
  localRegion: "",
  unreachableForMs: 10_000,
  replicas: 1,
} satisfies Required<Omit<JetStreamBusOptions, "onError" | "counters">>;

export class JetStreamBus implements MessageBus {
  private readonly js: JetStreamClient;
  private jsm: Promise<JetStreamManager> | undefined;
  private readonly opts: Required<Omit<JetStreamBusOptions, "counters">> & Pick<JetStreamBusOptions, "counters">;
  private readonly window: Semaphore;
  private readonly subscriptions = new Set<Subscription>();
  private readonly publishes = new Set<Promise<unknown>>();
  private readonly connection: ConnectionWatch;
  private readonly leaders: LeaderAdvisories;
  private closed = false;
  /** Other regions whose last publish failed, until when they are sent straight to the forward stream. */
  private readonly unreachableUntil = new Map<string, number>();

  constructor(
    private readonly nc: NatsConnection,
    options: JetStreamBusOptions = {},
  ) {
    this.opts = {
      ...defaults,
      onError: (err, where) => console.error(`jetstream-bus: ${where}:`, err),
      ...stripUndefined(options),
    };
    this.js = jetstream(nc, { timeout: this.opts.publishTimeoutMs });
    this.window = new Semaphore(this.opts.publishWindow);
    this.connection = new ConnectionWatch(nc);
    this.leaders = new LeaderAdvisories(nc, this.opts.onError);
  }

  async ensureRegion(region: string, partitions: number): Promise<void> {
    await ensureRegionStreams(await this.manager(), region, partitions, this.settingsFor(region));
  }

  private manager(): Promise<JetStreamManager> {
    // A failed lookup (JetStream not up yet) is not cached: the next call asks again.
    this.jsm ??= this.js.jetstreamManager().catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  private settingsFor(region: string): RegionSettings {
    return {
      duplicateWindowMs: this.opts.duplicateWindowMs,
      fetchAckWaitMs: this.opts.fetchAckWaitMs,
      ackWaitMs: this.opts.ackWaitMs,
      maxAckPending: this.opts.maxAckPending,
      maxDeliver: this.opts.maxDeliver,
      placementCluster: this.placementFor(region),
      replicas: this.opts.replicas,
    };
  }

  /** The cluster `region`'s streams must live in, when clusters are named after regions (see `regions`). */
  private placementFor(region: string): string | undefined {
    const here = this.nc.info?.cluster;
    if (here === undefined) return undefined;
    return here === region || this.opts.regions.includes(here) ? region : undefined;
  }

  async publishTask(region: string, task: FetchTask, route: TaskRoute = {}): Promise<void> {
    const reoffer = route.reoffer ?? 0;
    // A re-offer is a new stored copy: its own message id, so the duplicate window keeps it apart.
    const msgID = reoffer > 0 ? `${task.taskId}~${reoffer}` : task.taskId;
    const subject = task.render
      ? subjects.render(region)
      : route.to === undefined
        ? subjects.fetch(region)
        : subjects.inbox(region, checkToken("node id", route.to));
    return this.publish(streams.fetch(region), subject, () => encodeFetchTask(task, region), msgID);
  }

  /**
   * Deliveries lost on the wire: a server killed while sending them keeps them out until the fetch
   * consumers' ack wait, and so does a consumer leader lost with its server (the new one redelivers after
   * it). Any consumer of the fetch stream counts: `fetchers`, `renderers` and every fetch node's inbox.
   */
  onTasksMayBeLost(region: string, f: (why: string) => void): () => void {
    const offBack = this.connection.whenBack(() => f("the NATS connection is back after a drop"));
    const offLeader = this.leaders.watchAnyConsumer(streams.fetch(region), () => f(`a fetch consumer of ${region} elected a new leader`));
    return () => {
      offBack();
      offLeader();
    };
  }

  async ensureTaskInbox(region: string, node: string): Promise<void> {
    await ensureInboxConsumer(await this.manager(), region, node, this.settingsFor(region));
  }

  /**
   * The region's inboxes: every inbox consumer, and every inbox subject holding tasks though it has no
   * consumer (sent to a node whose inbox was removed, or that never started): such tasks are listed so a
   * live node adopts them (fetch-node/inbox-heirs.ts). Two JetStream API calls, whatever the count.
   */
  async taskInboxes(region: string): Promise<TaskInbox[]> {
    const jsm = await this.manager();
    const stream = streams.fetch(region);
    const byNode = new Map<string, TaskInbox>();
    for await (const ci of jsm.consumers.list(stream)) {
      if (!ci.name.startsWith(consumers.inboxPrefix)) continue;
      const node = ci.name.slice(consumers.inboxPrefix.length);
      byNode.set(node, { node, waiting: ci.num_pending, unacked: ci.num_ack_pending });
    }
    const prefix = subjects.inbox(region, "");
    for (const [subject, count] of Object.entries(await this.inboxSubjects(jsm, region))) {
      const node = subject.slice(prefix.length);
      if (!byNode.has(node) && count > 0) byNode.set(node, { node, waiting: count, unacked: 0 });
    }
    return [...byNode.values()];
  }

  /**
   * Deletes `node`'s inbox consumer if it holds no task; if a task reached the inbox's subject meanwhile
   * (sent between the look and the delete), the consumer is made again, so that task is not stranded.
   */
  async removeTaskInbox(region: string, node: string): Promise<boolean> {
    checkToken("node id", node);
    const jsm = await this.manager();
    const stream = streams.fetch(region);
    const name = consumers.inbox(node);
    let info: ConsumerInfo | undefined;
    try {
      info = await jsm.consumers.info(stream, name);
    } catch (err) {
      if (!isConsumerNotFound(err)) throw err;
    }
    if (info && info.num_pending + info.num_ack_pending > 0) return false;
    if (info) {
      try {
        await jsm.consumers.delete(stream, name);
      } catch (err) {
        if (!isConsumerNotFound(err)) throw err;
      }
    }
    const left = (await this.inboxSubjects(jsm, region, node))[subjects.inbox(region, node)] ?? 0;
    if (left === 0) return true;
    await ensureInboxConsumer(jsm, region, node, this.settingsFor(region));
    return false;
  }

  /** Tasks stored per inbox subject of the region (or of one node's inbox), from the stream's own subject counts. */
  private async inboxSubjects(jsm: JetStreamManager, region: string, node?: string): Promise<Record<string, number>> {
    const filter = node === undefined ? subjects.inboxWildcard(region) : subjects.inbox(region, node);
    const info = await jsm.streams.info(streams.fetch(region), { subjects_filter: filter });
    return info.state.subjects ?? {};
  }

  publishResult(region: string, result: FetchResult): Promise<void> {
    return this.publish(
      streams.results(region),
      subjects.results(region, result.partition),
      () => encodeFetchResult(result),
      result.taskId,
    );
  }

  async publishUrls(region: string, partition: number, urls: readonly DiscoveredUrl[]): Promise<void> {
    const local = this.opts.localRegion;
    const direct = () => this.publish(streams.urls(region), subjects.urls(region, partition), () => encodeDiscoveredLinks(partition, urls));
    if (!local || region === local) return direct();
    const forward = () =>
      this.publish(streams.forward(local), subjects.forward(local, region, partition), () => encodeDiscoveredLinks(partition, urls));
    if (this.unreachable(region) > 0) return forward();
    try {
      await direct();
    } catch (err) {
      // This process's own connection being down says nothing of the other region: the caller keeps the links.
      if (!this.connection.isUp) throw err;
      this.markUnreachable(region, err);
      await forward();
    }
  }

  /**
   * Moves the links waiting in the local region's forward stream to their regions (the shared durable
   * consumer `forwarders`): each message is published to its region's URL stream and acked; one for a
   * region that still does not answer is given back for when it may. Needs `localRegion`.
   */
  forwardLinks(opts: { concurrency?: number } = {}): Subscription {
    const local = this.opts.localRegion;
    if (!local) throw new Error("jetstream-bus: forwardLinks needs the localRegion option");
    const prefix = subjects.forwardWildcard(local).slice(0, -1);
    const decode = (bytes: Uint8Array, subject: string) => ({
      to: subject.slice(prefix.length).split(".")[0]!,
      links: decodeDiscoveredLinks(bytes),
    });
    return this.subscribe(
      streams.forward(local),
      consumers.forwarders,
      decode,
      async (d) => {
        const { to, links } = d.data;
        const wait = this.unreachable(to);
        if (wait > 0) return d.nak(wait);
        try {
          await this.publish(streams.urls(to), subjects.urls(to, links.partition), () =>
            encodeDiscoveredLinks(links.partition, links.urls),
          );
        } catch (err) {
          if (!this.connection.isUp) throw err; // redelivered once the connection is back
          this.markUnreachable(to, err);
          return d.nak(this.opts.unreachableForMs);
        }
        this.opts.counters?.add("bus.forwarded");
        await d.ack();
      },
      "fetch",
      Math.max(1, Math.floor(opts.concurrency ?? 16)),
    );
  }

  /** Milliseconds `region` is still taken as unreachable (0: try it). */
  private unreachable(region: string): number {
    return Math.max(0, (this.unreachableUntil.get(region) ?? 0) - Date.now());
  }

  private markUnreachable(region: string, err: unknown): void {
    if (this.unreachable(region) === 0)
      this.opts.onError(err, `region ${region} does not take links; they wait in ${this.opts.localRegion}'s forward stream`);
    this.unreachableUntil.set(region, Date.now() + this.opts.unreachableForMs);
  }

  consumeTasks(
    region: string,
    handler: (d: Delivery<FetchTask>) => Promise<void>,
    opts: { concurrency: number; render?: boolean; inbox?: string },
  ): Subscription {
    const concurrency = Math.max(1, Math.floor(opts.concurrency));
    const inbox = opts.inbox;
    if (inbox !== undefined && !opts.render) {
      checkToken("node id", inbox);
      // Made before the first pull if it is missing, and again whenever it is found missing (removed as a gone
      // node's inbox while this node was away). An existing one is left as it is: an heir must not set the
      // inbox's ack wait back to its own (ensureRegion and ensureTaskInbox change settings, not a subscription).
      const make = async () => {
        const jsm = await this.manager();
        try {
          await jsm.consumers.info(streams.fetch(region), consumers.inbox(inbox));
        } catch (err) {
          if (!isConsumerNotFound(err)) throw err;
          await ensureInboxConsumer(jsm, region, inbox, this.settingsFor(region));
        }
      };
      return this.subscribe(streams.fetch(region), consumers.inbox(inbox), decodeFetchTask, handler, "fetch", concurrency, make);
    }
    const consumer = opts.render ? consumers.renderers : consumers.fetchers;
    return this.subscribe(streams.fetch(region), consumer, decodeFetchTask, handler, "fetch", concurrency);
  }

  consumeUrls(region: string, partition: number, handler: (d: Delivery<DiscoveredUrl[]>) => Promise<void>): Subscription {
    const decode = (bytes: Uint8Array) => decodeDiscoveredLinks(bytes).urls;
    return this.subscribe(streams.urls(region), consumers.urls(partition), decode, handler, "consume", this.opts.partitionConcurrency);
  }

  consumeResults(region: string, partition: number, handler: (d: Delivery<FetchResult>) => Promise<void>): Subscription {
    return this.subscribe(
      streams.results(region),
      consumers.results(partition),
      decodeFetchResult,
      handler,
      "consume",
      this.opts.partitionConcurrency,
    );
  }

  /**
   * Stops every subscription (waiting for running handlers, which may still publish: a fetch worker
   * publishes its links and result before it acks), then refuses new publishes and waits for those in
   * flight.
   */
  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.closed = true;
    await Promise.allSettled([...this.publishes]);
    this.connection.stop();
    this.leaders.stop();
  }

  private async publish(stream: string, subject: string, encode: () => Uint8Array, msgID?: string): Promise<void> {
    if (this.closed) throw new Error("jetstream-bus: publish after close");
    // Encode before taking a slot, so a bad message fails at once and never holds the window.
    const data = encode();
    // A fresh header set each time: nats.js adds Nats-Msg-Id to the one it is given.
    const h = headers();
    h.set(BUS_ENCODING_HEADER, String(BUS_ENCODINGS.newest));
    const what = msgID === undefined ? `a message to ${subject}` : `message ${msgID} to ${subject}`;
    const p = this.window.run(() =>
      this.connection.run(
        () =>
          this.untilNewLeader(stream, what, this.js.publish(subject, data, msgID === undefined ? { headers: h } : { msgID, headers: h })),
        what,
      ),
    );
    this.publishes.add(p);
    try {
      await p;
    } catch (err) {
      if (isNoStream(err)) {
        // Also what a replicated stream answers while it elects a new leader after losing a server.
        throw new BusUnavailableError(
          `no stream took ${subject}: none stores it (run ensureRegion for its region first), or its leader is being elected after a NATS server was lost (retry)`,
          { cause: err },
        );
      }
      throw err;
    } finally {
      this.publishes.delete(p);
    }
  }

  /**
   * `p`, failed early when `stream` elects a new leader before it settles: a publish sent while the stream
   * had no leader (its server lost) is answered by nobody, and its caller can publish it again to the new
   * leader now (under its message id it is stored once) instead of after the publish timeout.
   */
  private untilNewLeader<T>(stream: string, what: string, p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unwatch = this.leaders.watchStream(stream, () => {
        unwatch();
        reject(new BusUnavailableError(`stream ${stream} elected a new leader before ${what} was confirmed (it may or may not be stored)`));
      });
      p.then(
        (v) => {
          unwatch();
          resolve(v);
        },
        (e: unknown) => {
          unwatch();
          reject(e);
        },
      );
    });
  }

  private subscribe<T>(
    stream: string,
    consumer: string,
    decode: (bytes: Uint8Array, subject: string) => T,
    handler: (d: Delivery<T>) => Promise<void>,
    mode: "consume" | "fetch",
    concurrency: number,
    makeConsumer?: () => Promise<void>,
  ): Subscription {
    if (this.closed) throw new Error("jetstream-bus: subscribe after close");
    const sub = new PullSubscription(this.js, {
      stream,
      consumer,
      makeConsumer,
      decode,
      handler,
      mode,
      concurrency,
      maxMessages: Math.max(1, this.opts.pullAhead),
      fetchExpiresMs: Math.max(1_000, this.opts.taskFetchExpiresMs),
      consumeExpiresMs: Math.max(1_000, this.opts.pullExpiresMs),
      // Task consumers (the shared queue, the render queue, every inbox) live by the fetch ack wait.
      ackWaitMs: isTaskConsumer(consumer) ? this.opts.fetchAckWaitMs : this.opts.ackWaitMs,
      errorNakDelayMs: this.opts.errorNakDelayMs,
      confirmAcks: this.opts.confirmAcks,
      termWithReason: () => serverAtLeast(this.nc.info?.version, 2, 10),
      onError: this.opts.onError,
      whenReconnected: (f) => this.connection.whenBack(f),
      whenLeaderElected: (f) => this.leaders.watch(stream, consumer, f),
      onRefused: (reason, subject, seq) => {
        this.opts.counters?.add("bus.refused.encoding");
        this.opts.onError(new Error(`${reason}; the message is terminated, not redelivered`), `${subject}: message ${seq} refused`);
      },
    });
    this.subscriptions.add(sub);
    return {
      stop: async () => {
        await sub.stop();
        this.subscriptions.delete(sub);
      },
    };
  }
}

/** True when a "major.minor.patch" version is at least major.minor; false when unknown. */
export function serverAtLeast(version: string | undefined, major: number, minor: number): boolean {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? "");
  if (!m) return false;
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > major || (maj === major && min >= minor);
}

function isTaskConsumer(consumer: string): boolean {
  return consumer === consumers.fetchers || consumer === consumers.renderers || consumer.startsWith(consumers.inboxPrefix);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

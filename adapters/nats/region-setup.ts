/**
 * Creates a region's four work-queue streams (URLs, fetch tasks, results, and links waiting to be forwarded
 * to another region) and their durable pull consumers, and each fetch node's inbox consumer (docs/cluster.md,
 * core/cluster/names.ts), idempotently: what exists with the wanted configuration is left alone, settings
 * that can change in place (subjects, duplicate window, ack wait, max ack pending, max deliver) are
 * updated, and a setting that cannot (retention, storage, filter subject, ack policy, push delivery) stops
 * with ConfigDriftError rather than recreating a stream and dropping its messages. Concurrent callers (two
 * nodes starting at once) are fine: "already exists" answers are re-read and compared like any other.
 *
 * In a supercluster the streams are created in the cluster named by `placementCluster` (the region's own,
 * chosen by JetStreamBus), else in the cluster of the connection; an existing stream is never moved.
 *
 * nats-server 2.9: one filter subject per consumer, and on a work queue each subject belongs to exactly
 * one consumer, hence one durable consumer per partition. Durations are nanoseconds on the wire.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { checkToken, consumers, streams, subjects } from "../../core/cluster/index.ts";
import {
  ConfigDriftError,
  isConsumerExists,
  isConsumerNotFound,
  isReplicasUnsupported,
  isStreamExists,
  isStreamNotFound,
  replicasError,
} from "./errors.ts";
import { Semaphore } from "./semaphore.ts";

export interface RegionSettings {
  /** Nats-Msg-Id duplicate window of every stream. */
  duplicateWindowMs: number;
  /** Ack wait of the `fetchers` consumer. */
  fetchAckWaitMs: number;
  /** Ack wait of the `urls-<p>` and `results-<p>` consumers. */
  ackWaitMs: number;
  /** Unacked messages a consumer may have out at once (all its subscribers together). */
  maxAckPending: number;
  /** Deliveries before the server gives up on a message; -1: never. */
  maxDeliver: number;
  /**
   * The NATS cluster (in a supercluster) new streams are placed in; undefined: the cluster of the
   * connection. Placement applies when a stream is created: an existing stream stays where it is.
   */
  placementCluster?: string;
  /** Copies JetStream keeps of each stream (1, or 3 on a region's 3-server cluster); consumers follow their stream. */
  replicas: number;
}

/** Consumer creations in flight at once while setting up a region's partitions. */
const SETUP_CONCURRENCY = 8;

export async function ensureRegionStreams(jsm: JetStreamManager, region: string, partitions: number, s: RegionSettings): Promise<void> {
  checkToken("region", region);
  if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`partitions must be a positive integer, got ${partitions}`);

  const stream = (name: string, ...subject: string[]): WantedStream => ({
    name,
    subjects: subject,
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(s.duplicateWindowMs),
    num_replicas: s.replicas,
    ...(s.placementCluster === undefined ? {} : { placement: { cluster: s.placementCluster, tags: [] } }),
  });
  await Promise.all([
    ensureStream(jsm, stream(streams.urls(region), subjects.urlsWildcard(region))),
    // Tasks asking for rendering have their own subject and consumer, pulled only by fetch nodes with a browser;
    // each fetch node has its inbox subject (host affinity), added in place to a stream made before inboxes.
    ensureStream(jsm, stream(streams.fetch(region), subjects.fetch(region), subjects.render(region), subjects.inboxWildcard(region))),
    ensureStream(jsm, stream(streams.results(region), subjects.resultsWildcard(region))),
    ensureStream(jsm, stream(streams.forward(region), subjects.forwardWildcard(region))),
  ]);

  const consumer = (name: string, filter: string, ackWaitMs: number) => wantedConsumer(name, filter, ackWaitMs, s);
  const wanted: [string, WantedConsumer][] = [
    [streams.fetch(region), consumer(consumers.fetchers, subjects.fetch(region), s.fetchAckWaitMs)],
    [streams.fetch(region), consumer(consumers.renderers, subjects.render(region), s.fetchAckWaitMs)],
    [streams.forward(region), consumer(consumers.forwarders, subjects.forwardWildcard(region), s.ackWaitMs)],
  ];
  for (let p = 0; p < partitions; p++) {
    wanted.push([streams.urls(region), consumer(consumers.urls(p), subjects.urls(region, p), s.ackWaitMs)]);
    wanted.push([streams.results(region), consumer(consumers.results(p), subjects.results(region, p), s.ackWaitMs)]);
  }
  // The fetch nodes' inboxes that exist take the region's task settings too (a changed ack wait), in place.
  for await (const ci of jsm.consumers.list(streams.fetch(region))) {
    const node = ci.name.startsWith(consumers.inboxPrefix) ? ci.name.slice(consumers.inboxPrefix.length) : "";
    if (node) wanted.push([streams.fetch(region), wantedConsumer(ci.name, subjects.inbox(region, node), s.fetchAckWaitMs, s)]);
  }
  const pool = new Semaphore(SETUP_CONCURRENCY);
  await Promise.all(wanted.map(([streamName, cfg]) => pool.run(() => ensureConsumer(jsm, streamName, cfg))));
}

/**
 * Fetch node `node`'s inbox consumer (`inbox-<node>` on `crawl.fetch.<region>.to.<node>`), made when
 * missing (idempotent, like the region's own consumers). Tasks sent to the inbox before it exists wait in
 * the stream and are delivered once it does (a work queue keeps a message until a consumer takes it).
 */
export async function ensureInboxConsumer(jsm: JetStreamManager, region: string, node: string, s: RegionSettings): Promise<void> {
  checkToken("region", region);
  checkToken("node id", node);
  await ensureConsumer(
    jsm,
    streams.fetch(region),
    wantedConsumer(consumers.inbox(node), subjects.inbox(region, node), s.fetchAckWaitMs, s),
  );
}

function wantedConsumer(name: string, filter: string, ackWaitMs: number, s: RegionSettings): WantedConsumer {
  return {
    durable_name: name,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: s.maxAckPending,
    max_deliver: s.maxDeliver,
  };
}

type WantedStream = Pick<StreamConfig, "name" | "subjects" | "retention" | "storage" | "discard" | "duplicate_window" | "num_replicas"> &
  Partial<Pick<StreamConfig, "placement">>;

async function ensureStream(jsm: JetStreamManager, want: WantedStream): Promise<void> {
  let info = await streamInfo(jsm, want.name);
  if (!info) {
    try {
      await jsm.streams.add(want);
      return;
    } catch (err) {
      if (isReplicasUnsupported(err)) throw replicasError(`stream ${want.name}`, want.num_replicas ?? 1, err);
      if (!isStreamExists(err)) throw err;
      info = await jsm.streams.info(want.name);
    }
  }
  const have = info.config;
  if (have.retention !== want.retention || have.storage !== want.storage) {
    throw new ConfigDriftError(
      `stream ${want.name} exists with retention ${have.retention} / storage ${have.storage}; the crawler needs ` +
        `${want.retention} / ${want.storage}. Delete the stream (its messages are lost) or fix the server.`,
    );
  }
  const missing = want.subjects.filter((subj) => !have.subjects.includes(subj));
  if (missing.length > 0 || have.duplicate_window !== want.duplicate_window || have.num_replicas !== want.num_replicas) {
    // A changed replica count is applied in place: JetStream copies the stream to more servers, or drops copies.
    try {
      await jsm.streams.update(want.name, {
        ...have,
        subjects: [...have.subjects, ...missing],
        duplicate_window: want.duplicate_window,
        num_replicas: want.num_replicas,
      });
    } catch (err) {
      if (isReplicasUnsupported(err)) throw replicasError(`stream ${want.name}`, want.num_replicas ?? 1, err);
      throw err;
    }
  }
}

type WantedConsumer = Required<
  Pick<
    ConsumerConfig,
    "durable_name" | "filter_subject" | "ack_policy" | "deliver_policy" | "replay_policy" | "ack_wait" | "max_ack_pending" | "max_deliver"
  >
>;

async function ensureConsumer(jsm: JetStreamManager, stream: string, want: WantedConsumer): Promise<void> {
  let info = await consumerInfo(jsm, stream, want.durable_name);
  if (!info) {
    try {
      await jsm.consumers.add(stream, want);
      return;
    } catch (err) {
      if (!isConsumerExists(err)) throw err;
      info = await jsm.consumers.info(stream, want.durable_name);
    }
  }
  const have = info.config;
  const fixed: [string, unknown, unknown][] = [
    ["filter_subject", have.filter_subject ?? "", want.filter_subject],
    ["ack_policy", have.ack_policy, want.ack_policy],
    ["deliver_subject (push)", have.deliver_subject ?? "", ""],
  ];
  for (const [field, got, expected] of fixed) {
    if (got !== expected) {
      throw new ConfigDriftError(
        `consumer ${stream}/${want.durable_name} has ${field} ${JSON.stringify(got)}, the crawler needs ${JSON.stringify(expected)}; ` +
          `delete the consumer (unacked messages stay in the stream) and restart`,
      );
    }
  }
  if (have.ack_wait !== want.ack_wait || have.max_ack_pending !== want.max_ack_pending || have.max_deliver !== want.max_deliver) {
    await jsm.consumers.update(stream, want.durable_name, {
      ack_wait: want.ack_wait,
      max_ack_pending: want.max_ack_pending,
      max_deliver: want.max_deliver,
    });
  }
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (isStreamNotFound(err)) return undefined;
    throw err;
  }
}

async function consumerInfo(jsm: JetStreamManager, stream: string, name: string): Promise<ConsumerInfo | undefined> {
  try {
    return await jsm.consumers.info(stream, name);
  } catch (err) {
    if (isConsumerNotFound(err)) return undefined;
    throw err;
  }
}

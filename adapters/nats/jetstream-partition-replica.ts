/**
 * PartitionReplica over JetStream (core/ports/partition-replica.ts): each region's log is the stream
 * CRAWL_STATE_<region> (limits retention, file storage, `replicas` copies), a partition's batches on
 * `crawl.state.<region>.<p>.batch` and its claims on `…<p>.claim`; snapshots are objects `p-<p>` of the
 * object store `crawl-state-<region>` (same storage and replicas), gzip-compressed JSON lines, described by
 * their SnapshotInfo. An object store put is atomic for readers: they see the previous snapshot until the
 * new one is complete.
 *
 * Batches carry their writer, epoch and rows in headers and the rows' JSON as the body; `Nats-Msg-Id` =
 * store:partition:epoch:first-last, so the same batch sent again after a lost ack (within the duplicate
 * window) is stored once, and a batch with more rows is never taken for it. A read is an ephemeral pull consumer filtered on the partition's two subjects (one wildcard
 * filter: nats-server 2.9 takes one), from a sequence, deleted when done.
 *
 * The connection is borrowed: close() waits for nothing but leaves the connection to its owner.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { headers, nanos, type MsgHdrs, type NatsConnection } from "@nats-io/nats-core";
import { Objm, type ObjectStore } from "@nats-io/obj";
import { checkToken, objectStores, streams, subjects } from "../../core/cluster/index.ts";
import type { BatchEntry, ClaimEntry, PartitionReplica, ReplicaEntry, ReplicaWriter, SnapshotInfo } from "../../core/ports/index.ts";
import { ConfigDriftError, isReplicasUnsupported, isStreamExists, isStreamNotFound, replicasError } from "./errors.ts";

export interface JetStreamPartitionReplicaOptions {
  /** Copies of the stream and object store (1 on a single server; 3 on a region's 3-server cluster). Default 1. */
  replicas?: number;
  /** Duplicate window of the stream (batch dedup). Default 2 min. */
  duplicateWindowMs?: number;
  /** How long an append or claim waits for its JetStream ack. Default 5 s. */
  publishTimeoutMs?: number;
  /** Messages a read pulls per request. Default 256. */
  readBatch?: number;
}

const H = {
  node: "Crawl-Node",
  store: "Crawl-Store",
  epoch: "Crawl-Epoch",
  first: "Crawl-First",
  last: "Crawl-Last",
} as const;

/** A byte transform (the DOM typings of CompressionStream take any BufferSource). */
type Bytes = ReadableWritablePair<Uint8Array, Uint8Array>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class JetStreamPartitionReplica implements PartitionReplica {
  private readonly js: JetStreamClient;
  private jsm: Promise<JetStreamManager> | undefined;
  private readonly objects = new Map<string, Promise<ObjectStore>>();
  private readonly opts: Required<JetStreamPartitionReplicaOptions>;

  constructor(nc: NatsConnection, options: JetStreamPartitionReplicaOptions = {}) {
    this.opts = {
      replicas: options.replicas ?? 1,
      duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
      publishTimeoutMs: options.publishTimeoutMs ?? 5_000,
      readBatch: options.readBatch ?? 256,
    };
    this.js = jetstream(nc, { timeout: this.opts.publishTimeoutMs });
  }

  async ensureRegion(region: string): Promise<void> {
    checkToken("region", region);
    const jsm = await this.manager();
    const name = streams.state(region);
    const want = {
      name,
      subjects: [subjects.stateWildcard(region)],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(this.opts.duplicateWindowMs),
      num_replicas: this.opts.replicas,
    };
    let info;
    try {
      info = await jsm.streams.info(name);
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
      try {
        await jsm.streams.add(want);
      } catch (addErr) {
        if (isReplicasUnsupported(addErr)) throw replicasError(`stream ${name}`, want.num_replicas, addErr);
        if (!isStreamExists(addErr)) throw addErr;
        info = await jsm.streams.info(name);
      }
    }
    if (info && (info.config.retention !== want.retention || info.config.storage !== want.storage)) {
      throw new ConfigDriftError(
        `stream ${name} exists with retention ${info.config.retention} / storage ${info.config.storage}; the crawler needs ` +
          `${want.retention} / ${want.storage} (it holds every partition's replicated state: fix it by hand, do not just delete it)`,
      );
    }
    if (info) await matchReplicas(jsm, name, `stream ${name}`, want.num_replicas);
    await this.objectStore(region);
    // create() binds to an existing object store as it is: its stream's copies follow the setting too.
    await matchReplicas(jsm, `OBJ_${objectStores.state(region)}`, `object store ${objectStores.state(region)}`, want.num_replicas);
  }

  async claim(region: string, partition: number, writer: ReplicaWriter, after: number): Promise<number> {
    const body = encoder.encode(JSON.stringify({ node: writer.node, store: writer.store, after }));
    const ack = await this.js.publish(subjects.stateClaim(region, partition), body);
    return ack.seq;
  }

  async lastClaim(region: string, partition: number): Promise<ClaimEntry | undefined> {
    const jsm = await this.manager();
    try {
      const m = await jsm.streams.getMessage(streams.state(region), { last_by_subj: subjects.stateClaim(region, partition) });
      if (!m) return undefined;
      return decodeClaim(m.seq, m.data);
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return undefined;
      throw err;
    }
  }

  async append(region: string, partition: number, batch: Omit<BatchEntry, "kind" | "seq">): Promise<number> {
    const h = headers();
    h.set(H.node, batch.writer.node);
    h.set(H.store, batch.writer.store);
    h.set(H.epoch, String(batch.epoch));
    h.set(H.first, String(batch.first));
    h.set(H.last, String(batch.last));
    const msgID = `${batch.writer.store}:${partition}:${batch.epoch}:${batch.first}-${batch.last}`;
    const ack = await this.js.publish(subjects.stateBatch(region, partition), encoder.encode(batch.body), { headers: h, msgID });
    return ack.seq;
  }

  async *read(region: string, partition: number, fromSeq: number, toSeq: number): AsyncIterable<ReplicaEntry> {
    if (fromSeq > toSeq) return;
    const jsm = await this.manager();
    const stream = streams.state(region);
    const info = await jsm.consumers.add(stream, {
      filter_subject: subjects.statePartition(region, partition),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
      ack_policy: AckPolicy.None,
      inactive_threshold: nanos(60_000),
      mem_storage: true,
      num_replicas: 1,
    });
    try {
      const consumer = await this.js.consumers.get(stream, info.name);
      let pending = info.num_pending;
      while (pending > 0) {
        const messages = await consumer.fetch({ max_messages: this.opts.readBatch, expires: 5_000 });
        let got = 0;
        for await (const m of messages) {
          got++;
          pending = m.info.pending;
          if (m.seq > toSeq) return;
          yield decodeEntry(m);
          // Nothing after it (when the consumer was asked): done, rather than wait out the fetch's expiry.
          if (m.seq === toSeq || pending === 0) return;
        }
        if (got === 0) throw new Error(`reading ${stream} for partition ${partition}: no message came although ${pending} are pending`);
      }
    } finally {
      await jsm.consumers.delete(stream, info.name).catch(() => {});
    }
  }

  async putSnapshot(region: string, partition: number, info: SnapshotInfo, chunks: AsyncIterable<string>): Promise<void> {
    const os = await this.objectStore(region);
    const iterator = chunks[Symbol.asyncIterator]();
    const lines = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(`${next.value}\n`));
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    const gzipped = lines.pipeThrough(new CompressionStream("gzip") as unknown as Bytes);
    await os.put({ name: objectStores.snapshotObject(partition), description: JSON.stringify(info) }, gzipped);
  }

  async getSnapshot(region: string, partition: number): Promise<{ info: SnapshotInfo; chunks: AsyncIterable<string> } | undefined> {
    const os = await this.objectStore(region);
    const result = await os.get(objectStores.snapshotObject(partition));
    if (!result) return undefined;
    const info = JSON.parse(result.info.description ?? "") as SnapshotInfo;
    const plain = result.data.pipeThrough(new DecompressionStream("gzip") as unknown as Bytes);
    return {
      info,
      chunks: (async function* () {
        let rest = "";
        const text = new TextDecoder();
        const reader = plain.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          rest += text.decode(value, { stream: true });
          let nl = rest.indexOf("\n");
          while (nl >= 0) {
            const line = rest.slice(0, nl);
            rest = rest.slice(nl + 1);
            if (line) yield line;
            nl = rest.indexOf("\n");
          }
        }
        if (rest) yield rest;
        const failed = await result.error;
        if (failed) throw new Error(`snapshot of partition ${partition} could not be read whole: ${failed.message}`, { cause: failed });
      })(),
    };
  }

  async trim(region: string, partition: number, beforeSeq: number): Promise<void> {
    const jsm = await this.manager();
    const stream = streams.state(region);
    // A filtered purge with `seq` 0 or 1 has no bound: nats-server then purges every message of the subject.
    // Nothing lies before sequence 1, so such a trim purges nothing.
    const purgeBefore = (filter: string, seq: number) => (seq > 1 ? jsm.streams.purge(stream, { filter, seq }) : undefined);
    await purgeBefore(subjects.stateBatch(region, partition), beforeSeq);
    const latest = await this.lastClaim(region, partition);
    if (latest) await purgeBefore(subjects.stateClaim(region, partition), Math.min(beforeSeq, latest.seq));
  }

  async close(): Promise<void> {}

  private manager(): Promise<JetStreamManager> {
    // A failed lookup (JetStream not up yet) is not cached: the next call asks again.
    this.jsm ??= this.js.jetstreamManager().catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  private objectStore(region: string): Promise<ObjectStore> {
    let os = this.objects.get(region);
    if (!os) {
      const name = objectStores.state(region);
      os = new Objm(this.js).create(name, { storage: StorageType.File, replicas: this.opts.replicas }).catch((err: unknown) => {
        if (isReplicasUnsupported(err)) throw replicasError(`object store ${name}`, this.opts.replicas, err);
        throw err;
      });
      os.catch(() => this.objects.delete(region));
      this.objects.set(region, os);
    }
    return os;
  }
}

/**
 * Brings an existing stream's copies to `replicas` in place (JetStream copies it to more servers, or drops
 * copies), as the bus does for its streams: one --nats-replicas setting for everything the crawler keeps.
 */
async function matchReplicas(jsm: JetStreamManager, stream: string, what: string, replicas: number): Promise<void> {
  const info = await jsm.streams.info(stream);
  if (info.config.num_replicas === replicas) return;
  try {
    await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
  } catch (err) {
    if (isReplicasUnsupported(err)) throw replicasError(what, replicas, err);
    throw err;
  }
}

function decodeClaim(seq: number, data: Uint8Array): ClaimEntry {
  const v = JSON.parse(decoder.decode(data)) as { node?: unknown; store?: unknown; after?: unknown };
  if (typeof v.node !== "string" || typeof v.store !== "string" || typeof v.after !== "number") {
    throw new Error(`claim at sequence ${seq} is malformed`);
  }
  return { kind: "claim", seq, writer: { node: v.node, store: v.store }, after: v.after };
}

function decodeEntry(m: JsMsg): ReplicaEntry {
  if (m.subject.endsWith(".claim")) return decodeClaim(m.seq, m.data);
  const h = m.headers;
  const num = (name: string) => {
    const v = Number(h?.get(name));
    if (!Number.isSafeInteger(v)) throw new Error(`batch at sequence ${m.seq} has no valid ${name} header`);
    return v;
  };
  return {
    kind: "batch",
    seq: m.seq,
    writer: { node: header(h, H.node), store: header(h, H.store) },
    epoch: num(H.epoch),
    first: num(H.first),
    last: num(H.last),
    body: decoder.decode(m.data),
  };
}

function header(h: MsgHdrs | undefined, name: string): string {
  return h?.get(name) ?? "";
}

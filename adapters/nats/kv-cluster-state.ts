/**
 * ClusterState over NATS KV: node records under `nodes.<id>`, leases under `lease.<name>` and the scope's
 * roots under `scope.<host>` (one key each) in the bucket CLUSTER_BUCKET; the ring alone, under `ring`, in
 * its own bucket RING_BUCKET. All JSON. Revisions are the buckets' stream sequences. A lost compare-and-set
 * is reported as undefined (ring) or false (lease), never as an error; a read NATS cannot answer now (a
 * server down or restarting, a stream without a leader) rejects with UnavailableError (retry later).
 *
 * Why the ring has a bucket of its own: on a clustered bucket (replicas > 1) nats-server before 2.9.21
 * checks a write's expected last *subject* sequence (what `kv.update` sends) only against what the stream
 * leader has applied, before proposing the write: two writes in flight at once, both naming the same
 * revision, are then both accepted and the later one silently undoes the earlier (Debian's 2.9.10 does
 * this, from one connection or several; a single server is not affected). The ring is written by several
 * processes (the coordinator rebalancing, frontier nodes marking handoffs done), and an undone handoff mark
 * names the giver as `previous` again after it has given the partition away. A write to the ring bucket
 * names instead the stream's last sequence (`Nats-Expected-Last-Sequence`), which the leader checks against
 * every write it has already proposed, so of writes made at once from one revision exactly one is stored,
 * whichever processes send them (tests/contract and kv-cluster-state.test.ts, on a 3-server cluster). That
 * holds only while the ring is the bucket's one key. The first write (revision 0) is a per-subject create:
 * two coordinators starting at once could both store a first ring, which names no handoff, so nothing is
 * undone. Ring reads go to the stream leader (a direct get may be answered by a replica still catching up).
 *
 * The connection is borrowed: close() stops this object's watchers but leaves the connection open.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV, type KvEntry } from "@nats-io/kv";
import { CLUSTER_BUCKET, keys, RING_BUCKET, type NodeRecord, type RingRecord } from "../../core/cluster/index.ts";
import { type ClusterState, type NodeChange } from "../../core/ports/index.ts";
import { isReplicasUnsupported, isWrongLastSequence, replicasError, stateUnavailable } from "./errors.ts";

export interface NatsKvClusterStateOptions {
  /** Bucket name; default CLUSTER_BUCKET. */
  bucket?: string;
  /** The ring's bucket; default RING_BUCKET, or `<bucket>-ring` when `bucket` is given (tests use fresh names). */
  ringBucket?: string;
  /** Revisions kept per key (for debugging a ring's history). Default 5. */
  history?: number;
  /**
   * Copies JetStream keeps of both buckets: 1 (default), 3 on a region's 3-server cluster. An existing
   * bucket with another count is changed in place.
   */
  replicas?: number;
  /** Where errors that have no caller to go to (a watcher's) are reported. Default: console.error. */
  onError?: (err: unknown, where: string) => void;
}

interface Lease {
  holder: string;
  expiresAt: number;
}

/** A scope root's value: the host name, which the key holds only escaped. */
interface ScopeRoot {
  host: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

export class NatsKvClusterState implements ClusterState {
  private readonly watchers = new Set<() => void>();
  private readonly ringStream: string;
  private readonly ringSubject: string;

  private constructor(
    private readonly kv: KV,
    private readonly ringKv: KV,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    ringBucket: string,
    private readonly onError: (err: unknown, where: string) => void,
  ) {
    this.ringStream = `KV_${ringBucket}`;
    this.ringSubject = `$KV.${ringBucket}.${keys.ring}`;
  }

  /** Opens both buckets, creating them (file storage) when missing, with `replicas` copies. */
  static async open(nc: NatsConnection, opts: NatsKvClusterStateOptions = {}): Promise<NatsKvClusterState> {
    const bucket = opts.bucket ?? CLUSTER_BUCKET;
    const ringBucket = opts.ringBucket ?? (opts.bucket === undefined ? RING_BUCKET : `${opts.bucket}-ring`);
    const replicas = opts.replicas ?? 1;
    const kvm = new Kvm(nc);
    const jsm = await jetstreamManager(nc);
    const openBucket = async (name: string) => {
      try {
        const kv = await kvm.create(name, { history: opts.history ?? 5, replicas });
        // create() binds to an existing bucket as it is: bring its replica count in line.
        const info = await jsm.streams.info(`KV_${name}`);
        if (info.config.num_replicas !== replicas) await jsm.streams.update(info.config.name, { ...info.config, num_replicas: replicas });
        return kv;
      } catch (err) {
        if (isReplicasUnsupported(err)) throw replicasError(`the cluster-state bucket ${name}`, replicas, err);
        throw err;
      }
    };
    const kv = await openBucket(bucket);
    const ringKv = await openBucket(ringBucket);
    const onError = opts.onError ?? ((err: unknown, where: string) => console.error(`cluster-state: ${where}:`, err));
    return new NatsKvClusterState(kv, ringKv, jetstream(nc), jsm, bucket, ringBucket, onError);
  }

  async putNode(record: NodeRecord): Promise<void> {
    await this.kv.put(keys.node(record.id), json(record));
  }

  async deleteNode(id: string): Promise<void> {
    await this.kv.delete(keys.node(id));
  }

  async listNodes(): Promise<NodeRecord[]> {
    // The key names come from the bucket stream's subject list (stream info with a subject filter) and
    // each record from a direct get: both are answered by the stream itself, while kv.keys() would create
    // a consumer, which a clustered JetStream cannot do without its meta leader (in a supercluster of
    // regions, while one region's server is down), so membership stays readable through such an outage.
    const prefix = `$KV.${this.bucket}.`;
    const entries = await unavailableIfFails("the node records", async () => {
      const info = await this.jsm.streams.info(`KV_${this.bucket}`, { subjects_filter: `${prefix}${keys.nodePrefix}>` });
      const names = Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
      return Promise.all(names.map((k) => this.kv.get(k)));
    });
    const nodes: NodeRecord[] = [];
    for (const e of entries) {
      if (!isLive(e)) continue; // deleted between keys() and get()
      try {
        nodes.push(e.json<NodeRecord>());
      } catch (err) {
        // One corrupt record must not hide every other node from the coordinator.
        this.onError(err, `node record ${e.key} (revision ${e.revision}) is not JSON; skipped`);
      }
    }
    return nodes;
  }

  async getNode(id: string): Promise<NodeRecord | undefined> {
    // A direct get: any replica answers, so a node can read its own record while the bucket elects a leader.
    const e = await unavailableIfFails(`the record of node ${id}`, () => this.kv.get(keys.node(id)));
    return isLive(e) ? e.json<NodeRecord>() : undefined;
  }

  async nodeHistory(id: string): Promise<NodeRecord[]> {
    const key = keys.node(id);
    // The history is read up to the key's revision now, not until the iterator ends by itself: it ends when
    // the consumer's pending count reaches 0, and on nats-server 2.9.10 a key rewritten several times in a
    // row while its history is read (a frontier node announcing its partitions as they are prepared) keeps
    // that count at 4 on every later entry, so the read never ended (seen: the coordinator's loop hung in
    // it; reproduced in kv-cluster-state.test.ts).
    const current = await unavailableIfFails(`the record of node ${id}`, () => this.kv.get(key));
    if (!isLive(current)) return [];
    const records: NodeRecord[] = [];
    const history = await unavailableIfFails(`the history of node ${id}`, () => this.kv.history({ key }));
    try {
      for await (const e of history) {
        if (!isLive(e)) {
          records.length = 0; // deleted: what came before belongs to an earlier life of the id
        } else {
          try {
            records.push(e.json<NodeRecord>());
          } catch (err) {
            this.onError(err, `node record ${e.key} (revision ${e.revision}) is not JSON; skipped`);
          }
        }
        if (e.revision >= current.revision) break;
      }
    } finally {
      history.stop();
    }
    return records;
  }

  async getRing(): Promise<{ ring: RingRecord; revision: number } | undefined> {
    // From the stream leader: what the next compare-and-set is checked against.
    const m = await unavailableIfFails("the ring", () => this.jsm.streams.getMessage(this.ringStream, { last_by_subj: this.ringSubject }));
    if (!m || m.header?.get("KV-Operation")) return undefined; // never written, or a delete marker
    return { ring: JSON.parse(decoder.decode(m.data)) as RingRecord, revision: m.seq };
  }

  async casRing(ring: RingRecord, revision: number): Promise<number | undefined> {
    try {
      if (revision === 0) return await this.ringKv.create(keys.ring, json(ring));
      // The stream's last sequence, not the key's: see the module comment.
      return (await this.js.publish(this.ringSubject, json(ring), { expect: { lastSequence: revision } })).seq;
    } catch (err) {
      if (isWrongLastSequence(err)) return undefined;
      throw err;
    }
  }

  watchRing(onRing: (ring: RingRecord, revision: number) => void): () => void {
    return this.watchKey(this.ringKv, keys.ring, "ring", (e) => onRing(e.json<RingRecord>(), e.revision));
  }

  watchNodes(onChange: (change: NodeChange) => void): () => void {
    const prefix = keys.nodePrefix;
    // Headers only: the change is what is wanted, not the record (a frontier node's carries its host report).
    return this.watchKey(
      this.kv,
      `${prefix}>`,
      "node records",
      (e) => onChange({ id: e.key.slice(prefix.length), kind: e.operation === "PUT" ? "put" : "delete" }),
      { deletes: true, headersOnly: true },
    );
  }

  async addScopeRoots(hosts: readonly string[]): Promise<void> {
    await Promise.all([...new Set(hosts)].map((host) => this.kv.put(keys.scopeRoot(host), json({ host } satisfies ScopeRoot))));
  }

  watchScopeRoots(onRoots: (hosts: string[]) => void): () => void {
    return this.watchKey(this.kv, `${keys.scopeRootPrefix}>`, "scope roots", (e) => {
      const { host } = e.json<ScopeRoot>();
      if (typeof host === "string") onRoots([host]);
    });
  }

  /**
   * Watches a key (or a `prefix.>` of keys): the current value first (LastValue), then every later write,
   * each PUT once, in order; with `deletes`, every later delete or purge too (not the markers of keys
   * deleted before the watch began: they are not present). After a failure the watch restarts with a
   * backoff, resuming after the last revision delivered, so nothing is skipped and nothing repeated.
   */
  private watchKey(
    kv: KV,
    key: string,
    what: string,
    onEntry: (e: KvEntry) => void,
    opts: { deletes?: boolean; headersOnly?: boolean } = {},
  ): () => void {
    let stopped = false;
    let stopIterator: (() => void) | undefined;
    let wake: (() => void) | undefined;
    const stop = () => {
      stopped = true;
      stopIterator?.();
      wake?.();
      this.watchers.delete(stop);
    };
    this.watchers.add(stop);
    let last = 0;
    const watchOnce = async () => {
      const resumed = last > 0;
      const headers_only = opts.headersOnly ?? false;
      const iter = await kv.watch(resumed ? { key, headers_only, resumeFromRevision: last + 1 } : { key, headers_only });
      stopIterator = () => iter.stop();
      if (stopped) return iter.stop();
      for await (const e of iter) {
        if (stopped) break;
        // A fresh watch's first entries are the keys' last values: a delete marker there is a key not present.
        const wanted = e.operation === "PUT" || (opts.deletes === true && (resumed || e.isUpdate));
        if (e.revision <= last) continue;
        last = e.revision;
        if (!wanted) continue;
        try {
          onEntry(e);
        } catch (err) {
          this.onError(err, `${what} watcher callback (revision ${e.revision})`);
        }
      }
    };
    void (async () => {
      let retryMs = 250;
      while (!stopped) {
        try {
          await watchOnce();
          if (stopped) return;
          this.onError(new Error("watch ended"), `${what} watch (restarting in ${retryMs} ms)`);
        } catch (err) {
          if (stopped) return;
          this.onError(err, `${what} watch (restarting in ${retryMs} ms)`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        retryMs = Math.min(retryMs * 2, 5_000);
      }
    })();
    return stop;
  }

  async acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<boolean> {
    const key = keys.lease(name);
    const value = json({ holder, expiresAt: now + ttlMs } satisfies Lease);
    const current = await this.kv.get(key);
    try {
      if (!isLive(current)) {
        await this.kv.create(key, value);
        return true;
      }
      const lease = current.json<Lease>();
      if (lease.holder !== holder && lease.expiresAt > now) return false;
      await this.kv.update(key, value, current.revision);
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    for (const stop of [...this.watchers]) stop();
  }
}

/** Runs a read against NATS; whatever it fails with becomes UnavailableError (the caller may retry later). */
async function unavailableIfFails<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw stateUnavailable(what, err);
  }
}

function isLive(e: KvEntry | null): e is KvEntry {
  return e !== null && e.operation === "PUT";
}

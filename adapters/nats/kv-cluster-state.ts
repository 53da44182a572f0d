/**
 * ClusterState over a NATS KV bucket (CLUSTER_BUCKET): node records under `nodes.<id>`, the ring under
 * `ring`, leases under `lease.<name>`, the scope's roots under `scope.<host>` (one key each), all JSON. Revisions are the bucket's stream sequences, so
 * compare-and-set is JetStream's "expected last subject sequence": `kv.create` for revision 0 and
 * `kv.update(key, value, revision)` otherwise; a wrong-last-sequence answer means another writer won, and
 * is reported as undefined (ring) or false (lease), never as an error.
 *
 * On a clustered bucket (replicas > 1) nats-server before 2.9.21 checks the expected sequence only on the
 * stream leader, before proposing the write, against what it has applied so far: two updates in flight at
 * once, both naming the same revision, are then both accepted, and the later one silently undoes the
 * earlier (Debian's 2.9.10 does this; a single server checks while storing and is not affected). A frontier
 * node receiving many partitions at once marks each handed over concurrently, so this object's ring writes
 * go one at a time: each is acknowledged (applied by the leader) before the next one's check.
 *
 * The connection is borrowed: close() stops this object's watchers but leaves the connection open.
 */
import type { NatsConnection } from "@nats-io/nats-core";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV, type KvEntry } from "@nats-io/kv";
import { CLUSTER_BUCKET, keys, type NodeRecord, type RingRecord } from "../../core/cluster/index.ts";
import { type ClusterState } from "../../core/ports/index.ts";
import { isReplicasUnsupported, isWrongLastSequence, replicasError } from "./errors.ts";

export interface NatsKvClusterStateOptions {
  /** Bucket name; default CLUSTER_BUCKET. */
  bucket?: string;
  /** Revisions kept per key (for debugging a ring's history). Default 5. */
  history?: number;
  /**
   * Copies JetStream keeps of the bucket: 1 (default), 3 on a region's 3-server cluster. An existing
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
const json = (value: unknown) => encoder.encode(JSON.stringify(value));

export class NatsKvClusterState implements ClusterState {
  private readonly watchers = new Set<() => void>();
  /** The ring write under way: the next one waits for it (see the module comment). */
  private ringWrites: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    private readonly onError: (err: unknown, where: string) => void,
  ) {}

  /** Opens the bucket, creating it (file storage) when missing, with `replicas` copies. */
  static async open(nc: NatsConnection, opts: NatsKvClusterStateOptions = {}): Promise<NatsKvClusterState> {
    const bucket = opts.bucket ?? CLUSTER_BUCKET;
    const replicas = opts.replicas ?? 1;
    let kv: KV;
    let jsm: JetStreamManager;
    try {
      kv = await new Kvm(nc).create(bucket, { history: opts.history ?? 5, replicas });
      // create() binds to an existing bucket as it is: bring its replica count in line.
      jsm = await jetstreamManager(nc);
      const info = await jsm.streams.info(`KV_${bucket}`);
      if (info.config.num_replicas !== replicas) await jsm.streams.update(info.config.name, { ...info.config, num_replicas: replicas });
    } catch (err) {
      if (isReplicasUnsupported(err)) throw replicasError(`the cluster-state bucket ${bucket}`, replicas, err);
      throw err;
    }
    return new NatsKvClusterState(kv, jsm, bucket, opts.onError ?? ((err, where) => console.error(`cluster-state: ${where}:`, err)));
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
    const info = await this.jsm.streams.info(`KV_${this.bucket}`, { subjects_filter: `${prefix}${keys.nodePrefix}>` });
    const names = Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
    const entries = await Promise.all(names.map((k) => this.kv.get(k)));
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

  async nodeHistory(id: string): Promise<NodeRecord[]> {
    const records: NodeRecord[] = [];
    for await (const e of await this.kv.history({ key: keys.node(id) })) {
      if (!isLive(e)) {
        records.length = 0; // deleted: what came before belongs to an earlier life of the id
        continue;
      }
      try {
        records.push(e.json<NodeRecord>());
      } catch (err) {
        this.onError(err, `node record ${e.key} (revision ${e.revision}) is not JSON; skipped`);
      }
    }
    return records;
  }

  async getRing(): Promise<{ ring: RingRecord; revision: number } | undefined> {
    const e = await this.kv.get(keys.ring);
    return isLive(e) ? { ring: e.json<RingRecord>(), revision: e.revision } : undefined;
  }

  casRing(ring: RingRecord, revision: number): Promise<number | undefined> {
    const write = this.ringWrites.then(() => this.casRingNow(ring, revision));
    this.ringWrites = write.catch(() => {});
    return write;
  }

  private async casRingNow(ring: RingRecord, revision: number): Promise<number | undefined> {
    try {
      return revision === 0 ? await this.kv.create(keys.ring, json(ring)) : await this.kv.update(keys.ring, json(ring), revision);
    } catch (err) {
      if (isWrongLastSequence(err)) return undefined;
      throw err;
    }
  }

  watchRing(onRing: (ring: RingRecord, revision: number) => void): () => void {
    return this.watchKey(keys.ring, "ring", (e) => onRing(e.json<RingRecord>(), e.revision));
  }

  async addScopeRoots(hosts: readonly string[]): Promise<void> {
    await Promise.all([...new Set(hosts)].map((host) => this.kv.put(keys.scopeRoot(host), json({ host } satisfies ScopeRoot))));
  }

  watchScopeRoots(onRoots: (hosts: string[]) => void): () => void {
    return this.watchKey(`${keys.scopeRootPrefix}>`, "scope roots", (e) => {
      const { host } = e.json<ScopeRoot>();
      if (typeof host === "string") onRoots([host]);
    });
  }

  /**
   * Watches a key (or a `prefix.>` of keys): the current value first (LastValue), then every later write,
   * each PUT once, in order. After a failure the watch restarts with a backoff, resuming after the last
   * revision delivered, so nothing is skipped and nothing repeated.
   */
  private watchKey(key: string, what: string, onEntry: (e: KvEntry) => void): () => void {
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
      const iter = await this.kv.watch(last > 0 ? { key, resumeFromRevision: last + 1 } : { key });
      stopIterator = () => iter.stop();
      if (stopped) return iter.stop();
      for await (const e of iter) {
        if (stopped) break;
        if (e.operation !== "PUT" || e.revision <= last) continue;
        last = e.revision;
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

function isLive(e: KvEntry | null): e is KvEntry {
  return e !== null && e.operation === "PUT";
}

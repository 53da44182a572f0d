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
 * Requests and the connection (connection-watch.ts): nats.js neither fails a request whose connection
 * drops under it nor sends one written while it is disconnected (it discards that buffer when it dials
 * again); either runs into its 5 s timeout, seconds after the connection is back. For a heartbeat that is
 * silence the coordinator counts: a beat sent to a frozen server that was then killed and restarted failed
 * 5 s after it was sent, and the next one was written 3.7-4.9 s after the reconnect, so a region's frontier
 * node stayed silent for its region's NATS outage (6.3-6.7 s) plus that, was declared dead, and the pages
 * it had handed out meanwhile were fetched again (tests/e2e/cluster/two-regions-crawl-their-own-hosts-...,
 * 4 runs of 6). So every request here fails at once when its connection drops (its outcome unknown, as
 * after a timeout: the caller retries), and one made while the connection is down waits for it, up to the
 * request timeout, and is sent the moment it is back. Either failure is UnavailableError (retry later). A
 * node record read also has a short first try (see getNode).
 *
 * The connection is borrowed: close() stops this object's watchers but leaves the connection open.
 */
import { TimeoutError, type NatsConnection } from "@nats-io/nats-core";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV, type KvEntry } from "@nats-io/kv";
import { CLUSTER_BUCKET, keys, RING_BUCKET, type NodeRecord, type RingRecord } from "../../core/cluster/index.ts";
import { UnavailableError } from "../../core/errors/index.ts";
import type { JobRecord } from "../../core/jobs/index.ts";
import { type ClusterState, type NodeChange } from "../../core/ports/index.ts";
import { ConnectionWatch } from "./connection-watch.ts";
import { BusUnavailableError, isReplicasUnsupported, isWrongLastSequence, replicasError, stateUnavailable } from "./errors.ts";

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

/**
 * How long a request made while the connection is down waits for it before failing: nats.js's request
 * timeout, the most such a request could take before (it was discarded and timed out).
 */
const DOWN_WAIT_MS = 5_000;
/** The first try of a node record read (see getNode); the second gets the usual 5 s. */
const FIRST_TRY_MS = 1_000;

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
    private readonly kvFirstTry: KV,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    ringBucket: string,
    private readonly onError: (err: unknown, where: string) => void,
    private readonly connection: ConnectionWatch,
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
    // The same bucket, its requests timing out after FIRST_TRY_MS: the first try of a node record read.
    const firstTry = await new Kvm(jetstream(nc, { timeout: FIRST_TRY_MS })).open(bucket, {
      allow_direct: (await jsm.streams.info(`KV_${bucket}`)).config.allow_direct,
    });
    const onError = opts.onError ?? ((err: unknown, where: string) => console.error(`cluster-state: ${where}:`, err));
    return new NatsKvClusterState(kv, ringKv, firstTry, jetstream(nc), jsm, bucket, ringBucket, onError, new ConnectionWatch(nc));
  }

  /**
   * Runs `request` once the connection is up (waiting for it up to DOWN_WAIT_MS), and fails it at once if
   * the connection drops before it settles (see the module comment). Failures for want of a connection
   * are UnavailableError; the request's own errors pass unchanged.
   */
  private async send<T>(what: string, verb: "read" | "written", request: () => Promise<T>): Promise<T> {
    if (!(await this.connection.whenUp(DOWN_WAIT_MS)))
      throw stateUnavailable(what, new Error(`NATS stayed disconnected for ${DOWN_WAIT_MS} ms (reconnecting); not sent`), verb);
    try {
      return await this.connection.run(request, what);
    } catch (err) {
      if (err instanceof BusUnavailableError) throw stateUnavailable(what, err, verb);
      throw err;
    }
  }

  async putNode(record: NodeRecord): Promise<void> {
    await this.send(`the record of node ${record.id}`, "written", () => this.kv.put(keys.node(record.id), json(record)));
  }

  async deleteNode(id: string): Promise<void> {
    await this.send(`the record of node ${id}`, "written", () => this.kv.delete(keys.node(id)));
  }

  async listNodes(): Promise<NodeRecord[]> {
    return this.listRecords<NodeRecord>(keys.nodePrefix, "node");
  }

  /**
   * Every live record under `keyPrefix`. The key names come from the bucket stream's subject list (stream
   * info with a subject filter) and each record from a direct get: both are answered by the stream itself,
   * while kv.keys() would create a consumer, which a clustered JetStream cannot do without its meta leader
   * (in a supercluster of regions, while one region's server is down), so membership and jobs stay
   * readable through such an outage. A record that is not JSON is reported and skipped: one corrupt record
   * must not hide every other.
   */
  private async listRecords<T>(keyPrefix: string, what: string): Promise<T[]> {
    const prefix = `$KV.${this.bucket}.`;
    const entries = await unavailableIfFails(`the ${what} records`, () =>
      this.send(`the ${what} records`, "read", async () => {
        const info = await this.jsm.streams.info(`KV_${this.bucket}`, { subjects_filter: `${prefix}${keyPrefix}>` });
        const names = Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
        return Promise.all(names.map((k) => this.kv.get(k)));
      }),
    );
    const records: T[] = [];
    for (const e of entries) {
      if (!isLive(e)) continue; // deleted between the subject list and the get
      try {
        records.push(e.json<T>());
      } catch (err) {
        this.onError(err, `${what} record ${e.key} (revision ${e.revision}) is not JSON; skipped`);
      }
    }
    return records;
  }

  async getNode(id: string): Promise<NodeRecord | undefined> {
    // A direct get: any replica answers, so a node can read its own record while the bucket elects a leader.
    // Tried for FIRST_TRY_MS, then once more with the usual timeout: a direct get sent to a server just
    // restarted, before its gateways are up, is dropped without an answer when the bucket is in another
    // region (a publish is refused at once instead: no stream listens). That window is about a second after
    // the server's start; a read that waited out 5 s in it held a frontier node's heartbeat (this read is
    // its drain-mark check) 5 s past its region's NATS restart.
    const key = keys.node(id);
    const e = await unavailableIfFails(`the record of node ${id}`, () =>
      this.send(`the record of node ${id}`, "read", () =>
        this.kvFirstTry.get(key).catch((err: unknown) => {
          if (err instanceof TimeoutError) return this.kv.get(key);
          throw err;
        }),
      ),
    );
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
    const m = await unavailableIfFails("the ring", () =>
      this.send("the ring", "read", () => this.jsm.streams.getMessage(this.ringStream, { last_by_subj: this.ringSubject })),
    );
    if (!m || m.header?.get("KV-Operation")) return undefined; // never written, or a delete marker
    return { ring: JSON.parse(decoder.decode(m.data)) as RingRecord, revision: m.seq };
  }

  async casRing(ring: RingRecord, revision: number): Promise<number | undefined> {
    try {
      if (revision === 0) return await this.send("the first ring", "written", () => this.ringKv.create(keys.ring, json(ring)));
      // The stream's last sequence, not the key's: see the module comment.
      return (
        await this.send("the ring", "written", () => this.js.publish(this.ringSubject, json(ring), { expect: { lastSequence: revision } }))
      ).seq;
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
    await this.send("the scope roots", "written", () =>
      Promise.all([...new Set(hosts)].map((host) => this.kv.put(keys.scopeRoot(host), json({ host } satisfies ScopeRoot)))),
    );
  }

  watchScopeRoots(onRoots: (hosts: string[]) => void): () => void {
    return this.watchKey(this.kv, `${keys.scopeRootPrefix}>`, "scope roots", (e) => {
      const { host } = e.json<ScopeRoot>();
      if (typeof host === "string") onRoots([host]);
    });
  }

  async getJob(id: string): Promise<{ job: JobRecord; revision: number } | undefined> {
    const e = await unavailableIfFails(`the record of job ${id}`, () =>
      this.send(`the record of job ${id}`, "read", () => this.kv.get(keys.job(id))),
    );
    return isLive(e) ? { job: e.json<JobRecord>(), revision: e.revision } : undefined;
  }

  async listJobs(): Promise<JobRecord[]> {
    return this.listRecords<JobRecord>(keys.jobPrefix, "job");
  }

  async casJob(job: JobRecord, revision: number): Promise<number | undefined> {
    const key = keys.job(job.id);
    try {
      // A job is written only by the lease holder, one call at a time, so the key's own revision check
      // (kv.update) is enough here, unlike the ring's (module comment).
      if (revision === 0) return await this.send(`the record of job ${job.id}`, "written", () => this.kv.create(key, json(job)));
      return await this.send(`the record of job ${job.id}`, "written", () => this.kv.update(key, json(job), revision));
    } catch (err) {
      if (isWrongLastSequence(err)) return undefined;
      throw err;
    }
  }

  watchJobs(onJob: (job: JobRecord) => void): () => void {
    return this.watchKey(this.kv, `${keys.jobPrefix}>`, "job records", (e) => onJob(e.json<JobRecord>()));
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

  async acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<number | false> {
    const key = keys.lease(name);
    const value = json({ holder, expiresAt: now + ttlMs } satisfies Lease);
    const current = await this.send(`the lease ${name}`, "read", () => this.kv.get(key));
    try {
      // The write's revision is the bucket's sequence: higher than any write before it.
      if (!isLive(current)) return await this.send(`the lease ${name}`, "written", () => this.kv.create(key, value));
      const lease = current.json<Lease>();
      if (lease.holder !== holder && lease.expiresAt > now) return false;
      return await this.send(`the lease ${name}`, "written", () => this.kv.update(key, value, current.revision));
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    for (const stop of [...this.watchers]) stop();
    this.connection.stop();
  }
}

/** Runs a read against NATS; whatever it fails with becomes UnavailableError (the caller may retry later). */
async function unavailableIfFails<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof UnavailableError) throw err;
    throw stateUnavailable(what, err);
  }
}

function isLive(e: KvEntry | null): e is KvEntry {
  return e !== null && e.operation === "PUT";
}

/**
 * A frontier node's replicated partition state (docs/cluster.md, "Replicated partition state"): the
 * publisher sends the store's change journal to the replica, the snapshotter stores snapshots and trims
 * the log, and `prepare` decides, each time the node starts serving a partition, where that partition's
 * rows come from. The decision, from the partition's last claim in the replica and this store's record:
 *
 *   continued  the last claim is this store's, under the epoch it still writes: the local rows are the
 *              newest (its rows not yet sent go on to the log after the others). A node restarted with its
 *              own disk lands here: nothing is rolled back, nothing applied twice.
 *   claimed    the partition was just handed over by its previous holder (which sent its last rows to the
 *              log before streaming it): claim it and carry on from the imported rows.
 *   adopted    never claimed by anyone (a new cluster, or a store from before replication): claim it with
 *              the local rows as they are, after sending those rows, and snapshot it soon.
 *   restored   another store claimed it last, or this store no longer holds its copy: empty the partition
 *              locally, claim it (so every late write of a former holder is fenced off), then rebuild it
 *              from the snapshot and the log up to that claim.
 *
 * Nothing of the partition is served until `prepare` resolves.
 */
import type { ClaimEntry, PartitionReplica, ReplicaWriter } from "../../core/ports/index.ts";
import type { Log } from "../../kit/log/index.ts";
import type { ChangeJournal, FrontierStore } from "../../engine/frontier/index.ts";
import { StatePublisher } from "./publisher.ts";
import { restorePartition, type RestoreReport } from "./restore.ts";
import { Snapshotter } from "./snapshots.ts";

export interface ReplicatorOptions {
  nodeId: string;
  region: string;
  store: FrontierStore;
  replica: PartitionReplica;
  snapshotIntervalMs: number;
  rowsPerSnapshot: number;
  /** How long a partition's new journal rows wait for later ones before they are sent. Default 0. */
  lingerMs?: number;
  /** When node `id` was last seen alive (its record's last heartbeat), if known. */
  lastSeen: (id: string) => Promise<number | undefined>;
  log: Log;
  now: () => number;
}

export type Preparation =
  | { outcome: "continued" | "claimed" | "adopted" }
  | { outcome: "restored"; report: RestoreReport; from: ClaimEntry; lostAt: number };

export class Replicator {
  readonly writer: ReplicaWriter;
  private readonly journal: ChangeJournal;
  private readonly publisher: StatePublisher;
  private readonly snapshotter: Snapshotter;
  /** Partitions this node writes now (prepared and served). */
  private readonly writing = new Set<number>();
  private readonly startedAt: number;
  readonly counts = { continued: 0, claimed: 0, adopted: 0, restored: 0, restoredRows: 0, restoreMs: 0 };

  constructor(private readonly opts: ReplicatorOptions) {
    if (!opts.store.journal) throw new Error("replicated partition state needs a store opened with journal: true");
    this.journal = opts.store.journal;
    this.writer = { node: opts.nodeId, store: opts.store.id };
    this.startedAt = opts.now();
    const common = {
      store: opts.store,
      journal: this.journal,
      replica: opts.replica,
      region: opts.region,
      writer: this.writer,
      now: opts.now,
    };
    this.publisher = new StatePublisher({ ...common, lingerMs: opts.lingerMs, log: opts.log.child("publisher") });
    this.snapshotter = new Snapshotter({
      ...common,
      writing: () => this.writing,
      intervalMs: opts.snapshotIntervalMs,
      rowsPerSnapshot: opts.rowsPerSnapshot,
      log: opts.log.child("snapshots"),
    });
  }

  /** Sets up the region's replica and starts sending whatever the journal still holds. */
  async start(): Promise<void> {
    await this.opts.replica.ensureRegion(this.opts.region);
    this.publisher.start();
    this.snapshotter.start();
  }

  /** Where partition p's rows come from before it is served (see the module comment). */
  async prepare(p: number, handedIn: boolean): Promise<Preparation> {
    const { replica, region, store, log } = this.opts;
    const local = this.journal.state(p);
    const last = await replica.lastClaim(region, p);
    if (!handedIn && last && local && local.epoch === last.seq && last.writer.store === store.id) {
      this.counts.continued++;
      return { outcome: "continued" };
    }
    if (handedIn) {
      // The import replaced p's rows; rows this store wrote in an earlier tenure are not p's any more.
      this.dropRows(p);
      await this.claim(p);
      this.snapshotter.force(p);
      this.counts.claimed++;
      return { outcome: "claimed" };
    }
    if (!last) {
      await this.publisher.flushed(p);
      await this.claim(p);
      this.snapshotter.force(p);
      this.counts.adopted++;
      return { outcome: "adopted" };
    }
    this.dropRows(p);
    store.tx(() => store.deletePartition(p));
    // The claim is recorded locally only once the rows are rebuilt: a restore cut short is done again.
    const seq = await this.claim(p, { record: false });
    const report = await restorePartition(replica, region, store, p, seq - 1);
    store.tx(() => this.journal.setEpoch(p, seq));
    if (report.applied + report.snapshotRows > this.opts.rowsPerSnapshot) this.snapshotter.force(p);
    // The former holder was lost at its last sign of life; this store's own earlier self, before this run.
    const seen = last.writer.store === store.id ? this.startedAt : await this.opts.lastSeen(last.writer.node).catch(() => undefined);
    const lostAt = Math.min(seen ?? this.opts.now(), this.opts.now());
    this.counts.restored++;
    this.counts.restoredRows += report.applied + report.snapshotRows;
    this.counts.restoreMs += report.ms;
    if (report.gaps > 0 || report.damaged > 0) {
      log.warn("partition restored with holes: rows were missing or unreadable in the replica", { partition: p, ...report });
    }
    return { outcome: "restored", report, from: last, lostAt };
  }

  /**
   * Whether this store holds partition p's current copy, the one a handoff may give: p's latest claim in
   * the replica is this store's, under the epoch this store writes p (what `prepare` calls continued), or
   * p was never claimed (its rows, if any, predate replication). False for a store that gave p away, was
   * fenced off by a later claim, or never prepared p: streaming its rows would replace the receiver's.
   */
  async holds(p: number): Promise<boolean> {
    const last = await this.opts.replica.lastClaim(this.opts.region, p);
    if (!last) return true;
    const local = this.journal.state(p);
    return local !== undefined && local.epoch === last.seq && last.writer.store === this.opts.store.id;
  }

  /** Partition p is served from now on (after `prepare`). */
  serving(p: number): void {
    this.writing.add(p);
  }

  /** Partition p is no longer served here (moved away; a handoff may still follow). */
  released(p: number): void {
    this.writing.delete(p);
    this.snapshotter.forget(p);
  }

  /** The last journal row of p now; `whenStored` of it says when everything committed so far is replicated. */
  lastRow(p: number): number {
    return this.journal.last(p);
  }

  whenStored(p: number, n: number): Promise<void> {
    return this.publisher.whenStored(p, n);
  }

  /** Resolves once every row of p committed so far is in the replica (before handing p over). */
  flushed(p: number): Promise<void> {
    return this.publisher.flushed(p);
  }

  /** p was handed over and deleted here: this store holds no copy of it any more. */
  gaveAway(p: number): void {
    this.released(p);
    this.dropRows(p);
  }

  /** Takes a snapshot of p now (tests, benchmarks). */
  snapshot(p: number): Promise<void> {
    return this.snapshotter.take(p);
  }

  gauges(): Record<string, number> {
    return { ...this.publisher.gauges(), "replication.partitions-written": this.writing.size };
  }

  counters(): Record<string, number> {
    const c = this.publisher.counts;
    return {
      "replication.messages": c.messages,
      "replication.rows": c.rows,
      "replication.bytes": c.bytes,
      "replication.send-failures": c.failures,
      "replication.snapshots": this.snapshotter.counts.snapshots,
      "replication.snapshot-failures": this.snapshotter.counts.failures,
      "replication.partitions.continued": this.counts.continued,
      "replication.partitions.claimed": this.counts.claimed,
      "replication.partitions.adopted": this.counts.adopted,
      "replication.partitions.restored": this.counts.restored,
      "replication.restored-rows": this.counts.restoredRows,
    };
  }

  /** Stops sending and snapshotting; rows not sent stay in the journal for the next start. */
  async stop(graceMs = 5_000): Promise<void> {
    await this.snapshotter.stop();
    await this.publisher.stop(graceMs);
  }

  private async claim(p: number, opts = { record: true }): Promise<number> {
    const seq = await this.opts.replica.claim(this.opts.region, p, this.writer, this.journal.last(p));
    if (opts.record) this.opts.store.tx(() => this.journal.setEpoch(p, seq));
    return seq;
  }

  private dropRows(p: number): void {
    this.opts.store.tx(() => this.journal.drop(p));
    this.publisher.forget(p);
  }
}

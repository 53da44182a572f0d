/**
 * The replica of each partition's frontier state, kept outside any one frontier node so a partition survives
 * the loss of its node's disk (docs/cluster.md, "Replicated partition state"). Per partition it holds one
 * ordered log of entries and at most one snapshot:
 *
 *  - a **claim** says "from here on, the partition is written by store S": whoever starts holding a
 *    partition without receiving it from its previous holder claims it first; batches of any other
 *    writer after a claim no longer count;
 *  - a **batch** carries journal rows of one store (numbered per partition: first..last) written under one
 *    claim (its `epoch`: the claim's sequence);
 *  - a **snapshot** is the partition's rows as one store saw them, with the point of the log to replay from.
 *
 * The in-process implementation is adapters/memory (tests); the networked one is adapters/nats (a
 * JetStream stream with file storage and the configured replicas, and JetStream's object store).
 */

/** Who wrote an entry: a node, and the store it wrote from (a node that lost its disk has a new store). */
export interface ReplicaWriter {
  node: string;
  store: string;
}

export interface ClaimEntry {
  kind: "claim";
  /** The log's sequence of this entry (also the epoch of every batch written under this claim). */
  seq: number;
  writer: ReplicaWriter;
  /** The writer's last journal row number for this partition when it claimed (its next is after + 1). */
  after: number;
}

export interface BatchEntry {
  kind: "batch";
  seq: number;
  writer: ReplicaWriter;
  /** The sequence of the claim the rows were written under (0: before any claim). */
  epoch: number;
  /** Journal row numbers carried, first to last (consecutive). */
  first: number;
  last: number;
  /** The rows: a JSON array of [n, changes] pairs. */
  body: string;
}

export type ReplicaEntry = ClaimEntry | BatchEntry;

/** What a snapshot covers: the rows of `writer` under `epoch` up to journal row `n`; replay the log from `fromSeq`. */
export interface SnapshotInfo {
  writer: ReplicaWriter;
  epoch: number;
  n: number;
  fromSeq: number;
  /** When it was taken (epoch ms), for status and logs. */
  takenAt: number;
}

/**
 * Contract:
 *  - `claim` and `append` resolve with the entry's sequence once it is stored durably, and reject
 *    otherwise; sequences grow with the order in which entries were stored. Appending a batch again with
 *    the same writer, epoch, first and last row, within the duplicate window, stores it once and resolves
 *    with the first copy's sequence; a batch with other rows is another batch.
 *  - `lastClaim` is the partition's latest claim, or undefined when it was never claimed.
 *  - `read(region, p, from, to)` yields the partition's entries with from ≤ seq ≤ to, in sequence order,
 *    and ends; entries trimmed away are simply not there.
 *  - `putSnapshot` replaces the partition's snapshot only once all of it is stored (a reader sees the old
 *    one or the new one, whole); `getSnapshot` returns the latest, chunks in the order they were put.
 *  - `trim(region, p, before)` forgets the partition's batches with seq < before, and its claims before
 *    that too except the latest claim.
 *  - Partitions and regions are independent; `ensureRegion` (idempotent) must have run for a region first.
 */
export interface PartitionReplica {
  ensureRegion(region: string): Promise<void>;
  claim(region: string, partition: number, writer: ReplicaWriter, after: number): Promise<number>;
  lastClaim(region: string, partition: number): Promise<ClaimEntry | undefined>;
  append(region: string, partition: number, batch: Omit<BatchEntry, "kind" | "seq">): Promise<number>;
  read(region: string, partition: number, fromSeq: number, toSeq: number): AsyncIterable<ReplicaEntry>;
  putSnapshot(region: string, partition: number, info: SnapshotInfo, chunks: AsyncIterable<string>): Promise<void>;
  getSnapshot(region: string, partition: number): Promise<{ info: SnapshotInfo; chunks: AsyncIterable<string> } | undefined>;
  trim(region: string, partition: number, beforeSeq: number): Promise<void>;
  close(): Promise<void>;
}

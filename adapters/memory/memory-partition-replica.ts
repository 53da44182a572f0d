/**
 * The in-process PartitionReplica: each region's log in one array (sequences shared by the region's
 * partitions, as in one JetStream stream) and each partition's snapshot as its list of chunks, with the
 * same duplicate-window and trim semantics as the NATS implementation. Used by the frontier node's tests
 * (a node "loses its disk" and another restores from here) and as the reference of the contract suite.
 */
import type { BatchEntry, ClaimEntry, PartitionReplica, ReplicaEntry, ReplicaWriter, SnapshotInfo } from "../../core/ports/index.ts";

interface Stored {
  partition: number;
  entry: ReplicaEntry;
}

interface Region {
  entries: Stored[];
  seq: number;
  /** Batch ids seen (writer store, epoch, first) -> the sequence of the first copy. */
  dedup: Map<string, number>;
  snapshots: Map<number, { info: SnapshotInfo; chunks: string[] }>;
}

export class MemoryPartitionReplica implements PartitionReplica {
  private readonly regions = new Map<string, Region>();
  /** Entries appended, over every region (tests count them). */
  appended = 0;
  /** While set, every append and claim rejects with it (a replica that is down). */
  failWith: Error | undefined;
  /** Appends stored whose answer is then lost (the caller sees a timeout), counted down. */
  lostAcks = 0;

  async ensureRegion(region: string): Promise<void> {
    if (!this.regions.has(region)) this.regions.set(region, { entries: [], seq: 0, dedup: new Map(), snapshots: new Map() });
  }

  async claim(region: string, partition: number, writer: ReplicaWriter, after: number): Promise<number> {
    const r = this.region(region);
    this.check();
    const seq = ++r.seq;
    r.entries.push({ partition, entry: { kind: "claim", seq, writer: { ...writer }, after } });
    this.appended++;
    return seq;
  }

  async lastClaim(region: string, partition: number): Promise<ClaimEntry | undefined> {
    const r = this.region(region);
    for (let i = r.entries.length - 1; i >= 0; i--) {
      const s = r.entries[i]!;
      if (s.partition === partition && s.entry.kind === "claim") return { ...s.entry, writer: { ...s.entry.writer } };
    }
    return undefined;
  }

  async append(region: string, partition: number, batch: Omit<BatchEntry, "kind" | "seq">): Promise<number> {
    const r = this.region(region);
    this.check();
    const id = `${batch.writer.store}:${partition}:${batch.epoch}:${batch.first}-${batch.last}`;
    const known = r.dedup.get(id);
    if (known !== undefined) return known;
    const seq = ++r.seq;
    r.entries.push({ partition, entry: { kind: "batch", seq, ...batch, writer: { ...batch.writer } } });
    r.dedup.set(id, seq);
    this.appended++;
    if (this.lostAcks > 0) {
      this.lostAcks--;
      throw new Error("timeout: the batch was stored but its acknowledgement was lost");
    }
    return seq;
  }

  async *read(region: string, partition: number, fromSeq: number, toSeq: number): AsyncIterable<ReplicaEntry> {
    const r = this.region(region);
    for (const s of [...r.entries]) {
      if (s.partition !== partition || s.entry.seq < fromSeq || s.entry.seq > toSeq) continue;
      yield structuredClone(s.entry);
    }
  }

  async putSnapshot(region: string, partition: number, info: SnapshotInfo, chunks: AsyncIterable<string>): Promise<void> {
    const r = this.region(region);
    const all: string[] = [];
    for await (const c of chunks) all.push(c);
    this.check();
    r.snapshots.set(partition, { info: structuredClone(info), chunks: all });
  }

  async getSnapshot(region: string, partition: number): Promise<{ info: SnapshotInfo; chunks: AsyncIterable<string> } | undefined> {
    const snap = this.region(region).snapshots.get(partition);
    if (!snap) return undefined;
    const chunks = [...snap.chunks];
    return {
      info: structuredClone(snap.info),
      chunks: (async function* () {
        yield* chunks;
      })(),
    };
  }

  async trim(region: string, partition: number, beforeSeq: number): Promise<void> {
    const r = this.region(region);
    const latestClaim = (await this.lastClaim(region, partition))?.seq;
    r.entries = r.entries.filter(
      (s) => s.partition !== partition || s.entry.seq >= beforeSeq || (s.entry.kind === "claim" && s.entry.seq === latestClaim),
    );
  }

  /** Entries of one partition now held (tests). */
  entries(region: string, partition: number): ReplicaEntry[] {
    return this.region(region)
      .entries.filter((s) => s.partition === partition)
      .map((s) => structuredClone(s.entry));
  }

  /** Forgets everything (tests: a replica lost). */
  clear(): void {
    this.regions.clear();
  }

  async close(): Promise<void> {}

  private region(name: string): Region {
    const r = this.regions.get(name);
    if (!r) throw new Error(`partition replica: region ${name} was not set up (ensureRegion first)`);
    return r;
  }

  private check(): void {
    if (this.failWith) throw this.failWith;
  }
}

/**
 * Rebuilds one partition in the local store from its replica: the latest snapshot (imported with the queue
 * rows' own sequence numbers, since later journal rows name them), then the log from the snapshot's replay
 * point up to `untilSeq` (the claim this node just made, so nothing written after it by a former holder
 * counts), through the replay rules. The caller has emptied the partition locally and claimed it first.
 * Rows are applied in transactions of a few thousand changes, so a partition of 100k URLs restores in
 * seconds; what it cost is returned for the log and docs/cluster.md's numbers.
 */
import type { PartitionReplica } from "../../core/ports/index.ts";
import { applyChanges, BadChangeBatchError, importChunk, type FrontierStore, type HandoffChunk } from "../../engine/frontier/index.ts";
import { ReplayRules, type ReplayCounts, type ReplayRow } from "./replay-rules.ts";

export interface RestoreReport extends ReplayCounts {
  /** Rows (queued URLs, URL states, hosts) that came from the snapshot; 0 when there was none. */
  snapshotRows: number;
  /** Log entries read. */
  entries: number;
  /** Journal rows left out because they could not be read (a damaged replica). */
  damaged: number;
  ms: number;
}

/** Changes applied per transaction. */
const APPLY_BATCH = 5_000;

export async function restorePartition(
  replica: Pick<PartitionReplica, "getSnapshot" | "read">,
  region: string,
  store: FrontierStore,
  partition: number,
  untilSeq: number,
  now: () => number = () => performance.now(),
): Promise<RestoreReport> {
  const started = now();
  const snap = await replica.getSnapshot(region, partition);
  let snapshotRows = 0;
  if (snap) {
    for await (const line of snap.chunks) {
      const chunk = JSON.parse(line) as HandoffChunk;
      importChunk(store, { ...chunk, partition }, { verbatim: true });
      snapshotRows += chunk.queued.length + chunk.urls.length + chunk.hosts.length;
    }
  }
  const rules = new ReplayRules(
    snap ? { tenant: { store: snap.info.writer.store, epoch: snap.info.epoch }, last: snap.info.n } : undefined,
  );
  let pending: ReplayRow[] = [];
  let size = 0;
  let damaged = 0;
  const flush = () => {
    if (pending.length === 0) return;
    try {
      applyChanges(
        store,
        partition,
        pending.flatMap((r) => r.changes),
      );
    } catch (error) {
      if (!(error instanceof BadChangeBatchError)) throw error;
      // Nothing of the batch was written: apply its rows one by one and leave out the damaged ones.
      for (const row of pending) {
        try {
          applyChanges(store, partition, row.changes);
        } catch (rowError) {
          if (!(rowError instanceof BadChangeBatchError)) throw rowError;
          damaged++;
        }
      }
    }
    pending = [];
    size = 0;
  };
  const apply = (rows: ReplayRow[]) => {
    for (const row of rows) {
      pending.push(row);
      size += row.changes.length;
      if (size >= APPLY_BATCH) flush();
    }
  };
  let entries = 0;
  for await (const entry of replica.read(region, partition, snap?.info.fromSeq ?? 0, untilSeq)) {
    entries++;
    apply(rules.feed(entry));
  }
  apply(rules.finish());
  flush();
  return { ...rules.counts, damaged, snapshotRows, entries, ms: Math.round(now() - started) };
}

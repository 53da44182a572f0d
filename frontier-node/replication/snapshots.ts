/**
 * Periodic snapshots of the partitions this node writes, so a restore reads a snapshot and a short log
 * instead of the partition's whole history, and the log can be trimmed. One snapshot at a time per node: a
 * partition is due when `rowsPerSnapshot` journal rows were stored since its last snapshot, or `intervalMs`
 * passed with any row stored, or it was just claimed without a restore (its log may not hold its whole
 * past: adopted local rows, or a handoff from a node that replicated nothing).
 *
 * A snapshot is fuzzy and still exact after replay: it records the last row stored before the export
 * began (n, at replica sequence s; the publisher sends one message per partition at a time, so every later
 * row lands after s) and is read while the node goes on writing. Replaying the log from s + 1 onto it
 * re-applies every row the export may or may not have seen; rows are idempotent and keyed, so the result is
 * the store's state (changes.ts). Once stored, the log before s + 1 is trimmed.
 */
import type { PartitionReplica, ReplicaWriter } from "../../core/ports/index.ts";
import type { Log } from "../../kit/log/index.ts";
import { exportPartition, type ChangeJournal, type FrontierStore } from "../../engine/frontier/index.ts";

export interface SnapshotterOptions {
  store: FrontierStore;
  journal: ChangeJournal;
  replica: Pick<PartitionReplica, "putSnapshot" | "trim">;
  region: string;
  writer: ReplicaWriter;
  /** Partitions this node writes now (served and claimed). */
  writing: () => Iterable<number>;
  intervalMs: number;
  rowsPerSnapshot: number;
  /** How often due partitions are looked for. Default 1 s. */
  checkEveryMs?: number;
  log: Log;
  now: () => number;
}

interface Progress {
  /** acked row number at the last snapshot (or when first seen). */
  baseN: number;
  at: number;
  forced: boolean;
}

export class Snapshotter {
  private readonly progress = new Map<number, Progress>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  readonly counts = { snapshots: 0, rows: 0, failures: 0, lastMs: 0 };

  constructor(private readonly opts: SnapshotterOptions) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.opts.checkEveryMs ?? 1_000);
  }

  /** Takes a snapshot of p soon, whatever its progress (just claimed without a restore). */
  force(p: number): void {
    const st = this.progress.get(p);
    this.progress.set(p, { baseN: st?.baseN ?? 0, at: st?.at ?? this.opts.now(), forced: true });
  }

  /** Forget p's progress (the partition left this node). */
  forget(p: number): void {
    this.progress.delete(p);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Takes a snapshot of partition p now (tests and benchmarks; also what each tick does). */
  async take(p: number): Promise<void> {
    const { journal, store, log } = this.opts;
    const st = journal.state(p);
    if (!st || st.epoch === 0 || st.ackedSeq === 0) return; // not claimed (or nothing stored yet): nothing to replay from
    const started = performance.now();
    const mark = { n: st.ackedN, seq: st.ackedSeq };
    let rows = 0;
    const chunks = (async function* () {
      for (const chunk of exportPartition(store, p)) {
        rows += chunk.queued.length + chunk.urls.length + chunk.hosts.length;
        yield JSON.stringify(chunk);
      }
    })();
    const info = { writer: this.opts.writer, epoch: st.epoch, n: mark.n, fromSeq: mark.seq + 1, takenAt: this.opts.now() };
    await this.opts.replica.putSnapshot(this.opts.region, p, info, chunks);
    await this.opts.replica.trim(this.opts.region, p, mark.seq + 1);
    this.progress.set(p, { baseN: mark.n, at: this.opts.now(), forced: false });
    this.counts.snapshots++;
    this.counts.rows += rows;
    this.counts.lastMs = Math.round(performance.now() - started);
    log.info("partition snapshot stored", { partition: p, rows, upToRow: mark.n, ms: this.counts.lastMs });
  }

  private tick(): void {
    if (this.stopped || this.running) return;
    const p = this.due();
    if (p === undefined) return;
    this.running = this.take(p)
      .catch((error: unknown) => {
        this.counts.failures++;
        // Try this partition again after the interval, not at once: the replica may be down.
        this.progress.set(p, { ...(this.progress.get(p) ?? { baseN: 0, forced: false }), at: this.opts.now(), forced: false });
        this.opts.log.warn("partition snapshot failed; the log keeps every row until the next one", { partition: p, error });
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  /** The partition most in need of a snapshot, if any is due. */
  private due(): number | undefined {
    const now = this.opts.now();
    let best: { p: number; score: number } | undefined;
    for (const p of this.opts.writing()) {
      const st = this.opts.journal.state(p);
      if (!st || st.epoch === 0) continue;
      let pr = this.progress.get(p);
      if (!pr) this.progress.set(p, (pr = { baseN: st.ackedN, at: now, forced: false }));
      const rows = st.ackedN - pr.baseN;
      const due = pr.forced || rows >= this.opts.rowsPerSnapshot || (rows > 0 && now - pr.at >= this.opts.intervalMs);
      if (!due) continue;
      const score = pr.forced ? Infinity : rows;
      if (!best || score > best.score) best = { p, score };
    }
    return best?.p;
  }
}

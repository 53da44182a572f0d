/**
 * When was a queued URL queued? The store numbers queue rows with one growing sequence (`seq`) and keeps no
 * time per row (a column would cost bytes on every queued URL and a schema change); the queue-wait
 * histogram only needs the time to about a second. So the frontier tells this clock each seq it queues,
 * and the clock keeps one checkpoint per second of queueing: the first and last seq queued in that second.
 * A seq inside a checkpoint's range was queued in that second; one outside every range (queued before this
 * process started, or by a partition import that bypassed `mark`) has no known time.
 *
 * Memory is bounded: past `maxCheckpoints`, neighbouring checkpoints of the older half are merged pairwise
 * (a merged range keeps the older time, so old URLs' waits may read up to the merged span too short, a
 * relative error that shrinks as the wait grows). Lookups are a binary search.
 */

const DEFAULT_MAX_CHECKPOINTS = 8192;
const RESOLUTION_MS = 1000;

export class SeqClock {
  private firstSeq: number[] = [];
  private lastSeq: number[] = [];
  private at: number[] = [];

  constructor(private readonly maxCheckpoints = DEFAULT_MAX_CHECKPOINTS) {}

  /** Records that `seq` was queued at `now` (seqs given in increasing order). */
  mark(seq: number, now: number): void {
    const n = this.at.length;
    if (n > 0 && now - this.at[n - 1]! < RESOLUTION_MS && seq > this.lastSeq[n - 1]!) {
      this.lastSeq[n - 1] = seq;
      return;
    }
    if (n > 0 && seq <= this.lastSeq[n - 1]!) return; // out of order: leave it unknown rather than misdate it
    this.firstSeq.push(seq);
    this.lastSeq.push(seq);
    this.at.push(now);
    if (this.at.length > this.maxCheckpoints) this.compact();
  }

  /** When `seq` was queued (to about a second), or undefined when unknown. */
  queuedAt(seq: number): number | undefined {
    let lo = 0;
    let hi = this.firstSeq.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.firstSeq[mid]! <= seq) lo = mid + 1;
      else hi = mid - 1;
    }
    const i = lo - 1;
    return i >= 0 && seq <= this.lastSeq[i]! ? this.at[i] : undefined;
  }

  get size(): number {
    return this.at.length;
  }

  private compact(): void {
    const half = this.at.length >> 1;
    const first: number[] = [];
    const last: number[] = [];
    const at: number[] = [];
    for (let i = 0; i < half; i += 2) {
      const j = Math.min(i + 1, half - 1);
      first.push(this.firstSeq[i]!);
      last.push(this.lastSeq[j]!);
      at.push(this.at[i]!);
    }
    this.firstSeq = [...first, ...this.firstSeq.slice(half)];
    this.lastSeq = [...last, ...this.lastSeq.slice(half)];
    this.at = [...at, ...this.at.slice(half)];
  }
}

/**
 * Which of a partition's replicated journal rows count, and in what order (docs/cluster.md, "Replicated
 * partition state"). The log is read in sequence order; the rules:
 *
 *  1. A claim names the tenant: the store that writes the partition from there on, under the epoch = the
 *     claim's sequence, continuing after its row number `after`. Rows held back by a gap (rule 4) are
 *     applied first: whoever claimed read the same log.
 *  2. A batch counts only if it is the tenant's: same store and same epoch. Anything else is a late write of
 *     a former holder (a node thought dead, or a store's earlier tenure), which the tenant never saw.
 *  3. Within the tenant's batches a row counts once, in row order: a row at or below the last one applied is
 *     a copy (a batch sent again after a lost ack), skipped.
 *  4. A row beyond the next one waits until the rows before it come (a batch stored again later); at a new
 *     claim or at the end of the log whatever still waits is applied in order, and counted as a gap.
 *
 * Before any claim (a log that starts mid-way with no snapshot, or rows written before the first claim)
 * the first batch's writer is taken as the tenant. A snapshot starts the rules at its writer, epoch and row.
 */
import type { ReplicaEntry } from "../../core/ports/index.ts";

/** One journal row to apply: its number and its changes. */
export interface ReplayRow {
  n: number;
  changes: unknown[];
}

export interface Tenant {
  store: string;
  epoch: number;
}

export interface ReplayCounts {
  /** Rows applied. */
  applied: number;
  /** Rows skipped as copies. */
  copies: number;
  /** Batches of a writer other than the tenant, skipped. */
  stale: number;
  /** Rows applied although rows before them never came. */
  gaps: number;
}

export class ReplayRules {
  private tenant: Tenant | undefined;
  private last: number;
  private readonly held = new Map<number, ReplayRow>();
  readonly counts: ReplayCounts = { applied: 0, copies: 0, stale: 0, gaps: 0 };

  constructor(start?: { tenant: Tenant; last: number }) {
    this.tenant = start?.tenant;
    this.last = start?.last ?? 0;
  }

  /** Feeds the next entry of the log; returns the rows to apply now, in order. */
  feed(entry: ReplicaEntry): ReplayRow[] {
    if (entry.kind === "claim") {
      const out = this.release();
      this.tenant = { store: entry.writer.store, epoch: entry.seq };
      this.last = entry.after;
      return out;
    }
    this.tenant ??= { store: entry.writer.store, epoch: entry.epoch };
    if (entry.writer.store !== this.tenant.store || entry.epoch !== this.tenant.epoch) {
      this.counts.stale++;
      return [];
    }
    const out: ReplayRow[] = [];
    for (const row of parseRows(entry.body, entry.seq)) {
      if (row.n <= this.last) {
        this.counts.copies++;
        continue;
      }
      if (row.n > this.last + 1) {
        this.held.set(row.n, row);
        continue;
      }
      this.accept(row, out);
      for (let next = this.held.get(this.last + 1); next; next = this.held.get(this.last + 1)) {
        this.held.delete(next.n);
        this.accept(next, out);
      }
    }
    return out;
  }

  /** The log ended: rows still waiting behind a gap, in order. */
  finish(): ReplayRow[] {
    return this.release();
  }

  private accept(row: ReplayRow, out: ReplayRow[]): void {
    out.push(row);
    this.last = row.n;
    this.counts.applied++;
  }

  private release(): ReplayRow[] {
    if (this.held.size === 0) return [];
    const rows = [...this.held.values()].sort((a, b) => a.n - b.n);
    this.held.clear();
    this.counts.gaps += rows.length;
    this.counts.applied += rows.length;
    this.last = Math.max(this.last, rows.at(-1)!.n);
    return rows;
  }
}

/** A batch body: `[[n, [change, ...]], ...]`. */
function parseRows(body: string, seq: number): ReplayRow[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new Error(`replicated batch at sequence ${seq} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(value)) throw new Error(`replicated batch at sequence ${seq} is not a list of rows`);
  return value.map((r, i) => {
    if (!Array.isArray(r) || r.length !== 2 || !Number.isSafeInteger(r[0]) || !Array.isArray(r[1])) {
      throw new Error(`replicated batch at sequence ${seq}: row ${i} is not [n, changes]`);
    }
    return { n: r[0] as number, changes: r[1] as unknown[] };
  });
}

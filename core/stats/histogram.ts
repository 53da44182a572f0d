/**
 * Histograms: how a measured quantity is distributed (fetch durations, page sizes, waits), where a counter
 * or a mean would hide the tail an operator cares about. Each histogram has fixed bucket upper bounds
 * (`le`, Prometheus's meaning: a value lands in the first bucket whose bound is >= it, the last bucket is
 * +Inf), a count and a sum; observing is a short linear scan over a dozen bounds, cheap on the hot path.
 *
 * `Histograms` holds a process's histograms by namespaced name, like Counters; every name has its bucket
 * layout in HISTOGRAM_BUCKETS (histogram-buckets.ts), so two processes always agree on the buckets and their
 * snapshots can be merged (the coordinator merges the frontier nodes'). A snapshot (`HistogramSnapshot`) is
 * plain JSON: per-bucket counts (not cumulative), count and sum; `quantile` estimates a percentile from one
 * by linear interpolation inside the bucket, the way PromQL's histogram_quantile does.
 */
import { bucketsFor } from "./histogram-buckets.ts";

/** A histogram as plain data: `counts[i]` values fell in (bounds[i-1], bounds[i]]; the last is (last bound, +Inf). */
export interface HistogramSnapshot {
  /** Upper bounds, ascending, without +Inf. */
  bounds: number[];
  /** One more than `bounds`: the last is the +Inf bucket. Not cumulative. */
  counts: number[];
  count: number;
  sum: number;
}

export class Histogram {
  private readonly counts: number[];
  private count = 0;
  private sum = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.count++;
    this.sum += value;
  }

  snapshot(): HistogramSnapshot {
    return { bounds: [...this.bounds], counts: [...this.counts], count: this.count, sum: this.sum };
  }
}

/** A process's histograms by name; each name's buckets come from HISTOGRAM_BUCKETS. */
export class Histograms {
  private readonly values = new Map<string, Histogram>();

  /** Records one value of `name` (in the unit its name ends with: seconds, bytes). */
  observe(name: string, value: number): void {
    let h = this.values.get(name);
    if (!h) {
      h = new Histogram(bucketsFor(name));
      this.values.set(name, h);
    }
    h.observe(value);
  }

  /** Every histogram observed at least once, sorted by name. */
  toJSON(): Record<string, HistogramSnapshot> {
    return Object.fromEntries([...this.values].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, h]) => [k, h.snapshot()]));
  }
}

/**
 * The sum of snapshots by name (the cluster's histograms from its nodes'). Snapshots whose bounds differ
 * from the first one's of the same name (a node of another release) are left out rather than mixed.
 */
export function mergeHistograms(all: Iterable<Readonly<Record<string, HistogramSnapshot>> | undefined>): Record<string, HistogramSnapshot> {
  const out: Record<string, HistogramSnapshot> = {};
  for (const set of all) {
    for (const [name, h] of Object.entries(set ?? {})) {
      if (!isSnapshot(h)) continue;
      const into = out[name];
      if (!into) {
        out[name] = { bounds: [...h.bounds], counts: [...h.counts], count: h.count, sum: h.sum };
        continue;
      }
      if (into.bounds.length !== h.bounds.length || into.bounds.some((b, i) => b !== h.bounds[i])) continue;
      h.counts.forEach((c, i) => (into.counts[i]! += c));
      into.count += h.count;
      into.sum += h.sum;
    }
  }
  return out;
}

/**
 * The q-quantile (0..1) estimated from a snapshot: the bucket holding the rank, and a linear interpolation
 * inside it (from 0 for the first bucket); a rank in the +Inf bucket answers the last finite bound. NaN for
 * an empty histogram.
 */
export function quantile(h: HistogramSnapshot, q: number): number {
  if (h.count === 0) return Number.NaN;
  const rank = Math.min(Math.max(q, 0), 1) * h.count;
  let seen = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const c = h.counts[i]!;
    if (c > 0 && seen + c >= rank) {
      if (i >= h.bounds.length) return h.bounds[h.bounds.length - 1] ?? Number.NaN;
      const lower = i === 0 ? 0 : h.bounds[i - 1]!;
      const upper = h.bounds[i]!;
      return lower + ((upper - lower) * (rank - seen)) / c;
    }
    seen += c;
  }
  return h.bounds[h.bounds.length - 1] ?? Number.NaN;
}

function isSnapshot(h: unknown): h is HistogramSnapshot {
  const s = h as HistogramSnapshot;
  return (
    typeof s === "object" &&
    s !== null &&
    Array.isArray(s.bounds) &&
    Array.isArray(s.counts) &&
    s.counts.length === s.bounds.length + 1 &&
    typeof s.count === "number" &&
    typeof s.sum === "number"
  );
}

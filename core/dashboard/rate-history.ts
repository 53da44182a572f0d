/**
 * Pages/s and bytes/s over the last minutes, for the dashboard's chart: the process samples its running
 * totals (pages fetched, bytes stored) every few seconds, and each step between two samples is one point.
 * A total that goes down (a node restarted or left, taking its counts with it) counts as no progress for
 * that step, never as a negative rate. Samples older than the window are dropped, so memory is bounded.
 */
import type { RatePoint } from "./types.ts";

export interface RateHistoryOptions {
  /** How much history to keep; default 15 minutes. */
  windowMs?: number;
  /** Samples closer together than this are skipped; default 2 s. */
  minStepMs?: number;
}

interface Sample {
  at: number;
  pages: number;
  bytes: number;
}

export class RateHistory {
  private readonly samples: Sample[] = [];
  private readonly windowMs: number;
  private readonly minStepMs: number;

  constructor(opts: RateHistoryOptions = {}) {
    this.windowMs = opts.windowMs ?? 15 * 60_000;
    this.minStepMs = opts.minStepMs ?? 2_000;
  }

  /** Records the running totals at `at`. */
  sample(at: number, pages: number, bytes: number): void {
    const last = this.samples[this.samples.length - 1];
    if (last && at - last.at < this.minStepMs) return;
    this.samples.push({ at, pages, bytes });
    while (this.samples.length > 2 && this.samples[0]!.at < at - this.windowMs) this.samples.shift();
  }

  /** One point per step, oldest first. */
  points(): RatePoint[] {
    const out: RatePoint[] = [];
    for (let i = 1; i < this.samples.length; i++) {
      const a = this.samples[i - 1]!;
      const b = this.samples[i]!;
      const seconds = (b.at - a.at) / 1000;
      out.push({
        at: b.at,
        pagesPerSecond: round1(Math.max(0, b.pages - a.pages) / seconds),
        bytesPerSecond: Math.round(Math.max(0, b.bytes - a.bytes) / seconds),
      });
    }
    return out;
  }

  /** The rates over the last `spanMs` (default 10 s), from the samples that cover it. */
  current(spanMs = 10_000): { pagesPerSecond: number; bytesPerSecond: number } {
    const n = this.samples.length;
    if (n < 2) return { pagesPerSecond: 0, bytesPerSecond: 0 };
    const last = this.samples[n - 1]!;
    let i = n - 2;
    while (i > 0 && this.samples[i]!.at > last.at - spanMs) i--;
    let pages = 0;
    let bytes = 0;
    for (let j = i + 1; j < n; j++) {
      pages += Math.max(0, this.samples[j]!.pages - this.samples[j - 1]!.pages);
      bytes += Math.max(0, this.samples[j]!.bytes - this.samples[j - 1]!.bytes);
    }
    const seconds = (last.at - this.samples[i]!.at) / 1000;
    return { pagesPerSecond: round1(pages / seconds), bytesPerSecond: Math.round(bytes / seconds) };
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

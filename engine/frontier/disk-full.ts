/**
 * A full disk pauses the frontier instead of stopping it: when a write fails for want of room (in the
 * frontier's store, or a WARC file on the same disk), no task is handed out until a probe write succeeds,
 * tried every DISK_PROBE_EVERY_MS while the scheduler asks for tasks. Nothing committed is lost: each part
 * rolls its memory back to what the store holds (ActiveHosts.rollBack) before it reports the failure here.
 * `onDisk` tells the process both ways (a log line, a health check).
 */
import { isDiskFull } from "../../core/errors/index.ts";
import type { FrontierState } from "./frontier-state.ts";

const DISK_PROBE_EVERY_MS = 2_000;

export class DiskWatch {
  /** Since when writes fail for a full disk (undefined: they do not). */
  private fullSince: number | undefined;
  private lastProbe = 0;

  constructor(private readonly s: FrontierState) {}

  /** True while writes fail for a full disk. */
  get full(): boolean {
    return this.fullSince !== undefined;
  }

  /** Notes a write that failed for a full disk: tasks stop until there is room again. */
  noteFull(error: unknown): void {
    if (this.fullSince !== undefined) return;
    this.fullSince = this.s.now();
    this.lastProbe = this.fullSince;
    this.s.counters.add("frontier.disk-full");
    this.s.opts.onDisk?.(true, error);
  }

  /** A store write failed: a full disk pauses the tasks; any other failure is the caller's to throw. */
  writeFailed(error: unknown): void {
    if (isDiskFull(error)) this.noteFull(error);
  }

  /** While the disk is full: every few seconds, whether there is room again. */
  stillFull(now: number): boolean {
    if (this.fullSince === undefined) return false;
    if (now - this.lastProbe < DISK_PROBE_EVERY_MS) return true;
    this.lastProbe = now;
    try {
      if (this.s.opts.diskProbe) this.s.opts.diskProbe();
      else this.s.store.tx(() => this.s.store.setMeta("disk-probe", String(now)));
    } catch {
      return true;
    }
    this.fullSince = undefined;
    this.s.opts.onDisk?.(false);
    return false;
  }
}

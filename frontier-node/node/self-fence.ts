/**
 * Self-fencing by the node's own clock: a frontier node that may have been declared dead stops acting on
 * its partitions before anything else, without waiting to be told.
 *
 * The coordinator declares a node dead when the `heartbeatAt` of its last record written is older than its
 * death timeout (coordinator/membership.ts), and then gives its partitions to other nodes without a
 * handoff. A node that was only paused (SIGSTOP, a long GC pause, a VM migration, a box starved of CPU)
 * comes back with its partitions in memory and overdue timers that all fire at once; if its dispatch loop
 * ran before it learned the new ring, two nodes would hand out tasks for the same hosts (issue 27: 113 to
 * 253 pages fetched twice and up to 158 requests short of the gap after a 30 s freeze).
 *
 * So the node keeps the stamp of its last heartbeat written (the very `heartbeatAt` the coordinator
 * judges, on the node's monotonic clock, `preciseNow`) and, before every task it hands out and before
 * applying a result or admitting URLs, asks `allows()`: once `now - lastBeat` reaches the limit (the
 * death timeout less a margin, see `limitMs`), it is **suspended**: nothing is dispatched for any
 * partition, handlers wait, one warning is logged. A heartbeat written after a silence as long as the limit
 * suspends it too (whichever of the thawed timers runs first, the silence is seen). It then writes a
 * heartbeat, waits a moment for a coordinator that judged it dead on an older read to write its ring, re-
 * reads the ring and applies it through the ring watch's own path (`refreshRing`), and only then resumes:
 * the partitions the ring no longer gives it are dropped there as a loss without a handoff (the new owner
 * rebuilt them from the replica; their tasks in flight here are forgotten, partitions.ts).
 *
 * The death timeout is learned from the ring (`RingRecord.deathTimeoutMs`, written by the coordinator);
 * before the first ring, or from a ring written before the field existed, the coordinator's default.
 *
 * Cost: one clock read and a subtraction per check; nothing per host or per URL.
 */
import type { Counters } from "../../core/stats/index.ts";
import { errorFields, type Log } from "../../kit/log/index.ts";

/** The coordinator's default death timeout (coordinator/config.ts), for a ring that does not say its own. */
export const DEFAULT_DEATH_TIMEOUT_MS = 10_000;
/** How long the node waits after its fresh heartbeat before re-reading the ring (see `settleMs`). */
const SETTLE_MS = 1_000;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2_000;

export interface SelfFenceOptions {
  /** The node's monotonic clock, the one its heartbeats are stamped with. */
  now: () => number;
  /** The death timeout the coordinator judges by, as last learned (the ring's). */
  deathTimeoutMs: () => number;
  /** One heartbeat now; resolves when it is done, written or not (`beatWritten` tells). */
  beat: () => Promise<void>;
  /** Reads the ring and applies it; rejects when it cannot be read. */
  refreshRing: () => Promise<void>;
  /** Acting is allowed again (the dispatcher is woken). */
  onResume: () => void;
  /**
   * Wait after the fresh heartbeat before the ring is read: a coordinator that read this node's old record
   * just before the beat may still be writing a ring that takes its partitions. Default 1 s.
   */
  settleMs?: number;
  counters: Counters;
  log: Log;
  /** Resolves after `ms` (tests: a fake clock). */
  sleep?: (ms: number) => Promise<void>;
}

export class SelfFence {
  /** The stamp of the last heartbeat written; until the first, when the fence was built. */
  private lastBeatAt: number;
  /** Whether a heartbeat was written yet: the time a start takes before its first record is no silence. */
  private written = false;
  private recovering: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: SelfFenceOptions) {
    this.lastBeatAt = opts.now();
  }

  /**
   * The longest silence the node lets pass before it suspends itself: the death timeout less a quarter
   * of it. The margin covers the coordinator's own lateness in judging (it reads at its ticks, so it is
   * never early), clocks of two machines that disagree by a little, and the time from this check to the
   * last task going out.
   */
  get limitMs(): number {
    return this.opts.deathTimeoutMs() * 0.75;
  }

  /** Whether the node is suspended (re-reading the ring before it acts again). */
  get suspended(): boolean {
    return this.recovering !== undefined;
  }

  /**
   * Whether the node may act on its partitions now: false while suspended, and false (suspending it) once
   * its last heartbeat written is as old as the limit. Cheap: call it before every hand-out.
   */
  allows(): boolean {
    if (this.recovering) return false;
    if (this.opts.now() - this.lastBeatAt < this.limitMs) return true;
    this.suspend(this.opts.now() - this.lastBeatAt, "a check before acting");
    return false;
  }

  /** Resolves once the node may act (at once when it may). */
  async ready(): Promise<void> {
    while (!this.stopped && !this.allows()) await this.recovering;
  }

  /**
   * A heartbeat stamped `stampedAt` was written. A silence as long as the limit before it means the
   * coordinator may have judged the node dead meanwhile, fresh as this beat is: suspend.
   */
  beatWritten(stampedAt: number): void {
    const silentMs = this.written ? stampedAt - this.lastBeatAt : 0;
    this.written = true;
    if (stampedAt > this.lastBeatAt) this.lastBeatAt = stampedAt;
    if (silentMs >= this.limitMs) this.suspend(silentMs, "a heartbeat written after the silence");
  }

  /** Ends a recovery under way (the node is stopping); `ready()` then resolves. */
  stop(): void {
    this.stopped = true;
  }

  private suspend(silentMs: number, noticedBy: string): void {
    if (this.recovering || this.stopped) return;
    this.opts.counters.add("node.fence.suspended");
    this.opts.log.warn(
      "suspended dispatching for every partition: this node's last heartbeat written is as old as the coordinator's death timeout allows, so its partitions may have moved; beating and re-reading the ring before acting again",
      { silentMs: Math.round(silentMs), limitMs: this.limitMs, deathTimeoutMs: this.opts.deathTimeoutMs(), noticedBy },
    );
    const since = this.opts.now();
    // Started after `recovering` is set: the recovery's own beat, written at once, must not start another.
    this.recovering = Promise.resolve()
      .then(() => this.recover())
      .then(() => {
        this.opts.log.info("resumed: dispatching for the partitions the ring still gives this node", {
          suspendedMs: Math.round(this.opts.now() - since),
        });
      })
      .finally(() => {
        this.recovering = undefined;
        this.opts.onResume();
      });
  }

  /** Beats until a beat is written, then re-reads the ring; retried until both succeed (or the node stops). */
  private async recover(): Promise<void> {
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    for (let attempt = 0; !this.stopped; attempt++) {
      const asked = Math.floor(this.opts.now());
      await this.opts.beat();
      if (this.lastBeatAt >= asked) {
        await sleep(this.opts.settleMs ?? SETTLE_MS);
        try {
          await this.opts.refreshRing();
          return;
        } catch (error) {
          this.opts.log.warn("re-reading the ring failed; still suspended, retrying", errorFields(error, { attempt }));
        }
      }
      await sleep(Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(attempt, 4)));
    }
  }
}

/**
 * A node's heartbeat, the same for every role: its NodeRecord (built fresh by `record()` at each beat:
 * status, counters, gauges, partitions) written to the cluster state at start and every interval, and
 * deleted when the node leaves cleanly, so the coordinator tells a stopped node from a dead one (dead: no
 * beat within its death timeout). A beat that fails is counted and the next one tries again; the log says
 * when beats start failing and when they recover, not at every miss. `healthy` (the last beat got through)
 * feeds readiness. `beforeWrite` runs inside each beat, before the write: a frontier node reads its stored
 * record there, to see the coordinator's drain mark before overwriting it.
 */
import type { NodeRecord } from "../../core/cluster/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";
import type { Log } from "../../core/ports/index.ts";
import { errorFields } from "../log/index.ts";

export interface HeartbeatOptions {
  state: Pick<ClusterState, "putNode" | "deleteNode">;
  /** The record to write, built at each beat. */
  record: () => NodeRecord;
  intervalMs: number;
  log: Log;
  /** Runs in each beat before the write; if it throws, the beat counts as failed and nothing is written. */
  beforeWrite?: () => Promise<void>;
  /** Told about each failed beat (a counter, for /metrics). */
  onFailure?: (error: unknown) => void;
  /**
   * Told about each record written, after the write: its `heartbeatAt` is what the coordinator judges, so
   * a node that fences itself by its own clock keeps it (frontier-node/node/self-fence.ts).
   */
  onWritten?: (record: NodeRecord) => void;
}

export class NodeHeartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  /** The beat asked for while one was running: it follows that one. */
  private queued: Promise<void> | undefined;
  private stopped = false;
  private lastOk = false;
  private failed = 0;
  private inARow = 0;
  private lastFailure: unknown;

  constructor(private readonly opts: HeartbeatOptions) {}

  /**
   * Writes the first record, then beats every interval, whether or not the first write got through (a
   * caller that cannot start without its record checks the result). Resolves true when it did.
   */
  async start(): Promise<boolean> {
    this.stopped = false;
    await this.beat();
    this.timer ??= setInterval(() => void this.beat(), this.opts.intervalMs);
    return this.lastOk;
  }

  /**
   * One beat now, with a record built after this call: while a beat is running (its record may predate
   * what the caller just changed: partitions served, a status), one more follows it, shared by every call
   * until it starts. Resolves when the beat is done; never rejects.
   */
  beat(): Promise<void> {
    if (!this.running) {
      this.running = this.write().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.beat();
    });
    return this.queued;
  }

  /** Whether the last beat reached the cluster state. */
  get healthy(): boolean {
    return this.lastOk;
  }

  /** Beats that failed since the heartbeat was built. */
  get failures(): number {
    return this.failed;
  }

  /** Beats that failed since the last one that got through. */
  get failuresInARow(): number {
    return this.inARow;
  }

  /** Why the last failed beat failed. */
  get lastError(): unknown {
    return this.lastFailure;
  }

  /**
   * A clean leave: stops beating and deletes the record. If the delete fails the heartbeat resumes (the
   * record must not age into "dead" while the node still runs) and the error is thrown.
   */
  async leave(): Promise<void> {
    this.stop();
    await this.running;
    await this.queued;
    try {
      await this.opts.state.deleteNode(this.opts.record().id);
    } catch (error) {
      this.stopped = false;
      this.timer ??= setInterval(() => void this.beat(), this.opts.intervalMs);
      throw error;
    }
  }

  /** Stops beating and leaves the record to age out (the coordinator then sees the node as dead). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async write(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.opts.beforeWrite?.();
      if (this.stopped) return;
      const record = this.opts.record();
      await this.opts.state.putNode(record);
      if (this.inARow > 0) this.opts.log.info("heartbeat recovered", { failedBeats: this.inARow });
      this.lastOk = true;
      this.inARow = 0;
      this.opts.onWritten?.(record);
    } catch (error) {
      this.failed++;
      this.inARow++;
      this.lastFailure = error;
      this.lastOk = false;
      if (this.inARow === 1)
        this.opts.log.warn("heartbeat failed; retrying at every beat", errorFields(error, { intervalMs: this.opts.intervalMs }));
      this.opts.onFailure?.(error);
    }
  }
}

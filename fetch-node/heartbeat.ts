/**
 * The node's heartbeat: writes its NodeRecord (identity, status, counters, gauges) to the cluster state
 * at start, every interval, and once more when its status changes; deletes it on a clean stop (`left`),
 * so the coordinator can tell a stopped node from a dead one. A failed write is logged and counted and
 * the next beat tries again: the fetch node owns no partitions, so a missed beat costs nothing but the
 * coordinator's view of it.
 */
import type { NodeRecord } from "../core/cluster/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import type { Log } from "../kit/log/index.ts";

export interface HeartbeatOptions {
  state: ClusterState;
  /** Builds the record to write, fresh each beat. */
  record: () => NodeRecord;
  intervalMs: number;
  log: Log;
  /** Told about each failed write. */
  onFailure?: (error: unknown) => void;
}

export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly opts: HeartbeatOptions) {}

  /** Writes the record once, then every interval. */
  async start(): Promise<void> {
    await this.beat();
    this.timer ??= setInterval(() => void this.beat(), this.opts.intervalMs);
  }

  /** Writes the record now, unless a write is still running (that one carries fresh enough data). */
  beat(): Promise<void> {
    this.running ??= this.write().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Stops beating and deletes the record (a clean leave). Never throws. */
  async leave(id: string): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    try {
      await this.opts.state.deleteNode(id);
    } catch (error) {
      this.opts.log.warn("could not delete the node record; the coordinator will see the node die instead", { error: String(error) });
    }
  }

  private async write(): Promise<void> {
    try {
      await this.opts.state.putNode(this.opts.record());
    } catch (error) {
      this.opts.onFailure?.(error);
      this.opts.log.warn("heartbeat write failed; retrying at the next beat", { error: String(error) });
    }
  }
}

/**
 * The node's presence in the cluster: its NodeRecord under `nodes.<id>`, written at start and at every
 * heartbeat with the partitions it serves and its counters and gauges, and deleted on a clean stop.
 *
 * Draining follows the coordinator's contract (coordinator/membership.ts): the coordinator writes
 * `status: "draining"` into this node's record (and also calls FrontierService.Drain). Since the node
 * rewrites its own record at every heartbeat, each heartbeat first reads the stored record: once it says
 * `draining`, the node drains (`onDrain`) and keeps writing `draining` from then on, so the coordinator's
 * mark is never flipped back.
 */
import type { NodeRecord, NodeStatus } from "../../core/cluster/index.ts";
import type { ClusterState } from "../../core/ports/index.ts";
import type { Log } from "../../kit/log/index.ts";

export interface MembershipOptions {
  state: Pick<ClusterState, "putNode" | "deleteNode" | "listNodes">;
  /** The record's fixed part; `status`, `heartbeatAt`, `partitions`, `counters`, `gauges` are filled in. */
  identity: Omit<NodeRecord, "status" | "heartbeatAt" | "partitions" | "counters" | "gauges">;
  intervalMs: number;
  now: () => number;
  /** What the record reports at each heartbeat. */
  report: () => { partitions: number[]; counters: Record<string, number>; gauges: Record<string, number> };
  /** Called once when the stored record says `draining` (set by the coordinator). */
  onDrain: () => void;
  log: Log;
}

export class Membership {
  private status: NodeStatus = "active";
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating: Promise<void> | undefined;
  private stopped = false;
  private lastWriteOk = false;

  constructor(private readonly opts: MembershipOptions) {}

  /** Writes the first record (throws when the cluster state is unreachable) and starts the heartbeat. */
  async start(): Promise<void> {
    await this.write();
    this.timer = setInterval(() => void this.beat(), this.opts.intervalMs);
  }

  get isDraining(): boolean {
    return this.status === "draining";
  }

  /** Whether the last heartbeat reached the cluster state (readiness). */
  get healthy(): boolean {
    return this.lastWriteOk;
  }

  /** Marks this node as draining (Drain RPC) and writes the record at once. */
  async drain(): Promise<void> {
    if (this.status === "draining") return;
    this.status = "draining";
    await this.beat();
  }

  /** One heartbeat now: read the stored status, then rewrite the record. Never throws. */
  beat(): Promise<void> {
    this.beating ??= this.checkAndWrite().finally(() => (this.beating = undefined));
    return this.beating;
  }

  /** Stops the heartbeat and deletes the record (a clean leave); when the delete fails the heartbeat resumes. */
  async leave(): Promise<void> {
    this.stop();
    await this.beating;
    try {
      await this.opts.state.deleteNode(this.opts.identity.id);
    } catch (error) {
      this.stopped = false;
      this.timer = setInterval(() => void this.beat(), this.opts.intervalMs);
      throw error;
    }
  }

  /** Stops the heartbeat, leaving the record to age out (the coordinator then sees this node as dead). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async checkAndWrite(): Promise<void> {
    if (this.stopped) return;
    try {
      if (this.status !== "draining") {
        const mine = (await this.opts.state.listNodes()).find((n) => n.id === this.opts.identity.id);
        if (mine?.status === "draining") {
          this.status = "draining";
          this.opts.log.info("the coordinator marked this node as draining");
          this.opts.onDrain();
        }
      }
      if (this.stopped) return;
      await this.write();
    } catch (error) {
      if (this.lastWriteOk) this.opts.log.warn("heartbeat failed; retrying at the next one", { error });
      this.lastWriteOk = false;
    }
  }

  private async write(): Promise<void> {
    const now = this.opts.now();
    const r = this.opts.report();
    const record: NodeRecord = {
      ...this.opts.identity,
      status: this.status,
      heartbeatAt: now,
      partitions: r.partitions,
      counters: r.counters,
      gauges: r.gauges,
    };
    await this.opts.state.putNode(record);
    this.lastWriteOk = true;
  }
}

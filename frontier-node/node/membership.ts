/**
 * The node's presence in the cluster: its NodeRecord under `nodes.<id>`, written by the kit's heartbeat
 * (kit/node) at start and at every interval with the partitions it serves, its counters, gauges and
 * histograms, and its host report (the dashboard's host board),
 * and deleted on a clean stop. What is the frontier node's own is the drain:
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
import { NodeHeartbeat } from "../../kit/node/index.ts";

export interface MembershipOptions {
  state: Pick<ClusterState, "putNode" | "deleteNode" | "getNode">;
  /** The record's fixed part; `status`, `heartbeatAt`, `partitions`, `counters`, `gauges` are filled in. */
  identity: Omit<NodeRecord, "status" | "heartbeatAt" | "partitions" | "counters" | "gauges" | "histograms" | "hosts">;
  intervalMs: number;
  now: () => number;
  /** What the record reports at each heartbeat. */
  report: () => Pick<NodeRecord, "partitions" | "counters" | "gauges" | "histograms" | "hosts" | "jobs">;
  /** Called once when the stored record says `draining` (set by the coordinator). */
  onDrain: () => void;
  /** After each record written, with its `heartbeatAt` (the self-fence keeps it). */
  onWritten?: (heartbeatAt: number) => void;
  log: Log;
}

export class Membership {
  private status: NodeStatus = "active";
  private readonly heartbeat: NodeHeartbeat;
  /** The first record is written as is: the mark is looked for from the second beat on. */
  private started = false;

  constructor(private readonly opts: MembershipOptions) {
    this.heartbeat = new NodeHeartbeat({
      state: opts.state,
      record: () => this.record(),
      intervalMs: opts.intervalMs,
      log: opts.log,
      beforeWrite: () => this.checkDrainMark(),
      onWritten: (record) => opts.onWritten?.(record.heartbeatAt),
    });
  }

  /** Writes the first record (throws when the cluster state is unreachable) and starts the heartbeat. */
  async start(): Promise<void> {
    const written = await this.heartbeat.start();
    this.started = true;
    if (written) return;
    this.heartbeat.stop();
    throw new Error("cannot write this node's record to the cluster state", { cause: this.heartbeat.lastError });
  }

  get isDraining(): boolean {
    return this.status === "draining";
  }

  /** Whether the last heartbeat reached the cluster state (readiness). */
  get healthy(): boolean {
    return this.heartbeat.healthy;
  }

  /** Marks this node as draining (Drain RPC) and writes the record at once. */
  async drain(): Promise<void> {
    if (this.status === "draining") return;
    this.status = "draining";
    await this.beat();
  }

  /** One heartbeat now: read the stored status, then rewrite the record. Never throws. */
  beat(): Promise<void> {
    return this.heartbeat.beat();
  }

  /** Stops the heartbeat and deletes the record (a clean leave); when the delete fails the heartbeat resumes. */
  leave(): Promise<void> {
    return this.heartbeat.leave();
  }

  /** Stops the heartbeat, leaving the record to age out (the coordinator then sees this node as dead). */
  stop(): void {
    this.heartbeat.stop();
  }

  /** Reads the stored record: the coordinator's `draining` mark is taken over, never overwritten. */
  private async checkDrainMark(): Promise<void> {
    if (!this.started || this.status === "draining") return;
    // Its own record only: listing every record asks the bucket's leader for its subjects and reads them all,
    // and a beat whose read timed out wrote nothing (seen after a NATS server of three was killed: 5 s per
    // beat, 10 s of silence, the node declared dead while alive).
    const mine = await this.opts.state.getNode(this.opts.identity.id);
    if (mine?.status !== "draining") return;
    this.status = "draining";
    this.opts.log.info("the coordinator marked this node as draining");
    this.opts.onDrain();
  }

  private record(): NodeRecord {
    const r = this.opts.report();
    return {
      ...this.opts.identity,
      status: this.status,
      heartbeatAt: this.opts.now(),
      partitions: r.partitions,
      counters: r.counters,
      gauges: r.gauges,
      ...(r.histograms ? { histograms: r.histograms } : {}),
      ...(r.hosts ? { hosts: r.hosts } : {}),
      ...(r.jobs && Object.keys(r.jobs).length > 0 ? { jobs: r.jobs } : {}),
    };
  }
}

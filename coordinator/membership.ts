/**
 * Membership as the coordinator sees it: every node record in the cluster state, classified by its
 * heartbeat age against the death timeout on an injected clock. A node is
 *
 *   - `live`      when its heartbeat is fresh and it is active;
 *   - `draining`  when its heartbeat is fresh and it is leaving: its record says `draining`, or an operator
 *                 drained it through this coordinator (see below);
 *   - `dead`      when its heartbeat is older than the death timeout, whatever its record says;
 *   - `left`      when its record says it stopped cleanly (it normally deletes its record instead).
 *
 * The coordinator judges only silence it could have seen: after its start, after a failed read of the
 * cluster state (NATS down, or a JetStream without its meta leader), after a failed write of its own (the
 * rebalancer's lease and ring: `blind()`), and after its own connection dropped (`blind()` too: a
 * coordinator busy with something else while NATS was down may never have tried to read), a
 * node is dead only once it has been silent for the death timeout since the coordinator could read again.
 * A short outage of the cluster state therefore never makes every node look dead at once and moves no
 * partition: nodes whose heartbeats failed during it get a whole death timeout after it to write again.
 *
 * Changes: `watch` tells the coordinator as soon as the membership may have changed (a record appeared or
 * disappeared, a silent node wrote again, a drain), so it rebalances then rather than at its next
 * heartbeat; the heartbeats of nodes it already heard are not changes. Death is not a record change: it is
 * found by reading (`view`) on the coordinator's schedule.
 *
 * A dead or left node is shown with no partitions (its last record may still list some): what `crawlctl
 * nodes` and `/v1/nodes` show is what serves now.
 *
 * Draining: `drain(id)` writes the node's record with `status: "draining"` and remembers the id here. A
 * node rewrites its own record at every heartbeat, so the record alone could be flipped back to `active`
 * by a node that has not noticed yet; the remembered id keeps the node draining for the rebalancer in the
 * meantime. The contract for nodes: a frontier node that sees `draining` in its own record (or receives
 * FrontierService.Drain, which the coordinator also sends) keeps writing `draining` in its heartbeats, stops
 * dispatching, hands its partitions to their new owners as the ring says, and deletes its record when it
 * has nothing left. The remembered ids are forgotten when the node's record disappears; a coordinator that
 * takes over relies on the records alone.
 */
import type { NodeRecord } from "../core/cluster/index.ts";
import type { ClusterState } from "../core/ports/index.ts";
import { FailedPreconditionError, NotFoundError } from "../core/errors/index.ts";

export type MemberState = "live" | "draining" | "dead" | "left";

export interface Member {
  record: NodeRecord;
  state: MemberState;
  /** now - heartbeatAt, in ms (negative when the node's clock runs ahead). */
  heartbeatAgeMs: number;
}

export interface MembershipView {
  at: number;
  /** Every node, sorted by id. */
  members: Member[];
  /** Live frontier node ids by region, sorted: the nodes that may own partitions. */
  liveFrontiers: Record<string, string[]>;
  /** Frontier nodes that can still hand partitions over: live and draining ones. */
  reachableFrontiers: Set<string>;
}

/**
 * The state of one node record at `now`. Silence before `observedSince` (when the observer could not see
 * the cluster state) does not count: the node is dead only once it has been silent for the death timeout
 * while the observer was watching.
 */
export function classifyNode(record: NodeRecord, now: number, deathTimeoutMs: number, observedSince = -Infinity): MemberState {
  if (record.status === "left") return "left";
  if (now - Math.max(record.heartbeatAt, observedSince) > deathTimeoutMs) return "dead";
  return record.status === "draining" ? "draining" : "live";
}

export interface MembershipOptions {
  state: ClusterState;
  now: () => number;
  deathTimeoutMs: number;
  /**
   * Since when this observer has been watching (the coordinator's start): a node silent only since
   * before it is not judged until the death timeout has passed after it. Default: since always.
   */
  observedSince?: number;
}

export class Membership {
  private readonly drained = new Set<string>();
  /** See MembershipOptions.observedSince; undefined after a failed read or `blind()`, until the next good read. */
  private observedSince: number | undefined;
  /** Counts `blind()` calls, so a read that was under way during one is not taken as seen from its start. */
  private blindings = 0;
  /** Changes heard (see `watch`). */
  private changeCount = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly opts: MembershipOptions) {
    this.observedSince = opts.observedSince ?? -Infinity;
  }

  get deathTimeoutMs(): number {
    return this.opts.deathTimeoutMs;
  }

  /** How many membership changes `watch` has heard so far: a cached read older than the last one is stale. */
  get changes(): number {
    return this.changeCount;
  }

  /**
   * Calls `onChange` whenever the membership may have changed: a node's record appeared (a join; at the
   * start, every record present), disappeared (a clean leave, a drained node gone), or was written again
   * after more than the death timeout without a write (a node back after it was silent), and after this
   * coordinator marked a node draining. Bursts are the caller's to debounce. Returns the function that stops
   * watching.
   */
  watch(onChange: () => void): () => void {
    /** When each node's record was last written, on this coordinator's clock. */
    const heardAt = new Map<string, number>();
    const changed = () => {
      this.changeCount++;
      onChange();
    };
    this.listeners.add(changed);
    const unwatch = this.opts.state.watchNodes(({ id, kind }) => {
      const now = this.opts.now();
      const before = heardAt.get(id);
      if (kind === "delete") {
        heardAt.delete(id);
        return changed();
      }
      heardAt.set(id, now);
      if (before === undefined || now - before > this.opts.deathTimeoutMs) changed();
    });
    return () => {
      this.listeners.delete(changed);
      unwatch();
    };
  }

  /** The node's last few records, oldest first (ClusterState.nodeHistory). */
  history(id: string): Promise<NodeRecord[]> {
    return this.opts.state.nodeHistory(id);
  }

  /**
   * The coordinator cannot see the cluster state now (its connection to it dropped): silence from now until
   * the next good read does not count against any node, whose heartbeats most likely fail for the same
   * reason.
   */
  blind(): void {
    this.observedSince = undefined;
    this.blindings++;
  }

  async view(): Promise<MembershipView> {
    const at = this.opts.now();
    const blindings = this.blindings;
    let records: NodeRecord[];
    try {
      records = await this.opts.state.listNodes();
    } catch (error) {
      // Blind from now on: the nodes' heartbeats may be failing for the same reason (NATS down), so their
      // silence until the next good read is not theirs to pay for.
      this.blind();
      throw error;
    }
    // A read that spanned a blind spell says nothing of the time before its end.
    this.observedSince ??= blindings === this.blindings ? at : this.opts.now();
    const observedSince = this.observedSince;
    const present = new Set(records.map((r) => r.id));
    for (const id of this.drained) if (!present.has(id)) this.drained.delete(id);
    const members = records
      .map((record): Member => {
        let state = classifyNode(record, at, this.opts.deathTimeoutMs, observedSince);
        if (state === "live" && this.drained.has(record.id)) state = "draining";
        // A dead node serves nothing, whatever its last record claimed: its partitions have moved (or
        // move at the next rebalance), and listing them under it would send an operator the wrong way.
        const shown = state === "dead" || state === "left" ? { ...record, partitions: [] } : record;
        return { record: shown, state, heartbeatAgeMs: at - record.heartbeatAt };
      })
      .sort((a, b) => (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
    const liveFrontiers: Record<string, string[]> = {};
    const reachableFrontiers = new Set<string>();
    for (const m of members) {
      if (m.record.role !== "frontier") continue;
      if (m.state === "live") (liveFrontiers[m.record.region] ??= []).push(m.record.id);
      if (m.state === "live" || m.state === "draining") reachableFrontiers.add(m.record.id);
    }
    return { at, members, liveFrontiers, reachableFrontiers };
  }

  /**
   * Marks a node as draining (see the module comment). Throws NotFoundError for an unknown id and
   * FailedPreconditionError for a coordinator or a node that is dead or gone. Idempotent.
   */
  async drain(nodeId: string): Promise<Member> {
    const member = (await this.view()).members.find((m) => m.record.id === nodeId);
    if (!member) throw new NotFoundError(`no node "${nodeId}" in the cluster`);
    if (member.record.role === "coordinator")
      throw new FailedPreconditionError(`node "${nodeId}" is a coordinator; stop it instead of draining it`);
    if (member.state === "dead" || member.state === "left")
      throw new FailedPreconditionError(`node "${nodeId}" is ${member.state}; there is nothing to drain`);
    this.drained.add(nodeId);
    const record: NodeRecord = { ...member.record, status: "draining" };
    await this.opts.state.putNode(record);
    for (const listener of this.listeners) listener();
    return { ...member, record, state: "draining" };
  }
}

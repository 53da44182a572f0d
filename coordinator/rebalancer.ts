/**
 * Keeps the ring in step with membership, on the coordinator that holds the lease. Each `tick` renews (or
 * tries to take) the lease `lease.coordinator`; without it the tick does nothing but remember it is a
 * standby. With it, the tick computes the ring from the live frontier nodes of every region (`computeRing`:
 * consistent hashing with virtual nodes; a partition that leaves a reachable node names it as `previous`,
 * one that leaves a dead node moves at once) and writes it with `casRing` only when it differs from the
 * stored ring, so ticks are idempotent and cheap. A conflicting write (a frontier node completing a
 * handoff, a coordinator that lost the lease a moment ago) fails the compare-and-set; the tick re-reads and
 * recomputes. `main.ts` runs `tick` every heartbeat interval.
 *
 * Who takes the lease after a leader dies: the lease is held by one process (`nodeId#incarnation`), so a
 * coordinator started again under the same id cannot "renew" its predecessor's lease, and a coordinator
 * that started less than two lease TTLs ago does not contend while an older live coordinator exists (the
 * lease it left expires within one TTL, and the standby asks at every tick after that). So a warm standby (a full membership view, full rate samples) takes over, and the restarted one stands by;
 * a coordinator alone takes the lease once it has expired.
 *
 * A leader that stops running for a while (SIGSTOP, a long GC pause, a VM migration) and comes back must
 * not write a ring it computed before: its lease may have run out and a standby taken it meanwhile, and the
 * membership it read may call live nodes dead. So a ring is written only while the lease renewal that began
 * the tick is younger than half the TTL on this process's own monotonic clock (the other half covers the
 * clocks of two coordinators disagreeing, since the lease's expiry is written in wall time). A tick past
 * that writes nothing, says so, and blinds the membership view (a pause is silence this coordinator could
 * not see); the next tick renews the lease (or finds it taken and stands by) and reads everything again.
 * What is left: a pause between that check and the compare-and-set leaving the process, microseconds of
 * code; the compare-and-set then still fails if anyone wrote the ring since it was read.
 *
 * Two coordinators must never both write rings, even if both were granted the lease (nats-server 2.9.10
 * accepts two compare-and-sets of a 3-copy key from one revision, and the lease is such a key). Each
 * tenure has a term, the revision of the grant that began it (revisions only grow), and every ring carries
 * its writer's term (`leaderTerm`): a coordinator writes no ring over one of a higher term and stands by
 * when it finds one, and a new leader writes its term into the ring at once (the ring's own writes are
 * checked against the whole bucket, which that server version does right). So once the newer leader has
 * written, the older one writes nothing more.
 */
import { computeRing, politenessKeyMismatch, ringPolitenessKey, type RingRecord } from "../core/cluster/index.ts";
import type { PolitenessKeyMode } from "../core/politeness/index.ts";
import { type ClusterState } from "../core/ports/index.ts";
import type { Log } from "../kit/log/index.ts";
import type { Membership } from "./membership.ts";

export const COORDINATOR_LEASE = "coordinator";

export interface RebalancerOptions {
  state: ClusterState;
  membership: Membership;
  /** This coordinator's id. */
  nodeId: string;
  /** This process among those that ran under `nodeId` (a random id per start): the lease holder is `nodeId#incarnation`. Default: none. */
  incarnation?: string;
  /** When this process started; default: long ago (no warm-up). */
  startedAt?: number;
  leaseTtlMs: number;
  partitions: number;
  vnodes: number;
  /** The fleet's politeness key, written into the ring (absent: host); a stored ring with another is refused. */
  politenessKey?: PolitenessKeyMode;
  /** Regions that always have an entry in the ring (from the region rules), even with no frontier node. */
  regions: readonly string[];
  now: () => number;
  log: Log;
  /** A clock that only moves forward and keeps counting while the process is stopped (default `performance.now`). */
  monotonicNow?: () => number;
  /** Compare-and-set attempts per tick before giving up until the next tick; default 5. */
  maxAttempts?: number;
  /**
   * Frontier nodes (all regions together) the first ring waits for; default 0 (none). Nodes started
   * together join some tens of milliseconds apart, and a ring written for the first of them gives it every
   * partition, half of which it then hands to the second, one handoff and one ring write each (measured
   * on `cluster up` with 2 frontier nodes and 64 partitions: ~30 handoffs, ready 1.3 s after the first
   * ring). Waiting until this many are live gives each its share at once. Only while there is no ring at
   * all, and for at most `firstRingWaitMs` after `startedAt`: a node that never comes does not hold the
   * crawl back for longer.
   */
  expectFrontiers?: number;
  /** The longest the first ring waits for `expectFrontiers`; default 10 s. */
  firstRingWaitMs?: number;
  /**
   * Called when a tick takes or loses the lease: the coordinator writes its record then (its `leader`
   * gauge), so a standby names the new leader at once instead of after the leader's next heartbeat.
   */
  onLeaderChange?: (leader: boolean) => void;
}

export interface TickOutcome {
  leader: boolean;
  /** True when this tick wrote a new ring. */
  wrote: boolean;
  epoch?: number;
  revision?: number;
}

const FIRST_RING_WAIT_MS = 10_000;

export class Rebalancer {
  private leader = false;
  /** The revision of the lease grant that began this tenure (0: none). */
  private term = 0;
  private ringSeen = false;
  private waitLogged = false;

  constructor(private readonly opts: RebalancerOptions) {}

  /** Whether the last tick held the lease. */
  get isLeader(): boolean {
    return this.leader;
  }

  /** Whether a ring existed at the last tick (readiness). */
  get hasRing(): boolean {
    return this.ringSeen;
  }

  /**
   * Gives the lease up on a clean stop, by renewing it with no time left, so a standby takes over at its
   * next tick instead of waiting out the TTL.
   */
  async release(): Promise<void> {
    if (!this.leader) return;
    this.leader = false;
    await this.opts.state.acquireLease(COORDINATOR_LEASE, this.holder, 0, this.opts.now());
  }

  private get holder(): string {
    return this.opts.incarnation ? `${this.opts.nodeId}#${this.opts.incarnation}` : this.opts.nodeId;
  }

  /** A coordinator younger than two lease TTLs leaves an expired lease to an older live coordinator. */
  private async warmingUp(): Promise<boolean> {
    const { startedAt, leaseTtlMs, nodeId } = this.opts;
    if (startedAt === undefined || this.opts.now() - startedAt >= 2 * leaseTtlMs) return false;
    const view = await this.opts.membership.view();
    return view.members.some(
      (m) => m.record.role === "coordinator" && m.state === "live" && m.record.id !== nodeId && m.record.startedAt < startedAt,
    );
  }

  /**
   * A call on the cluster state (the lease, the ring) that fails blinds the membership view: the nodes'
   * heartbeats most likely fail for the same reason, so their silence from now until the next good read
   * counts against none of them. Seen: after one NATS server of three was killed, the lease writes failed
   * for 5 s while node records could still be read; the nodes' beats failed for 10 s, and both frontier
   * nodes were declared dead in turn while alive, their partitions moved without a handoff and restored from
   * replicas still missing their last rows. (A failed read of the records blinds it by itself.)
   */
  private async onState<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.opts.membership.blind();
      throw error;
    }
  }

  /** Whether the lease renewal that began at `askedAt` still covers a write now (see the module comment). */
  private leaseStillCovers(askedAt: number): boolean {
    const elapsed = this.monotonicNow() - askedAt;
    if (elapsed < this.opts.leaseTtlMs / 2) return true;
    this.opts.membership.blind();
    this.opts.log.warn("not writing the ring: the lease was renewed too long ago to be sure it is still ours", {
      renewedMsAgo: Math.round(elapsed),
      leaseTtlMs: this.opts.leaseTtlMs,
      hint: "this coordinator did not run for a while (a pause, a slow cluster state); the next tick renews the lease or stands by",
    });
    return false;
  }

  private monotonicNow(): number {
    return this.opts.monotonicNow?.() ?? performance.now();
  }

  async tick(): Promise<TickOutcome> {
    const { state, nodeId, leaseTtlMs } = this.opts;
    const wasLeader = this.leader;
    const askedAt = this.monotonicNow();
    const granted =
      !wasLeader && (await this.warmingUp())
        ? false
        : await this.onState(() => state.acquireLease(COORDINATOR_LEASE, this.holder, leaseTtlMs, this.opts.now()));
    this.leader = granted !== false;
    if (granted === false) this.term = 0;
    else if (!wasLeader) this.term = granted;
    if (this.leader !== wasLeader) {
      this.opts.log.info(this.leader ? "took the coordinator lease" : "lost the coordinator lease", { nodeId });
      this.opts.onLeaderChange?.(this.leader);
    }
    if (!this.leader) {
      this.ringSeen = (await this.onState(() => state.getRing())) !== undefined;
      return { leader: false, wrote: false };
    }
    const attempts = this.opts.maxAttempts ?? 5;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const view = await this.opts.membership.view();
      const current = await this.onState(() => state.getRing());
      if ((current?.ring.leaderTerm ?? 0) > this.term) return this.superseded(current!.ring.leaderTerm!);
      if (current && current.ring.partitions !== this.opts.partitions) {
        throw new Error(
          `the stored ring has ${current.ring.partitions} partitions but this coordinator is configured with ${this.opts.partitions}; the partition count is fixed for the cluster's life`,
        );
      }
      const keyRefused =
        current && politenessKeyMismatch(ringPolitenessKey(current.ring), this.opts.politenessKey ?? "host", "the stored ring");
      if (keyRefused) throw new Error(keyRefused);
      const live: Record<string, string[]> = {};
      for (const region of this.opts.regions) live[region] = [];
      for (const [region, ids] of Object.entries(view.liveFrontiers)) live[region] = [...ids];
      if (!current && this.waitingForFrontiers(live)) return { leader: true, wrote: false };
      const next = {
        ...computeRing(current?.ring, {
          partitions: this.opts.partitions,
          vnodes: this.opts.vnodes,
          live,
          reachable: view.reachableFrontiers,
        }),
        // Nodes fence themselves by it (frontier-node/node/self-fence.ts); a changed timeout rewrites the ring.
        deathTimeoutMs: this.opts.membership.deathTimeoutMs,
        // A new leader's first tick writes its term, fencing out the one before (see the module comment).
        leaderTerm: this.term,
        // Hosts are placed by it; the default is left out, so rings of host-keyed fleets read as before.
        ...(this.opts.politenessKey && this.opts.politenessKey !== "host" ? { politenessKey: this.opts.politenessKey } : {}),
      };
      if (current && sameRing(current.ring, next)) {
        this.ringSeen = true;
        return { leader: true, wrote: false, epoch: current.ring.epoch, revision: current.revision };
      }
      if (!this.leaseStillCovers(askedAt)) return { leader: true, wrote: false };
      const revision = await this.onState(() => state.casRing(next, current?.revision ?? 0));
      if (revision !== undefined) {
        this.ringSeen = true;
        this.opts.log.info("wrote the ring", { epoch: next.epoch, revision, live, moved: movedCount(current?.ring, next) });
        return { leader: true, wrote: true, epoch: next.epoch, revision };
      }
    }
    this.opts.log.warn("ring compare-and-set kept conflicting; retrying at the next tick", { attempts });
    return { leader: true, wrote: false };
  }

  /**
   * A ring of a higher term than this tenure's: another coordinator took the lease since (its grant and
   * this one's renewal may both have been accepted). Stands by at once; the next tick asks for the lease
   * again, and a grant then begins a new tenure with a higher term.
   */
  private superseded(ringTerm: number): TickOutcome {
    this.opts.log.warn("a coordinator with a newer term wrote the ring: standing by", { term: this.term, ringTerm });
    this.leader = false;
    this.term = 0;
    this.opts.onLeaderChange?.(false);
    return { leader: false, wrote: false };
  }

  /** Whether the first ring still waits for more of the `expectFrontiers` nodes (see the option). */
  private waitingForFrontiers(live: Record<string, string[]>): boolean {
    const expected = this.opts.expectFrontiers ?? 0;
    const count = Object.values(live).reduce((n, ids) => n + ids.length, 0);
    if (count >= expected) return false;
    const waitMs = this.opts.firstRingWaitMs ?? FIRST_RING_WAIT_MS;
    if (this.opts.now() - (this.opts.startedAt ?? Number.NEGATIVE_INFINITY) >= waitMs) {
      this.opts.log.warn("writing the first ring without every expected frontier node", { expected, live: count, waitedMs: waitMs });
      return false;
    }
    if (!this.waitLogged) this.opts.log.info("the first ring waits for the expected frontier nodes", { expected, live: count });
    this.waitLogged = true;
    return true;
  }
}

/** Structural equality of two rings (the stored one may have its keys in another order). */
function sameRing(a: RingRecord, b: RingRecord): boolean {
  if (a.epoch !== b.epoch || a.partitions !== b.partitions || a.vnodes !== b.vnodes || a.deathTimeoutMs !== b.deathTimeoutMs) return false;
  if ((a.leaderTerm ?? 0) !== (b.leaderTerm ?? 0) || ringPolitenessKey(a) !== ringPolitenessKey(b)) return false;
  const ra = Object.keys(a.regions).sort();
  const rb = Object.keys(b.regions).sort();
  if (ra.length !== rb.length || ra.some((r, i) => r !== rb[i])) return false;
  for (const region of ra) {
    const x = a.regions[region]!;
    const y = b.regions[region]!;
    if (!sameList(x.owners, y.owners) || !sameList(x.previous, y.previous)) return false;
  }
  return true;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function movedCount(before: RingRecord | undefined, after: RingRecord): number {
  let moved = 0;
  for (const [region, r] of Object.entries(after.regions)) {
    const old = before?.regions[region];
    r.owners.forEach((o, p) => {
      if (o !== (old?.owners[p] ?? "")) moved++;
    });
  }
  return moved;
}

/**
 * Follows the ring and keeps this node's work in step with it. For every ring written (watchRing), the
 * node's roles in its region (`partitionRoles`) decide:
 *
 *   serve    the frontier serves p (`setServing`), and the node pulls `urls-<p>` (admit, then ack) and
 *            `results-<p>` (complete, then ack). A message is acked only after the store committed it; a
 *            failure naks it with a growing delay, so nothing is lost while Redis or the store is down.
 *   handOff  p moves to another node: its hosts leave the dispatcher at once, `urls-<p>` is released (new
 *            URLs wait in the stream for the new owner), `results-<p>` stays pulled until p has nothing in
 *            flight, and the HandoffSender streams p to its owner and deletes it locally.
 *   await    p is this node's but its previous owner is still handing it over: nothing is pulled yet.
 *
 * With replicated partition state, a partition the ring gives this node is prepared first (claimed, or
 * rebuilt from the replica: frontier-node/replication) and served, pulled and dispatched only once that
 * is done; preparations run a few at a time and are retried until they succeed or the partition leaves.
 * A URL message is then acked only once the rows its admission wrote are in the replica, so an admitted
 * URL is never lost with this node's disk; a result message likewise, so a result applied here but not yet
 * replicated when this node is lost (or paused past the death timeout) is delivered again to the node that
 * rebuilds the partition, which adopts it (engine/frontier/results.ts) instead of fetching the page again.
 *
 * A partition whose seen-set Redis lost (seen-recovery.ts in the engine) is rebuilt from the store before
 * it admits again: its URL messages are nak'ed meanwhile (quietly: the rebuild is logged once). A message
 * delivered again is admitted with every "maybe seen" confirmed in the store, since its first attempt
 * may have set seen-set bits without committing (a failed group, a lost partition, a crash, a node lost
 * with its disk).
 *
 * A results subscription outlives serving for as long as its partition has tasks in flight or a handoff
 * under way; it is released when neither holds. Ring updates are applied one at a time, in revision order.
 */
import { partitionRoles, type RingRecord } from "../../core/cluster/index.ts";
import { isStoreDamage } from "../../core/errors/index.ts";
import { SeenSetLostError, type ClusterState, type Delivery, type MessageBus, type Subscription } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult } from "../../core/model/index.ts";
import { receivedResult } from "../../core/politeness/index.ts";
import { errorFields, type Log } from "../../kit/log/index.ts";
import { GroupCommit } from "../../engine/frontier/index.ts";
import type { Frontier, ResultItem } from "../../engine/frontier/index.ts";
import type { Dispatcher } from "./dispatcher.ts";
import type { HandoffOutcome, HandoffSender } from "./handoff-sender.ts";
import type { Pulse } from "./pulse.ts";

export interface PartitionManagerOptions {
  nodeId: string;
  region: string;
  partitions: number;
  state: Pick<ClusterState, "watchRing" | "getRing">;
  bus: Pick<MessageBus, "consumeUrls" | "consumeResults">;
  frontier: Frontier;
  dispatcher: Pick<Dispatcher, "wake" | "settled" | "forgetPartition">;
  sender: Pick<HandoffSender, "give">;
  pulse: Pulse;
  /** The frontier's clock: a result's times are moved onto it when the result arrives. */
  now: () => number;
  /** After every change of roles and every finished handoff (the node checks whether a drain is over). */
  onChange?: () => void;
  /** Replicated partition state; absent: a partition is served from the local store at once. */
  preparation?: PartitionPreparation;
  /**
   * After a task's result is applied: the node marks the task done in the region's fetch claims, so a
   * delivery of it that comes back later (its fetch node died after publishing the result, before its
   * ack) is dropped unfetched instead of asking the host again after the frontier has moved on.
   */
  onResultApplied?: (taskId: string) => void;
  /**
   * The node's self-fence (self-fence.ts): while it says no, URL and result messages are nak'ed (they come
   * back, here if the ring still leaves their partition here, else to its owner). They do not wait for it:
   * the fence resumes only after applying the ring, which stops URL subscriptions and waits for their
   * handlers. Absent: never suspended.
   */
  fence?: { allows(): boolean };
  log: Log;
}

/** What the manager needs of replicated partition state (the node wires it to its Replicator). */
export interface PartitionPreparation {
  /** Makes p servable (claim, or restore from the replica); rejects to be retried. */
  prepare(p: number): Promise<void>;
  /** p is no longer served here. */
  released(p: number): void;
  /** Resolves once everything committed so far for p is stored in the replica. */
  committed(p: number): Promise<void>;
}

export interface Roles {
  serve: number[];
  handOff: number[];
  await: number[];
}

const NAK_BASE_MS = 500;
const NAK_MAX_MS = 30_000;
/** Partitions prepared (restored) at once. */
const PREPARE_CONCURRENCY = 4;
const PREPARE_RETRY_MAX_MS = 10_000;

export class PartitionManager {
  // Group commit: the URL and result messages of every partition arriving within a few tens of
  // milliseconds go into one transaction, instead of one commit per message.
  private readonly admissions = new GroupCommit<DiscoveredUrl[]>((batches) => this.opts.frontier.admit(batches.flat()));
  private readonly results = new GroupCommit<ResultItem>((items) => this.opts.frontier.completeMany(items));
  private ring: RingRecord | undefined;
  private revision = 0;
  private roles: Roles = { serve: [], handOff: [], await: [] };
  private serving = new Set<number>();
  /** The ring epoch under which each served partition began to be served here (its tasks carry it). */
  private readonly servedSince = new Map<number, number>();
  private readonly urlSubs = new Map<number, Subscription>();
  private readonly resultSubs = new Map<number, Subscription>();
  private readonly handoffs = new Map<number, { abort: AbortController; done: Promise<void> }>();
  private readonly admitting = new Map<number, number>();
  /** Results subscriptions being released; not awaited where they are released (maybe from their own handler). */
  private readonly releasing = new Set<Promise<void>>();
  private chain: Promise<void> = Promise.resolve();
  private unwatch: (() => void) | undefined;
  private stopped = false;
  /** Partitions of `roles.serve` ready to be served (prepared, or no preparation needed). */
  private readonly prepared = new Set<number>();
  private readonly preparing = new Set<number>();
  private readonly prepareQueue: number[] = [];
  private prepareRunning = 0;
  private damageReported = false;

  constructor(private readonly opts: PartitionManagerOptions) {}

  start(): void {
    this.unwatch = this.opts.state.watchRing((ring, revision) => {
      this.chain = this.chain
        .then(() => this.apply(ring, revision))
        .catch((error: unknown) => this.opts.log.error("applying a ring failed", errorFields(error, { revision })));
    });
  }

  /**
   * Reads the ring now and applies it, in turn with the watch's (a revision already applied changes
   * nothing). The self-fence calls it before resuming: after a pause the watch may deliver the ring late.
   * Rejects when the ring cannot be read.
   */
  async refresh(): Promise<void> {
    const got = await this.opts.state.getRing();
    if (!got) return;
    const applied = this.chain.then(() => this.apply(got.ring, got.revision));
    this.chain = applied.catch((error: unknown) =>
      this.opts.log.error("applying a ring failed", errorFields(error, { revision: got.revision })),
    );
    await applied;
  }

  /** The last ring applied, if any. */
  get currentRing(): RingRecord | undefined {
    return this.ring;
  }

  get currentRoles(): Readonly<Roles> {
    return this.roles;
  }

  /**
   * The ring epoch under which partition p began to be served here, its ownership epoch as this node knows
   * it (`FetchTask.ownerEpoch`); undefined when p is not served.
   */
  ownerEpoch(p: number): number | undefined {
    return this.servedSince.get(p);
  }

  /** Partitions served now: the ring's `serve` role, once prepared. */
  get served(): number[] {
    return [...this.serving].sort((a, b) => a - b);
  }

  /** Partitions the ring gives this node that are still being prepared (restored), not served yet. */
  get preparingPartitions(): number[] {
    return [...this.preparing].sort((a, b) => a - b);
  }

  /** Whether partition p is being prepared (a handoff import of it must not run meanwhile). */
  isPreparing(p: number): boolean {
    return this.preparing.has(p);
  }

  /** Partitions with a handoff under way (giving side). */
  get handingOff(): number[] {
    return [...this.handoffs.keys()].sort((a, b) => a - b);
  }

  /** Nothing served, awaited or being handed over: a drained node may leave. */
  get idle(): boolean {
    return (
      this.ring !== undefined &&
      this.preparing.size === 0 &&
      this.roles.serve.length === 0 &&
      this.roles.await.length === 0 &&
      this.roles.handOff.length === 0 &&
      this.handoffs.size === 0
    );
  }

  /** The owner of partition p of `region` under the last ring ("" when none or no ring yet). */
  ownerOf(region: string, p: number): string {
    return this.ring?.regions[region]?.owners[p] ?? "";
  }

  /** True while an admission of partition p is being committed. */
  isAdmitting(p: number): boolean {
    return (this.admitting.get(p) ?? 0) > 0;
  }

  /** Re-reads partition p from the store into the frontier (after an import while it was served). */
  reload(p: number): void {
    if (!this.serving.has(p)) return;
    this.opts.frontier.setServing(this.roles.serve.filter((q) => q !== p));
    this.opts.frontier.setServing(this.roles.serve);
    this.opts.dispatcher.wake();
  }

  /**
   * Stops following the ring and pulling URLs. Handoffs under way go on (they finish as results come in)
   * until `abortHandoffs`; results keep flowing until `stopResults`.
   */
  async stopIntake(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    await this.chain;
    await Promise.all([...this.urlSubs.values()].map((s) => s.stop()));
    this.urlSubs.clear();
  }

  /** Ends the handoffs still under way; their partitions stay in the local store. */
  async abortHandoffs(): Promise<void> {
    for (const h of this.handoffs.values()) h.abort.abort(new Error("node stopping"));
    await Promise.all([...this.handoffs.values()].map((h) => h.done));
  }

  async stopResults(): Promise<void> {
    await Promise.all([...this.resultSubs.values()].map((s) => s.stop()));
    this.resultSubs.clear();
    await Promise.all([...this.releasing]);
  }

  private async apply(ring: RingRecord, revision: number): Promise<void> {
    if (this.stopped || revision <= this.revision) return;
    const { frontier, log, region, nodeId } = this.opts;
    if (ring.partitions !== this.opts.partitions) {
      log.error("ignoring a ring with another partition count; the partition count is fixed for the cluster's life", {
        ring: ring.partitions,
        node: this.opts.partitions,
      });
      return;
    }
    const before = this.roles;
    this.ring = ring;
    this.revision = revision;
    this.roles = partitionRoles(ring, region, nodeId);
    await this.sync();
    if (!sameRoles(before, this.roles)) {
      log.info("ring applied", {
        epoch: ring.epoch,
        revision,
        serve: this.roles.serve.length,
        handOff: this.roles.handOff,
        await: this.roles.await,
      });
    }
  }

  /**
   * Brings serving, subscriptions and handoffs in line with the current roles; partitions still being
   * prepared wait (a finished preparation runs this again).
   */
  private async sync(): Promise<void> {
    if (this.stopped) return;
    const { frontier, region } = this.opts;
    const preparation = this.opts.preparation;
    const wanted = new Set(this.roles.serve);
    for (const p of [...this.prepared]) {
      if (wanted.has(p)) continue;
      this.prepared.delete(p);
      preparation?.released(p);
    }
    for (const p of this.roles.serve) {
      if (!preparation) this.prepared.add(p);
      else if (!this.prepared.has(p)) this.startPreparing(p);
    }
    const servable = this.roles.serve.filter((p) => this.prepared.has(p));
    // Served here and now neither served nor to hand over: the coordinator found this node dead (silent
    // past the death timeout: a pause, a starved box) and another node rebuilt them from the replica. So
    // is one this node now awaits from another node: it went away and is coming back (the ring after the
    // node beat again, maybe the first one it reads). What this node has of them is dropped as a loss would
    // drop it: its tasks in flight there are forgotten (their results go to the new owner, which counts
    // them stale and fetches the pages again), so their results subscriptions are released at once instead
    // of taking the new owner's results.
    const kept = new Set([...this.roles.serve, ...this.roles.handOff]);
    const lost = [...this.serving].filter((p) => !kept.has(p) && !this.handoffs.has(p));
    this.serving = new Set(servable);
    for (const p of [...this.servedSince.keys()]) if (!this.serving.has(p)) this.servedSince.delete(p);
    for (const p of servable) if (!this.servedSince.has(p)) this.servedSince.set(p, this.ring?.epoch ?? 0);
    frontier.setServing(servable);
    if (lost.length > 0) this.dropLost(lost);
    for (const [p, sub] of [...this.urlSubs]) {
      if (this.serving.has(p)) continue;
      this.urlSubs.delete(p);
      await sub.stop();
    }
    for (const p of servable) {
      if (!this.urlSubs.has(p))
        this.urlSubs.set(
          p,
          this.opts.bus.consumeUrls(region, p, (d) => this.onUrls(p, d)),
        );
      if (!this.resultSubs.has(p))
        this.resultSubs.set(
          p,
          this.opts.bus.consumeResults(region, p, (d) => this.onResult(p, d)),
        );
    }
    for (const [p, h] of this.handoffs) if (wanted.has(p)) h.abort.abort(new Error("partition came back to this node"));
    for (const p of this.roles.handOff) this.startHandoff(p);
    this.pruneResults();
    this.opts.dispatcher.wake();
    this.opts.onChange?.();
  }

  /** Forgets the tasks out for partitions lost without a handoff (see `sync`); their hosts leave memory. */
  private dropLost(lost: number[]): void {
    let tasks = 0;
    for (const p of lost) {
      for (const task of this.opts.dispatcher.forgetPartition(p)) {
        this.opts.frontier.abandon(task);
        tasks++;
      }
    }
    this.opts.frontier.counters.add("node.partitions.lost", lost.length);
    this.opts.log.warn("partitions taken from this node without a handoff (it was found dead); dropped with their tasks in flight", {
      partitions: lost,
      tasks,
    });
  }

  /** Queues p's preparation (a few run at once); when it is done, p is served if it is still this node's. */
  private startPreparing(p: number): void {
    if (this.preparing.has(p)) return;
    this.preparing.add(p);
    this.prepareQueue.push(p);
    this.runPreparations();
  }

  private runPreparations(): void {
    while (this.prepareRunning < PREPARE_CONCURRENCY && this.prepareQueue.length > 0) {
      const p = this.prepareQueue.shift()!;
      this.prepareRunning++;
      void this.prepareUntilDone(p).finally(() => {
        this.prepareRunning--;
        this.preparing.delete(p);
        this.runPreparations();
        this.chain = this.chain
          .then(() => this.sync())
          .catch((error: unknown) => this.opts.log.error("serving a prepared partition failed", { error, partition: p }));
        this.opts.pulse.notify();
      });
    }
  }

  private async prepareUntilDone(p: number): Promise<void> {
    for (let attempt = 0; !this.stopped && this.roles.serve.includes(p); attempt++) {
      try {
        await this.opts.preparation!.prepare(p);
        this.prepared.add(p);
        return;
      } catch (error) {
        const delay = Math.min(PREPARE_RETRY_MAX_MS, 250 * 2 ** Math.min(attempt, 10));
        this.opts.log.warn("preparing a partition failed; it is not served until this succeeds", { partition: p, retryInMs: delay, error });
        await this.opts.pulse.wait(delay);
      }
    }
  }

  private startHandoff(p: number): void {
    if (this.handoffs.has(p) || this.stopped) return;
    const abort = new AbortController();
    let outcome: HandoffOutcome | undefined;
    const done = this.opts.sender
      .give(p, abort.signal)
      .then((o: HandoffOutcome) => {
        outcome = o;
        if (o === "left-in-store") this.opts.frontier.counters.add("handoff.left-in-store");
      })
      .catch((error: unknown) => this.opts.log.error("handoff failed", errorFields(error, { partition: p })))
      .finally(() => {
        this.handoffs.delete(p);
        this.pruneResults();
        // A partition that came back (kept, or aborted for it) may have been moved away again meanwhile, by
        // a ring applied while this handoff still ran. (One handed over is gone from the store: done.)
        const again = outcome === "kept" || outcome === "stopped";
        if (again && !this.stopped && this.roles.handOff.includes(p)) this.startHandoff(p);
        this.opts.pulse.notify();
        this.opts.onChange?.();
      });
    this.handoffs.set(p, { abort, done });
  }

  /**
   * Releases results subscriptions of partitions neither served, nor being handed over, nor in flight.
   * Called from result handlers too, so it never waits for a subscription to stop (stop waits for its
   * running handlers); `stopResults` waits for them.
   */
  private pruneResults(): void {
    for (const [p, sub] of [...this.resultSubs]) {
      if (this.serving.has(p) || this.handoffs.has(p) || this.opts.frontier.inFlightIn(p) > 0) continue;
      this.resultSubs.delete(p);
      const stopping: Promise<void> = sub
        .stop()
        .catch((error: unknown) => this.opts.log.warn("releasing a results subscription failed", errorFields(error, { partition: p })))
        .finally(() => this.releasing.delete(stopping));
      this.releasing.add(stopping);
    }
  }

  /** Stops consuming p's results before p is handed over (see HandoffSenderOptions.releaseResults). */
  async releaseResults(p: number): Promise<void> {
    if (this.serving.has(p) || this.opts.frontier.inFlightIn(p) > 0) return;
    const sub = this.resultSubs.get(p);
    if (!sub) return;
    this.resultSubs.delete(p);
    await sub.stop();
  }

  /** After released fetches (the lost-fetch sweep): results of partitions no longer served may be let go. */
  released(): void {
    this.pruneResults();
    this.opts.pulse.notify();
  }

  /** A store found damaged while running: said once, loudly, with what to do (its messages keep coming back). */
  private storeTrouble(error: unknown): void {
    if (!isStoreDamage(error) || this.damageReported) return;
    this.damageReported = true;
    this.opts.log.error(
      "the frontier store is damaged: restart this node; at start the store is checked and, with --replicate-state, moved aside and every partition rebuilt from the replica",
      { error },
    );
  }

  private async onUrls(p: number, d: Delivery<DiscoveredUrl[]>): Promise<void> {
    const { frontier } = this.opts;
    if (!(this.opts.fence?.allows() ?? true) || !this.serving.has(p)) {
      // Suspended (p may be another node's now), or p released as the message came: it comes back.
      d.nak(NAK_BASE_MS);
      return;
    }
    const urls = d.data.filter((u) => frontier.partitionOf(u.host) === p);
    if (urls.length < d.data.length) frontier.counters.add("node.urls.misrouted", d.data.length - urls.length);
    if (frontier.seenRebuilding(p)) {
      // Its seen-set is being rebuilt from the store: nothing of p is admitted until that is done.
      frontier.counters.add("node.urls.waiting-for-seen-rebuild");
      d.nak(nakDelay(d.deliveryCount));
      return;
    }
    this.admitting.set(p, (this.admitting.get(p) ?? 0) + 1);
    try {
      // A message delivered again may have had its URLs' seen-set bits set by an attempt that never
      // committed (a crash, a lost seen-set partition, a node lost with its disk): the store, not the
      // Bloom filter, decides.
      if (urls.length > 0 && d.deliveryCount > 1) await frontier.admit(urls, { confirmSeen: true });
      else if (urls.length > 0) await this.admissions.submit(urls);
    } catch (error) {
      if (error instanceof SeenSetLostError) {
        frontier.counters.add("node.urls.waiting-for-seen-rebuild");
      } else {
        this.storeTrouble(error);
        frontier.counters.add("node.urls.admit-failed");
        this.opts.log.warn(
          "admitting URLs failed; the message will be redelivered",
          errorFields(error, { partition: p, deliveries: d.deliveryCount }),
        );
      }
      d.nak(nakDelay(d.deliveryCount));
      return;
    } finally {
      this.admitting.set(p, (this.admitting.get(p) ?? 1) - 1);
      this.opts.pulse.notify();
    }
    frontier.counters.add("node.urls.received", urls.length);
    this.opts.dispatcher.wake();
    return this.ackWhenReplicated(p, d);
  }

  /**
   * Acks a message whose rows are committed here: at once without a replica; with one, once those rows are
   * in it, not waiting for that (the next message goes on, and the consumer's max ack pending bounds how
   * many wait); if they never get there, it comes back.
   */
  private ackWhenReplicated<T>(p: number, d: Delivery<T>): Promise<void> {
    const preparation = this.opts.preparation;
    if (!preparation) return d.ack();
    preparation.committed(p).then(
      () => d.ack(),
      () => d.nak(nakDelay(d.deliveryCount)),
    );
    return Promise.resolve();
  }

  private async onResult(p: number, d: Delivery<FetchResult>): Promise<void> {
    const { frontier } = this.opts;
    const mine = this.serving.has(p) || this.handoffs.has(p) || frontier.inFlightIn(p) > 0;
    if (!(this.opts.fence?.allows() ?? true) || !mine) {
      // Suspended (p may be another node's now), or nothing of p is this node's any more (lost without a
      // handoff): the result comes back, to its new owner if p moved.
      d.nak(NAK_BASE_MS);
      return;
    }
    try {
      // The fetch node timed the fetch on its own clock; from here on the times are on the frontier's.
      await this.results.submit({ result: receivedResult(d.data, this.opts.now()), links: [], confirmSeen: d.deliveryCount > 1 });
    } catch (error) {
      this.storeTrouble(error);
      frontier.counters.add("node.results.apply-failed");
      if (!(error instanceof SeenSetLostError)) {
        this.opts.log.warn(
          "applying a fetch result failed; the message will be redelivered",
          errorFields(error, { partition: p, taskId: d.data.taskId, deliveries: d.deliveryCount }),
        );
      }
      d.nak(nakDelay(d.deliveryCount));
      return;
    }
    this.opts.dispatcher.settled(d.data.taskId);
    this.opts.onResultApplied?.(d.data.taskId);
    frontier.counters.add("node.results.received");
    await this.ackWhenReplicated(p, d);
    this.opts.dispatcher.wake();
    this.opts.pulse.notify();
    if (!this.serving.has(p)) this.pruneResults();
  }
}

function nakDelay(deliveryCount: number): number {
  return Math.min(NAK_MAX_MS, NAK_BASE_MS * 2 ** Math.max(0, Math.min(deliveryCount - 1, 10)));
}

function sameRoles(a: Roles, b: Roles): boolean {
  const eq = (x: number[], y: number[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return eq(a.serve, b.serve) && eq(a.handOff, b.handOff) && eq(a.await, b.await);
}

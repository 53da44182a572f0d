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
 * A partition whose seen-set Redis lost (seen-recovery.ts in the engine) is rebuilt from the store before
 * it admits again: its URL messages are nak'ed meanwhile (quietly: the rebuild is logged once). A message
 * delivered again is admitted with every "maybe seen" confirmed in the store, since its first attempt
 * may have set seen-set bits without committing (a failed group, a lost partition, a crash).
 *
 * A results subscription outlives serving for as long as its partition has tasks in flight or a handoff
 * under way; it is released when neither holds. Ring updates are applied one at a time, in revision order.
 */
import { partitionRoles, type RingRecord } from "../../core/cluster/index.ts";
import { SeenSetLostError, type ClusterState, type Delivery, type MessageBus, type Subscription } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
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
  state: Pick<ClusterState, "watchRing">;
  bus: Pick<MessageBus, "consumeUrls" | "consumeResults">;
  frontier: Frontier;
  dispatcher: Pick<Dispatcher, "wake" | "settled">;
  sender: Pick<HandoffSender, "give">;
  pulse: Pulse;
  /** After every change of roles and every finished handoff (the node checks whether a drain is over). */
  onChange?: () => void;
  log: Log;
}

export interface Roles {
  serve: number[];
  handOff: number[];
  await: number[];
}

const NAK_BASE_MS = 500;
const NAK_MAX_MS = 30_000;

export class PartitionManager {
  // Group commit: the URL and result messages of every partition arriving within a few tens of
  // milliseconds go into one transaction, instead of one commit per message.
  private readonly admissions = new GroupCommit<DiscoveredUrl[]>((batches) => this.opts.frontier.admit(batches.flat()));
  private readonly results = new GroupCommit<ResultItem>((items) => this.opts.frontier.completeMany(items));
  private ring: RingRecord | undefined;
  private revision = 0;
  private roles: Roles = { serve: [], handOff: [], await: [] };
  private serving = new Set<number>();
  private readonly urlSubs = new Map<number, Subscription>();
  private readonly resultSubs = new Map<number, Subscription>();
  private readonly handoffs = new Map<number, { abort: AbortController; done: Promise<void> }>();
  private readonly admitting = new Map<number, number>();
  /** Results subscriptions being released; not awaited where they are released (maybe from their own handler). */
  private readonly releasing = new Set<Promise<void>>();
  private chain: Promise<void> = Promise.resolve();
  private unwatch: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly opts: PartitionManagerOptions) {}

  start(): void {
    this.unwatch = this.opts.state.watchRing((ring, revision) => {
      this.chain = this.chain
        .then(() => this.apply(ring, revision))
        .catch((error: unknown) => this.opts.log.error("applying a ring failed", errorFields(error, { revision })));
    });
  }

  /** The last ring applied, if any. */
  get currentRing(): RingRecord | undefined {
    return this.ring;
  }

  get currentRoles(): Readonly<Roles> {
    return this.roles;
  }

  /** Partitions with a handoff under way (giving side). */
  get handingOff(): number[] {
    return [...this.handoffs.keys()].sort((a, b) => a - b);
  }

  /** Nothing served, awaited or being handed over: a drained node may leave. */
  get idle(): boolean {
    return (
      this.ring !== undefined &&
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
    this.serving = new Set(this.roles.serve);
    frontier.setServing(this.roles.serve);
    for (const [p, sub] of [...this.urlSubs]) {
      if (this.serving.has(p)) continue;
      this.urlSubs.delete(p);
      await sub.stop();
    }
    for (const p of this.roles.serve) {
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
    for (const [p, h] of this.handoffs) if (this.serving.has(p)) h.abort.abort(new Error("partition came back to this node"));
    for (const p of this.roles.handOff) this.startHandoff(p);
    this.pruneResults();
    if (!sameRoles(before, this.roles)) {
      log.info("ring applied", {
        epoch: ring.epoch,
        revision,
        serve: this.roles.serve.length,
        handOff: this.roles.handOff,
        await: this.roles.await,
      });
    }
    this.opts.dispatcher.wake();
    this.opts.onChange?.();
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

  private async onUrls(p: number, d: Delivery<DiscoveredUrl[]>): Promise<void> {
    const { frontier } = this.opts;
    const urls = d.data.filter((u) => partitionOf(u.host, this.opts.partitions) === p);
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
      // committed: the store, not the Bloom filter, decides.
      if (urls.length > 0 && d.deliveryCount > 1) await frontier.admit(urls, { confirmSeen: true });
      else if (urls.length > 0) await this.admissions.submit(urls);
    } catch (error) {
      if (error instanceof SeenSetLostError) {
        frontier.counters.add("node.urls.waiting-for-seen-rebuild");
      } else {
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
    await d.ack();
    this.opts.dispatcher.wake();
  }

  private async onResult(p: number, d: Delivery<FetchResult>): Promise<void> {
    const { frontier } = this.opts;
    try {
      await this.results.submit({ result: d.data, links: [], confirmSeen: d.deliveryCount > 1 });
    } catch (error) {
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
    frontier.counters.add("node.results.received");
    await d.ack();
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

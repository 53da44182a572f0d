/**
 * Inboxes of fetch nodes that are gone, and who takes them over (host affinity, docs/cluster.md "Fetch
 * node"). Frontier nodes send a host's tasks to the inbox of the fetch node chosen for it; when that node
 * dies (kill -9, its heartbeat lapses), stops (its record deleted), drains, or cannot reach the web (its
 * `localTrouble` gauge: it hands every task back untried), what waits in its inbox must still be fetched. Its **heir** does it: the live fetch node that rendezvous hashing of the gone node's id
 * picks among the region's live fetch nodes (core/cluster/fetcher-choice.ts), so every fetch node reading
 * the same records names the same heir without asking anybody. The heir pulls the gone node's inbox
 * consumer itself, as a second subscriber of it, which changes nothing for the tasks:
 *
 *  - a task never delivered is delivered to the heir at once;
 *  - a task the gone node had taken and not acked comes back after the fetch ack wait, with the same stored
 *    copy, so the fetch claims see the redelivery it is (fetch-node/copy-claims.ts) and the heir spaces it by
 *    the host's gap, exactly as when every fetch node shared one consumer. Re-sending the tasks as new copies
 *    instead would make the claims drop a copy whose first copy the dead node had claimed, and its host
 *    would wait for the frontier's fetch lease.
 *
 * A node that comes back (thawed, restarted with its id) pulls its inbox again; the heir lets go of it at
 * its next look, and the frontier nodes send it its hosts again once its heartbeat is fresh. While both
 * pull, they share the consumer as any two subscribers of one queue do.
 *
 * Clean-up: once the gone node's inbox holds no task and the node has been gone for `removeAfterMs` (long
 * after every frontier node stopped sending to it), the heir removes the inbox (MessageBus.removeTaskInbox:
 * only if empty; a task that reaches it meanwhile makes it again), and lets go. Tasks sent to an inbox whose
 * consumer is gone (a frontier node that judged late) are listed by `taskInboxes` all the same, so an heir
 * takes them too: no task waits for a node that never comes.
 *
 * Cost: one read of the node records and one list of the region's inboxes (two JetStream API calls) every
 * `everyMs` (2 s) per fetch node; an adopted inbox costs a
 * pull request every few seconds while it is empty.
 */
import { FetcherChoice, liveFetchers } from "../core/cluster/index.ts";
import type { FetchTask } from "../core/model/index.ts";
import type { ClusterState, Delivery, MessageBus, Subscription } from "../core/ports/index.ts";
import type { Counters } from "../core/stats/index.ts";
import { errorFields, type Log } from "../kit/log/index.ts";

export interface InboxHeirsOptions {
  bus: Pick<MessageBus, "consumeTasks" | "taskInboxes" | "removeTaskInbox">;
  state: Pick<ClusterState, "listNodes">;
  region: string;
  nodeId: string;
  /** Handlers an adopted inbox runs at once. */
  concurrency: number;
  handler: (d: Delivery<FetchTask>) => Promise<void>;
  /**
   * A fetch node whose heartbeat is older than this is gone and its inbox taken over. Default 5 s, half the
   * cluster's death timeout: taking over a node that was only slow costs nothing but its hosts' affinity for
   * a moment (both pull the inbox, as two subscribers of one queue), while each second of waiting holds its
   * hosts' tasks.
   */
  deadAfterMs?: number;
  /** How long a node must have been gone, its inbox empty, before the inbox is removed. Default 2 min. */
  removeAfterMs?: number;
  everyMs?: number;
  now?: () => number;
  log: Log;
  /** Where adoptions are counted (`fetcher.inboxes.adopted`, `fetcher.inboxes.removed`): the node's counters. */
  counters?: Counters;
}

const REREAD_AFTER_CHANGE_MS = 50;

export class InboxHeirs {
  /** Inboxes of gone nodes this node pulls, by node id. */
  private readonly adopted = new Map<string, Subscription>();
  /** When each gone node was first seen gone (this node's clock). */
  private readonly goneSince = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private soon: ReturnType<typeof setTimeout> | undefined;
  private looking: Promise<void> | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly o: InboxHeirsOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Node ids whose inboxes this node pulls now, besides its own. */
  get adoptedInboxes(): string[] {
    return [...this.adopted.keys()].sort();
  }

  start(): void {
    // Polled, not watched: a watch of the node records brings every heartbeat of every node to every fetch
    // node, a cost per node that grows with the fleet; a node stopping said "draining" first anyway.
    this.timer = setInterval(() => void this.look(), this.o.everyMs ?? 2_000);
    this.lookSoon();
  }

  /** Stops looking and lets go of every adopted inbox (its tasks go on waiting for their node or another heir). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soon) clearTimeout(this.soon);
    await this.looking;
    await Promise.all([...this.adopted.values()].map((s) => s.stop()));
    this.adopted.clear();
  }

  /** One look now (tests); resolves when it is done. */
  look(): Promise<void> {
    this.looking ??= this.sweep().finally(() => (this.looking = undefined));
    return this.looking;
  }

  private lookSoon(): void {
    if (this.soon || this.stopped) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.look();
    }, REREAD_AFTER_CHANGE_MS);
  }

  private async sweep(): Promise<void> {
    if (this.stopped) return;
    const { region, nodeId, log } = this.o;
    let live: string[];
    let inboxes: Awaited<ReturnType<MessageBus["taskInboxes"]>>;
    try {
      [live, inboxes] = await Promise.all([
        this.o.state.listNodes().then((nodes) => liveFetchers(nodes, region, Date.now(), this.o.deadAfterMs ?? 5_000)),
        this.o.bus.taskInboxes(region),
      ]);
    } catch (error) {
      // Nothing learned: what is adopted stays adopted until a look succeeds.
      log.warn("could not read the node records or the inboxes; adopted inboxes as they were", errorFields(error));
      return;
    }
    if (this.stopped) return;
    // This node counts itself live whatever its record says: it is running.
    const choice = new FetcherChoice([...live, nodeId]);
    const liveSet = new Set(live);
    const now = this.now();
    const present = new Set<string>();
    for (const inbox of inboxes) {
      const gone = inbox.node;
      present.add(gone);
      if (gone === nodeId) continue;
      if (liveSet.has(gone)) {
        this.goneSince.delete(gone);
        await this.letGo(gone, "its node is back");
        continue;
      }
      if (!this.goneSince.has(gone)) this.goneSince.set(gone, now);
      if (choice.of(gone) !== nodeId) {
        await this.letGo(gone, "another node is its heir");
        continue;
      }
      this.adopt(gone, inbox.waiting + inbox.unacked);
      if (inbox.waiting + inbox.unacked > 0 || now - this.goneSince.get(gone)! < (this.o.removeAfterMs ?? 120_000)) continue;
      // Let go first: a subscription that finds its inbox removed under it makes it again.
      await this.letGo(gone, "removing it");
      try {
        if (await this.o.bus.removeTaskInbox(region, gone)) {
          log.info("removed the empty inbox of a fetch node gone long ago", { node: gone });
          this.o.counters?.add("fetcher.inboxes.removed");
          this.goneSince.delete(gone);
        } else {
          this.adopt(gone, 1); // a task reached it meanwhile
        }
      } catch (error) {
        this.adopt(gone, 0);
        log.warn("could not remove a gone fetch node's inbox; trying again later", errorFields(error, { node: gone }));
      }
    }
    // Inboxes no longer listed (removed by another heir) are let go; so are the gone times of nodes without one.
    for (const id of [...this.adopted.keys()]) if (!present.has(id)) await this.letGo(id, "no longer listed");
    for (const id of [...this.goneSince.keys()]) if (!present.has(id)) this.goneSince.delete(id);
  }

  private adopt(gone: string, tasks: number): void {
    if (this.adopted.has(gone) || this.stopped) return;
    const { region, concurrency, handler } = this.o;
    this.adopted.set(gone, this.o.bus.consumeTasks(region, handler, { concurrency, inbox: gone }));
    this.o.counters?.add("fetcher.inboxes.adopted");
    this.o.log.info("pulling the inbox of a fetch node that is gone (its heir)", { node: gone, tasks });
  }

  private async letGo(id: string, why: string): Promise<void> {
    const sub = this.adopted.get(id);
    if (!sub) return;
    this.adopted.delete(id);
    await sub.stop();
    this.o.log.info("stopped pulling another fetch node's inbox", { node: id, why });
  }
}

/**
 * The cluster's ports: the shared state (membership and ring) and the message bus. Each has an in-process
 * implementation (tests, embedded) and a networked one (NATS KV and JetStream, under adapters/), and one
 * contract test suite runs against both.
 */
import type { DiscoveredUrl, FetchResult, FetchTask } from "../model/index.ts";
import type { NodeRecord, RingRecord } from "../cluster/index.ts";
import type { JobRegistry } from "./job-registry.ts";

/**
 * Membership and ring, revisioned. Contract:
 *  - `putNode` overwrites the node's record; `listNodes` returns every record not deleted, whatever its age
 *    (deciding death from `heartbeatAt` is the reader's job).
 *  - `getNode(id)` returns the node's record, or undefined when it has none (one record: what a node
 *    reads of itself at every heartbeat, cheaper than listing every record).
 *  - `nodeHistory(id)` returns the node's last few records since it was last deleted, oldest first, ending
 *    with the current one (at least the last 5 writes are kept); [] for a node with no record. A reader
 *    that starts late (a coordinator just started) gets rates from it without waiting for new beats.
 *  - `getRing` returns the ring and its revision, or undefined before the first write.
 *  - `casRing(ring, revision)` writes only if the stored revision still equals `revision` (0: only if no ring
 *    exists yet) and returns the new revision; it returns undefined on a conflict and writes nothing.
 *  - `watchRing` calls back with the current ring (if any) and then with every later write, in order.
 *  - `watchNodes` calls back with the id of every node record present (as a write), then with every later
 *    write and delete of a node record, in order, until the returned function is called. It says which
 *    record changed and how, not what it holds (a reader reads the records it needs); after a lost
 *    connection it resumes after the last change it delivered. Meant to react at once to a node joining or
 *    leaving; a reader must still not depend on hearing every change (it may also read on a schedule).
 *  - `acquireLease(name, holder, ttlMs, now)` grants the lease when it is free, expired, or already held by
 *    `holder` (renewal), atomically, and returns the revision of that write (a positive number, higher
 *    than that of any grant before it: the revision of the grant that began a tenure is its term); false
 *    otherwise.
 *  - `addScopeRoots(hosts)` stores the host names of seeds (the roots `--scope host|domain` keeps a crawl
 *    on), idempotently, and resolves once they are stored; roots are never removed.
 *  - `watchScopeRoots` calls back with every root stored so far (in one or more calls), then with the roots
 *    added later, each at least once, until the returned function is called.
 *  - the crawl job records: the JobRegistry contract (job-registry.ts).
 */
export interface ClusterState extends JobRegistry {
  putNode(record: NodeRecord): Promise<void>;
  deleteNode(id: string): Promise<void>;
  listNodes(): Promise<NodeRecord[]>;
  getNode(id: string): Promise<NodeRecord | undefined>;
  nodeHistory(id: string): Promise<NodeRecord[]>;
  getRing(): Promise<{ ring: RingRecord; revision: number } | undefined>;
  casRing(ring: RingRecord, revision: number): Promise<number | undefined>;
  watchRing(onRing: (ring: RingRecord, revision: number) => void): () => void;
  watchNodes(onChange: (change: NodeChange) => void): () => void;
  acquireLease(name: string, holder: string, ttlMs: number, now: number): Promise<number | false>;
  addScopeRoots(hosts: readonly string[]): Promise<void>;
  watchScopeRoots(onRoots: (hosts: string[]) => void): () => void;
  close(): Promise<void>;
}

/** A node record written (`put`: joined, or a heartbeat) or deleted (`delete`: left), as `watchNodes` says it. */
export interface NodeChange {
  id: string;
  kind: "put" | "delete";
}

/** A message handed to a consumer; exactly one of ack / nak / term must be called. */
export interface Delivery<T> {
  data: T;
  /** How many times this message has been delivered (1 the first time). */
  deliveryCount: number;
  /**
   * Which stored copy of a message this is: its sequence in the stream (JetStream's stream sequence, the
   * memory bus's own). Every delivery of one stored message has the same copy; a message published again
   * and stored a second time (outside the duplicate window, or after a server rebuilt its window) is
   * another copy, with another number.
   */
  copy: number;
  ack(): Promise<void>;
  /** Redeliver, after `delayMs` when given. */
  nak(delayMs?: number): void;
  /** Never redeliver (a poison message). */
  term(reason: string): void;
}

/** Where `publishTask` stores a task (see the MessageBus contract). */
export interface TaskRoute {
  /** n >= 1: the n-th re-offer of the task, a new stored copy. Default 0: the task itself. */
  reoffer?: number;
  /** The fetch node whose inbox takes the task (not for a task asking for rendering); absent: the shared queue. */
  to?: string;
}

/** A fetch node's inbox as `taskInboxes` lists it. */
export interface TaskInbox {
  node: string;
  /** Tasks stored and not out: never delivered yet, or given back (nak'ed, an ack wait run out). */
  waiting: number;
  /** Tasks delivered and not yet acked. */
  unacked: number;
}

export interface Subscription {
  /** Stops pulling; messages delivered but not acked are redelivered after the ack wait. */
  stop(): Promise<void>;
}

/**
 * The crawl's message bus. Contract:
 *  - A publish resolves once the bus has stored the message durably (JetStream ack); a rejected publish
 *    rejects, and nothing is half-published.
 *  - `publishTask` dedups on `task.taskId` within the bus's duplicate window. With `route.reoffer` n >= 1
 *    it stores the task again as a new copy (another `Delivery.copy`, the same task id inside), deduped on
 *    the pair (task id, n): the frontier's re-offer of a task whose delivery may have been lost
 *    (frontier-node/node/dispatcher.ts); the fetch claims let one copy of a task be fetched. A duplicate
 *    is stored once wherever it was sent first, whatever its `to` says the second time.
 *  - A task that asks for rendering (`task.render`) goes to the region's render queue, consumed only with
 *    `consumeTasks(..., { render: true })` (fetch nodes that have a browser). Every other task goes to the
 *    inbox of fetch node `route.to` when given (host affinity: core/cluster/fetcher-choice.ts), else to the
 *    region's shared fetch queue (`consumeTasks` with neither `render` nor `inbox`). A task is never
 *    delivered to another queue's subscribers.
 *  - Fetch node X's inbox is consumed with `consumeTasks(..., { inbox: X })`, by X itself and, once X is
 *    gone, by its heir (fetch-node/inbox-heirs.ts): every subscriber of one inbox shares it as subscribers of
 *    one queue do (a delivery not acked comes back after the ack wait, to any of them; its `copy` is the
 *    same whoever takes it, so the fetch claims see a redelivery, not a second copy). Tasks sent to an
 *    inbox nobody consumes wait in it, durably, until someone does. An inbox exists from the first task
 *    sent to it, `ensureTaskInbox` or the first subscription to it, whichever comes first. `ensureRegion` gives
 *    the inboxes that exist the region's task settings (a changed ack wait) in place.
 *  - `taskInboxes(region)` lists the region's inboxes that exist, with the tasks waiting in each (stored,
 *    not yet delivered, or nak'ed and waiting for their delay) and out unacked; `removeTaskInbox(region, X)`
 *    removes X's inbox only when it holds no task and answers whether it did; a task sent to X after that
 *    makes the inbox again (nothing is dropped). A subscription to an inbox that is removed under it
 *    makes it again.
 *  - `onTasksMayBeLost(region, f)` calls `f` (with why) whenever fetch tasks the bus delivered before may
 *    have been lost on their way to a fetch node without the bus knowing: this process's connection came
 *    back after a drop (its server may have restarted), or the region's fetch (or render) consumer elected a new
 *    leader. Such a task would come back only after the fetch ack wait. Returns the unsubscribe. A bus
 *    that cannot lose a delivery (in memory) never calls it.
 *  - A consumer's handler is called for one message at a time per subscription unless `concurrency` says
 *    otherwise; a message not acked within the ack wait (or nak'ed) is delivered again, possibly to another
 *    subscriber of the same consumer. Messages of one partition go to one durable consumer, shared by
 *    whoever subscribes to it.
 */
export interface MessageBus {
  /** Creates the region's streams and consumers when missing (idempotent). */
  ensureRegion(region: string, partitions: number): Promise<void>;
  publishTask(region: string, task: FetchTask, route?: TaskRoute): Promise<void>;
  onTasksMayBeLost(region: string, f: (why: string) => void): () => void;
  publishResult(region: string, result: FetchResult): Promise<void>;
  publishUrls(region: string, partition: number, urls: readonly DiscoveredUrl[]): Promise<void>;
  consumeTasks(
    region: string,
    handler: (d: Delivery<FetchTask>) => Promise<void>,
    opts: { concurrency: number; render?: boolean; inbox?: string },
  ): Subscription;
  /** Makes fetch node `node`'s inbox when missing (idempotent): a fetch node's at its start, before it announces itself. */
  ensureTaskInbox(region: string, node: string): Promise<void>;
  taskInboxes(region: string): Promise<TaskInbox[]>;
  removeTaskInbox(region: string, node: string): Promise<boolean>;
  consumeUrls(region: string, partition: number, handler: (d: Delivery<DiscoveredUrl[]>) => Promise<void>): Subscription;
  consumeResults(region: string, partition: number, handler: (d: Delivery<FetchResult>) => Promise<void>): Subscription;
  close(): Promise<void>;
}

/**
 * The dispatch loop of a frontier node, the cluster's counterpart of embedded/crawl-loop.ts: it asks the
 * frontier for tasks whose hosts may be fetched now (at most one per host, at most `credit` in flight for
 * the node) and publishes them to the region's fetch subject instead of running them. Results come back
 * through the results consumers, which call `settled` and `wake`; the loop sleeps until the next host is
 * due or until woken, never on a fixed tick.
 *
 * A task whose publish fails (NATS down, or the connection dropped before the server confirmed it) stays
 * in flight and is published again, with the same task id, before any new task: the stream stores a task
 * id once within its duplicate window, so a publish that did reach the server before the failure is not
 * doubled, and its host is never given a second task while the first may exist. Only after `republishForMs`
 * (well inside the window) of failures is the task given back to the frontier (`abandon`: its URL stays at
 * the head of its host's queue, the host waits a gap). So an outage shorter than that costs each host in
 * flight the outage and its gap; a longer one costs those hosts their gap once more, after the outage.
 *
 * A task whose publish was confirmed can still be lost on its way to a fetch node: a NATS server killed
 * while delivering it (or a consumer leader lost with its server) counts it as out, and it comes back only
 * after the fetch consumer's ack wait (60 s, kept long on purpose), its host stalled that long. So when the
 * bus says deliveries may have been lost (`onTasksMayBeLost`: the connection is back after a drop, the
 * fetch consumer has a new leader), every task stored before and still unanswered is **re-offered**:
 * published again as a new stored copy (`publishTask(region, task, n)`, the n-th re-offer of it), the same
 * task id inside. The fetch claims let one copy of a task be fetched (fetch-node/copy-claims.ts): if the
 * original reached a fetch node, the re-offer is acked unfetched; if it was lost, the re-offer is fetched
 * and the original's redelivery is dropped later. That needs the region-wide claims (Redis): with claims
 * held within each fetch node, two nodes can each fetch one copy. A re-offer whose publish fails is
 * published again (same number) until `republishForMs` has passed, then dropped: the original is still
 * there. Tasks waiting to be published again (above) are not re-offered: they are on their way.
 *
 * Nothing is handed out, published again or re-offered while the node's self-fence says no (`fence`,
 * self-fence.ts: its last heartbeat written is old enough that its partitions may have moved); it is
 * asked right before each hand-out, so a thawed node's overdue timer cannot run the loop past it.
 */
import type { MessageBus, TaskRoute } from "../../core/ports/index.ts";
import type { FetchTask } from "../../core/model/index.ts";
import { errorFields, type Log } from "../../kit/log/index.ts";
import type { Frontier } from "../../engine/frontier/index.ts";

export interface DispatcherOptions {
  frontier: Frontier;
  bus: Pick<MessageBus, "publishTask" | "onTasksMayBeLost">;
  region: string;
  /** Most tasks in flight for this node. */
  credit: number;
  /** How long a task whose publish fails is published again before it is given back. Default 60 s. */
  republishForMs?: number;
  now: () => number;
  /** The ownership epoch of a served partition, stamped on its tasks (`FetchTask.ownerEpoch`). */
  ownerEpoch?: (partition: number) => number | undefined;
  /**
   * The fetch node to send a task to (host affinity: frontier-node/node/fetchers-watch.ts), or undefined
   * for the region's shared queue. Absent: always the shared queue.
   */
  fetcherOf?: (task: FetchTask) => string | undefined;
  /** Asked before every hand-out: false while the node may have lost its partitions (self-fence.ts). */
  fence?: { allows(): boolean };
  log: Log;
}

/** Longest sleep between two looks at the frontier, so a missed wake-up costs at most this. */
const MAX_SLEEP_MS = 1_000;
/** Backoff after a failed publish (the bus is probably down), doubling up to the max. */
const PUBLISH_BACKOFF_MS = 100;
const MAX_PUBLISH_BACKOFF_MS = 1_000;
/** Half the streams' default duplicate window (2 min): a task published again within it is stored once. */
const REPUBLISH_FOR_MS = 60_000;

export class Dispatcher {
  /** Tasks published and not yet answered, by id: given back on a stop. */
  private readonly published = new Map<string, FetchTask>();
  /** Tasks whose publish failed, by id, with when it first failed: published again before new ones. */
  private readonly unconfirmed = new Map<string, { task: FetchTask; since: number }>();
  /** Tasks whose publish the bus confirmed, by id, with how many times each was re-offered since. */
  private readonly stored = new Map<string, number>();
  /** Re-offers to publish, by task id, with the re-offer's number and when it was asked for. */
  private readonly reoffers = new Map<string, { task: FetchTask; n: number; since: number }>();
  private unwatch: (() => void) | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was not asleep: the next sleep ends at once. */
  private woken = false;
  private backoffMs = 0;

  constructor(private readonly opts: DispatcherOptions) {}

  start(): void {
    this.unwatch ??= this.opts.bus.onTasksMayBeLost(this.opts.region, (why) => this.reofferStored(why));
    this.running ??= this.loop();
  }

  /** Stops publishing; resolves when the loop has ended (publishes under way have settled). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    this.wake();
    await this.running;
  }

  /** Looks at the frontier again now (a result came, URLs were admitted, partitions changed). */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** A task's result was applied (or the task was released): forget it. */
  settled(taskId: string): void {
    this.published.delete(taskId);
    this.unconfirmed.delete(taskId);
    this.stored.delete(taskId);
    this.reoffers.delete(taskId);
  }

  /**
   * Forgets the tasks out for partition p and returns them (p was taken from this node without a
   * handoff: they are not to be published, re-offered or given back here again).
   */
  forgetPartition(p: number): FetchTask[] {
    const tasks: FetchTask[] = [];
    for (const task of this.published.values()) if (task.partition === p) tasks.push(task);
    for (const task of tasks) this.settled(task.taskId);
    return tasks;
  }

  /** Tasks published and not yet answered. */
  get outstanding(): number {
    return this.published.size;
  }

  /** Tasks whose publish failed and that wait to be published again. */
  get waitingToPublish(): number {
    return this.unconfirmed.size;
  }

  /** Gives every unanswered task back to the frontier (after a stop, when their results will not be awaited). */
  abandonAll(): number {
    let n = 0;
    for (const task of this.published.values()) {
      this.opts.frontier.abandon(task);
      n++;
    }
    this.published.clear();
    this.unconfirmed.clear();
    this.stored.clear();
    this.reoffers.clear();
    return n;
  }

  private async loop(): Promise<void> {
    const { frontier } = this.opts;
    while (!this.stopped) {
      if (this.unconfirmed.size > 0 && this.allowed()) await this.republish();
      if (this.reoffers.size > 0 && this.allowed()) await this.reoffer();
      const room = this.opts.credit - frontier.inFlight;
      // The fence is asked last, with nothing awaited between it and the hand-out.
      if (room > 0 && !frontier.isDraining && this.unconfirmed.size === 0 && this.allowed()) {
        const tasks = frontier.nextTasks(room);
        const sendable = await this.settleBudgets(tasks);
        if (sendable.length > 0) await this.publish(sendable);
      } else {
        await this.settleBudgets([]);
      }
      if (this.stopped) break;
      await this.sleep(this.waitMs(room));
    }
  }

  /**
   * Records the page budget the tasks spent before any of them leaves (engine/frontier/job-budgets.ts), and
   * lets the frontier take and give back budget; a task whose unit could not be recorded goes back to its
   * host unsent. Returns the tasks that may go.
   */
  private async settleBudgets(tasks: FetchTask[]): Promise<FetchTask[]> {
    const { frontier } = this.opts;
    let refused: FetchTask[];
    try {
      refused = await frontier.settleBudgets();
    } catch (error) {
      // Nothing says their units were recorded: none of them goes.
      this.opts.log.warn("settling page budgets failed; the tasks go back to their hosts unsent", errorFields(error));
      for (const task of tasks) frontier.abandon(task);
      return [];
    }
    if (refused.length === 0) return tasks;
    const ids = new Set(refused.map((t) => t.taskId));
    for (const task of refused) frontier.abandon(task);
    frontier.counters.add("node.tasks.budget-refused", refused.length);
    return tasks.filter((t) => !ids.has(t.taskId));
  }

  /**
   * Where a task goes: the inbox of the fetch node chosen for its host (`fetcherOf`), asked at each publish,
   * so a task published again, or re-offered, goes to the host's fetch node of that moment; else the shared
   * queue. A task published again under its id within the duplicate window is stored once, wherever it went
   * first.
   */
  private routeOf(task: FetchTask): TaskRoute {
    const to = task.render ? undefined : this.opts.fetcherOf?.(task);
    return to === undefined ? {} : { to };
  }

  private allowed(): boolean {
    return this.opts.fence?.allows() ?? true;
  }

  private waitMs(room: number): number {
    if (this.backoffMs > 0) return this.backoffMs;
    // Suspended: woken when the fence lets the node act again.
    if (room <= 0 || this.opts.frontier.isDraining || !this.allowed()) return MAX_SLEEP_MS;
    const wakeAt = this.opts.frontier.nextWakeAt();
    if (wakeAt === undefined) return MAX_SLEEP_MS;
    return Math.min(MAX_SLEEP_MS, Math.max(1, wakeAt - this.opts.now()));
  }

  private async publish(tasks: FetchTask[]): Promise<void> {
    const { frontier, bus, region } = this.opts;
    // Registered before publishing: a result may come back before the publish resolves.
    for (const t of tasks) {
      const epoch = this.opts.ownerEpoch?.(t.partition);
      if (epoch) t.ownerEpoch = epoch;
      this.published.set(t.taskId, t);
    }
    const outcomes = await Promise.allSettled(
      tasks.map((t) => bus.publishTask(region, t, this.routeOf(t)).then(() => this.confirmed(t.taskId))),
    );
    const now = this.opts.now();
    let failed = 0;
    outcomes.forEach((o, i) => {
      const task = tasks[i]!;
      if (o.status === "fulfilled" || !this.published.has(task.taskId)) return;
      failed++;
      if (this.unconfirmed.size === 0 && failed === 1) {
        this.opts.log.warn(
          "publishing fetch tasks failed; they stay in flight and are published again (same task ids)",
          errorFields(o.reason, { region }),
        );
      }
      this.unconfirmed.set(task.taskId, { task, since: now });
    });
    frontier.counters.add("node.tasks.published", tasks.length - failed);
    if (failed > 0) frontier.counters.add("node.tasks.publish-failed", failed);
    this.setBackoff(failed > 0);
  }

  /** Publishes the unconfirmed tasks again; gives back those that failed for `republishForMs`. */
  private async republish(): Promise<void> {
    const { frontier, bus, region } = this.opts;
    const pending = [...this.unconfirmed.values()];
    const outcomes = await Promise.allSettled(pending.map((p) => bus.publishTask(region, p.task, this.routeOf(p.task))));
    const now = this.opts.now();
    const limit = this.opts.republishForMs ?? REPUBLISH_FOR_MS;
    let failed = 0;
    let givenBack = 0;
    outcomes.forEach((o, i) => {
      const { task, since } = pending[i]!;
      if (!this.unconfirmed.has(task.taskId)) return; // answered meanwhile
      if (o.status === "fulfilled") {
        this.unconfirmed.delete(task.taskId);
        this.confirmed(task.taskId);
        frontier.counters.add("node.tasks.republished");
        return;
      }
      failed++;
      if (now - since < limit) return;
      this.unconfirmed.delete(task.taskId);
      this.published.delete(task.taskId);
      frontier.abandon(task);
      givenBack++;
    });
    if (givenBack > 0) {
      frontier.counters.add("node.tasks.publish-given-back", givenBack);
      this.opts.log.warn("fetch tasks could not be published for a long time; given back to their hosts' queues", {
        region,
        tasks: givenBack,
        afterMs: limit,
      });
    }
    if (this.unconfirmed.size === 0 && pending.length > givenBack) {
      this.opts.log.info("fetch tasks published again after the bus came back", { region, tasks: pending.length - givenBack });
    }
    this.setBackoff(failed > 0);
  }

  /**
   * The bus confirmed storing the task (marked as each publish resolves, not once its batch has: a drop
   * between the two would otherwise miss it).
   */
  private confirmed(taskId: string): void {
    if (this.published.has(taskId) && !this.stored.has(taskId)) this.stored.set(taskId, 0);
  }

  /** Asks for a re-offer of every task stored and unanswered (see the module comment). */
  private reofferStored(why: string): void {
    if (this.stopped) return;
    const now = this.opts.now();
    let asked = 0;
    for (const [taskId, offered] of this.stored) {
      const task = this.published.get(taskId);
      if (!task || this.unconfirmed.has(taskId) || this.reoffers.has(taskId)) continue;
      this.stored.set(taskId, offered + 1);
      this.reoffers.set(taskId, { task, n: offered + 1, since: now });
      asked++;
    }
    if (asked === 0) return;
    this.opts.log.info("re-offering the fetch tasks out before as new copies: their deliveries may have been lost", {
      region: this.opts.region,
      why,
      tasks: asked,
    });
    this.wake();
  }

  /** Publishes the re-offers asked for; drops those that failed for `republishForMs` (their originals remain). */
  private async reoffer(): Promise<void> {
    const { frontier, bus, region } = this.opts;
    const pending = [...this.reoffers.values()];
    const outcomes = await Promise.allSettled(
      pending.map((r) => bus.publishTask(region, r.task, { ...this.routeOf(r.task), reoffer: r.n })),
    );
    const now = this.opts.now();
    const limit = this.opts.republishForMs ?? REPUBLISH_FOR_MS;
    let failed = 0;
    let dropped = 0;
    outcomes.forEach((o, i) => {
      const { task, n, since } = pending[i]!;
      if (this.reoffers.get(task.taskId)?.n !== n) return; // answered (or asked again) meanwhile
      if (o.status === "fulfilled") {
        this.reoffers.delete(task.taskId);
        frontier.counters.add("node.tasks.reoffered");
        return;
      }
      failed++;
      if (now - since < limit) return;
      this.reoffers.delete(task.taskId);
      dropped++;
    });
    if (dropped > 0) {
      frontier.counters.add("node.tasks.reoffer-dropped", dropped);
      this.opts.log.warn(
        "fetch tasks could not be re-offered for a long time; their original copies stay (back after the ack wait if lost)",
        {
          region,
          tasks: dropped,
          afterMs: limit,
        },
      );
    }
    // Back off while a publish fails; a re-offer that went through clears it only if nothing waits to be published again.
    if (failed > 0 || this.unconfirmed.size === 0) this.setBackoff(failed > 0);
  }

  private setBackoff(failed: boolean): void {
    this.backoffMs = failed ? Math.min(MAX_PUBLISH_BACKOFF_MS, Math.max(PUBLISH_BACKOFF_MS, this.backoffMs * 2)) : 0;
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken && this.backoffMs === 0) {
      this.woken = false;
      return Promise.resolve();
    }
    this.woken = false;
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.wakeUp === done) self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

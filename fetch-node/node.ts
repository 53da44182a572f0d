/**
 * FetchNode: the fetch role around the FetchWorker. It pulls its region's fetch tasks (the shared durable
 * consumer `fetchers` on `crawl.fetch.<region>`), and for each task, in this order:
 *
 *   worker.run(task)                      fetch, parse, fingerprint, write WARC (engine/fetch/pipeline)
 *   publishUrls per (region, partition)   the links, grouped by their hosts' owners (core/addressing)
 *   publishResult(region, result)         to `crawl.results.<region>.<task partition>`, the host's owner
 *   ack                                   only now: every output is durably on the bus
 *
 * If the work itself throws (a broken store) the task is nak'ed with a delay that doubles per delivery
 * and is done again later, here or on another node. If the bus refuses a publish (NATS down), the fetch is
 * not thrown away: its outputs wait in the ResultOutbox (result-outbox.ts), inside the task's slot, and are
 * published when the bus is back; then the task is acked. A task is never acked with an output missing.
 * A task delivered again (deliveryCount > 1: a nak, an ack that was lost, a node that died mid-task) is
 * simply done again: the frontier's handling of links and results is idempotent, and a result published
 * twice is stored once (its message id is the task id). The WARC may then hold the page twice (once per
 * attempt, possibly on two nodes); the CDXJ index lists both and readers take either.
 *
 * Stopping (SIGINT/SIGTERM): stop pulling, let tasks in flight finish for up to the grace period, then
 * abort the rest and nak them at once so another node takes them (their fetch ended early, or their
 * outputs still waited for the bus: nothing of theirs is acked), leave the cluster state. The node borrows its bus, state and worker: the
 * composition root closes them.
 */
import { groupByOwner } from "../core/addressing/index.ts";
import type { NodeRecord, RegionRules } from "../core/cluster/index.ts";
import type { ClusterState, Delivery, MessageBus, Subscription, TaskRunner, WorkOutput } from "../core/ports/index.ts";
import type { FetchResult, FetchTask } from "../core/model/index.ts";
import { Counters } from "../core/stats/index.ts";
import { errorFields, silentLog, type Log } from "../kit/log/index.ts";
import { NodeHeartbeat } from "../kit/node/index.ts";
import { LinkBatcher } from "./link-batcher.ts";
import { ResultOutbox } from "./result-outbox.ts";
import type { RuntimeName } from "../kit/runtime.ts";

export interface FetchNodeOptions {
  nodeId: string;
  region: string;
  runtime: RuntimeName;
  /** Where /healthz and /metrics answer (http://host:port), for the node record. */
  httpAddress: string;
  regionRules: RegionRules;
  partitions: number;
  concurrency: number;
  heartbeatMs: number;
  /** First redelivery delay after a failure here; doubles per delivery, capped at 64x. */
  nakDelayMs: number;
  bus: MessageBus;
  state: ClusterState;
  worker: TaskRunner;
  counters?: Counters;
  now?: () => number;
  log?: Log;
  /** More gauges for /metrics and the node record (the WARC upload's pending bytes). */
  extraGauges?: () => Record<string, number>;
}

type Phase = "new" | "running" | "stopping" | "stopped";

export class FetchNode {
  readonly counters: Counters;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly heartbeat: NodeHeartbeat;
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly startedAt: number;
  private subscription: Subscription | undefined;
  private phase: Phase = "new";
  private stopped: Promise<void> | undefined;
  private readonly links: LinkBatcher;
  private readonly outbox: ResultOutbox;

  constructor(private readonly opts: FetchNodeOptions) {
    this.links = new LinkBatcher((region, partition, urls) => opts.bus.publishUrls(region, partition, urls));
    this.counters = opts.counters ?? new Counters();
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? silentLog;
    this.outbox = new ResultOutbox({
      publish: (output) => this.publish(output),
      counters: this.counters,
      log: this.log.child("outbox"),
      now: this.now,
    });
    this.startedAt = this.now();
    this.heartbeat = new NodeHeartbeat({
      state: opts.state,
      record: () => this.record(),
      intervalMs: opts.heartbeatMs,
      log: this.log.child("heartbeat"),
      onFailure: () => this.counters.add("fetcher.node.heartbeat-failed"),
    });
  }

  /** Ensures the region's streams, announces the node, and starts pulling tasks. */
  async start(): Promise<void> {
    if (this.phase !== "new") throw new Error(`FetchNode: start() called when ${this.phase}`);
    await this.opts.bus.ensureRegion(this.opts.region, this.opts.partitions);
    this.phase = "running";
    await this.heartbeat.start();
    this.subscription = this.opts.bus.consumeTasks(this.opts.region, (d) => this.track(d), { concurrency: this.opts.concurrency });
    this.log.info("pulling fetch tasks", { region: this.opts.region, concurrency: this.opts.concurrency });
  }

  /** True while the node pulls and works tasks (for /readyz). */
  get ready(): boolean {
    return this.phase === "running";
  }

  get tasksInFlight(): number {
    return this.inFlight.size;
  }

  /** Gauges for /metrics and the node record. */
  gauges(): Record<string, number> {
    return {
      inFlight: this.inFlight.size,
      outboxWaiting: this.outbox.waiting,
      concurrency: this.opts.concurrency,
      uptimeSeconds: Math.round((this.now() - this.startedAt) / 1000),
      ...this.opts.extraGauges?.(),
    };
  }

  /**
   * Stops pulling, waits up to `graceMs` for tasks in flight, aborts and naks the rest, and deletes the
   * node record. Idempotent; resolves when no task of this node is running.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.phase === "stopped" || this.phase === "stopping") return this.whenStopped();
    const wasRunning = this.phase === "running";
    this.phase = "stopping";
    this.stopped = (async () => {
      const unsubscribed = this.subscription
        ?.stop()
        .catch((error) => this.log.warn("stopping the subscription failed", errorFields(error)));
      // Announce "draining" without holding up the drain (a write may wait on a NATS that is down).
      const announced = wasRunning ? this.heartbeat.beat() : undefined;
      if (this.inFlight.size > 0) {
        this.log.info("waiting for tasks in flight", { tasks: this.inFlight.size, graceMs });
        const finished = await this.drained(graceMs);
        if (!finished) {
          this.log.warn("grace period over: abandoning tasks in flight (they are redelivered)", { tasks: this.inFlight.size });
          this.abort.abort(new Error("fetch node stopping"));
          await this.drained(Math.max(1_000, graceMs));
        }
      }
      await unsubscribed;
      await announced;
      try {
        await this.heartbeat.leave();
      } catch (error) {
        this.heartbeat.stop();
        this.log.warn("could not delete the node record; the coordinator will see the node die instead", errorFields(error));
      }
      this.phase = "stopped";
    })();
    return this.stopped;
  }

  private whenStopped(): Promise<void> {
    return this.stopped ?? Promise.resolve();
  }

  /** Resolves true once every task in flight has settled, false after `ms`. */
  private async drained(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const all = (async () => {
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      return true as const;
    })();
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private track(d: Delivery<FetchTask>): Promise<void> {
    const work = this.handle(d);
    this.inFlight.add(work);
    return work.finally(() => this.inFlight.delete(work));
  }

  private async handle(d: Delivery<FetchTask>): Promise<void> {
    const task = d.data;
    if (this.phase !== "running") {
      // Delivered while stopping: hand it straight back for another node.
      d.nak(0);
      return;
    }
    if (d.deliveryCount > 1) this.counters.add("fetcher.tasks.redelivered");
    let output: WorkOutput;
    try {
      output = await this.opts.worker.run(task, this.abort.signal);
      if (this.abort.signal.aborted) {
        // Cut short by our own stop: the outcome says "aborted", which is not the host's fault.
        this.counters.add("fetcher.tasks.abandoned");
        d.nak(0);
        return;
      }
    } catch (error) {
      if (this.abort.signal.aborted) {
        this.counters.add("fetcher.tasks.abandoned");
        d.nak(0);
        return;
      }
      const delayMs = this.nakDelay(d.deliveryCount);
      this.counters.add("fetcher.tasks.failed");
      this.log.warn(
        "task failed; redelivering later",
        errorFields(error, { task: task.taskId, url: task.url, delivery: d.deliveryCount, delayMs }),
      );
      d.nak(delayMs);
      return;
    }
    // Published now, or held until the bus takes it (outbox); given back unacked only if the node stops first.
    if (!(await this.outbox.deliver(output, this.abort.signal))) {
      this.counters.add("fetcher.tasks.abandoned");
      d.nak(0);
      return;
    }
    this.count(output);
    try {
      await d.ack();
    } catch (error) {
      // Everything is published; if the ack is lost the task comes back and is done again, harmlessly.
      this.counters.add("fetcher.tasks.ack-failed");
      this.log.warn("ack failed; the task will be redelivered and done again", errorFields(error, { task: task.taskId }));
    }
  }

  /** Links first, each group to its partition's subject, then the result to the host's owner. */
  private async publish(output: WorkOutput): Promise<void> {
    await this.links.add(groupByOwner(output.links, { rules: this.opts.regionRules, partitions: this.opts.partitions }));
    await this.opts.bus.publishResult(this.opts.region, output.result);
  }

  private count(output: WorkOutput): void {
    const r: FetchResult = output.result;
    // Counted under "fetcher." so cluster totals do not count a fetch twice: the frontier that owns the
    // URL counts its result under "fetch.".
    this.counters.add(`fetcher.tasks.${r.taskKind}`);
    if (r.kind === "response") this.counters.add(`fetcher.status.${r.status}`);
    else this.counters.add(`fetcher.${r.kind}.${r.error}${r.kind === "skipped" && r.refusal ? `.${r.refusal}` : ""}`);
    if (r.kind === "response" && r.taskKind === "page") this.counters.add("fetcher.pages");
    if (r.bytes > 0) this.counters.add("fetcher.bytes", r.bytes);
    if (output.links.length > 0) this.counters.add("fetcher.links.published", output.links.length);
  }

  private nakDelay(deliveryCount: number): number {
    return this.opts.nakDelayMs * 2 ** Math.min(Math.max(deliveryCount - 1, 0), 6);
  }

  private record(): NodeRecord {
    return {
      id: this.opts.nodeId,
      role: "fetcher",
      region: this.opts.region,
      runtime: this.opts.runtime,
      status: this.phase === "running" || this.phase === "new" ? "active" : "draining",
      grpcAddress: "",
      httpAddress: this.opts.httpAddress,
      startedAt: this.startedAt,
      heartbeatAt: this.now(),
      partitions: [],
      counters: this.counters.toJSON(),
      gauges: this.gauges(),
    };
  }
}

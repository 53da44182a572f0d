/**
 * FetchNode: the fetch role around the FetchWorker. It pulls its region's fetch tasks: its own inbox
 * (`crawl.fetch.<region>.to.<node id>`, the hosts frontier nodes chose it for: host affinity), the shared
 * queue `fetchers` on `crawl.fetch.<region>` (tasks sent while a frontier node knew no live fetch node), and
 * the inboxes of gone fetch nodes it is the heir of (inbox-heirs.ts); for each task, in this order:
 *
 *   claim(task id, copy, owner)           the region's fetch claims (copy-claims.ts): another stored copy
 *                                         of a task stored twice, a task already done, or a task of a
 *                                         former owner of its partition (an older ownership epoch than
 *                                         one claimed already) is acked and dropped unfetched; a repeat
 *                                         of this copy is a redelivery
 *   worker.run(task)                      fetch, parse, fingerprint, write WARC (engine/fetch/pipeline)
 *   publishUrls per (region, partition)   the links, grouped by their hosts' owners (core/addressing)
 *   publishResult(region, result)         to `crawl.results.<region>.<task partition>`, the host's owner
 *   done(task id)                         in the claims: a later delivery of the task is dropped
 *   ack                                   only now: every output is durably on the bus
 *
 * If the work itself throws (a broken store) the task is nak'ed with a delay that doubles per delivery
 * and is done again later, here or on another node. If the bus refuses a publish (NATS down), the fetch is
 * not thrown away: its outputs wait in the ResultOutbox (result-outbox.ts), inside the task's slot, and are
 * published when the bus is back; then the task is acked. A task is never acked with an output missing.
 * A task done again is a second request to its host, which the frontier (still waiting for the first
 * result) does not see: so a nak after a request never comes back sooner than the host's gap (the task's
 * `hostGapMs`, plus the multiplier times how long this attempt took, which covers its fetch), and a task
 * delivered again for a reason this node does not know (another node died mid-fetch) is first handed back
 * for the host's gap. A task delivered again (deliveryCount > 1: a nak, an ack that was lost, a node that
 * died mid-task; or a first delivery of a copy that claimed the task before: a NATS server restarted
 * without its consumer's latest state, which then also waits until an attempt under way must have ended)
 * is done again unless it was marked done, or unless an attempt of it is alive: this node's own (handed
 * back, and the attempt under way settles it), or another node's that holds its outputs in its outbox and
 * says so in the claims (handed back while that word lasts). The frontier's handling of links and results
 * is idempotent, and a result published twice is stored once (its message id is the task id). The WARC may then hold the page
 * twice (once per attempt, possibly on two nodes); the CDXJ index lists both and readers take either.
 *
 * A full disk (the WARC write fails with ENOSPC): the task is redelivered no sooner than its host's gap
 * (its request was made), and from then on tasks are handed back unfetched, so no host is asked for pages
 * that cannot be stored, until `diskProbe` finds room again (checked every few seconds); the node says so
 * in its log both times.
 *
 * A local failure (the egress proxy refusing, no local port or file descriptor left, the resolver down:
 * engine/fetch LocalTrouble) is not the host's: no result is published, the task is handed back for when
 * the node tries again, and until a probe gets through, tasks are handed back unfetched; the node warns
 * once, naming the cause and the setting to change.
 *
 * Stopping (SIGINT/SIGTERM): stop pulling, let tasks in flight finish for up to the grace period, then
 * abort the rest and nak them so another node takes them once the host's gap has passed (their fetch ended
 * early, or their outputs still waited for the bus: nothing of theirs is acked), leave the cluster state.
 * The node borrows its bus, state and worker: the composition root closes them.
 */
import type { PolitenessKeyMode } from "../core/politeness/index.ts";
import { groupByOwner } from "../core/addressing/index.ts";
import type { NodeRecord, RegionRules } from "../core/cluster/index.ts";
import type { ClusterState, Delivery, FetchClaims, MessageBus, Subscription, TaskRunner, WorkOutput } from "../core/ports/index.ts";
import { isAddressBusy, isLocalFailure, type FetchResult, type FetchTask } from "../core/model/index.ts";
import { LocalTrouble } from "../engine/fetch/index.ts";
import { type LocalCheck, TroubleProbe } from "./trouble-probe.ts";
import { Counters, Histograms } from "../core/stats/index.ts";
import { DEFAULT_POLICY } from "../core/config/index.ts";
import { isDiskFull } from "../core/errors/index.ts";
import { ADDRESS_BOARD_ROWS, type AddressBoard, preciseNow } from "../core/politeness/index.ts";
import { errorFields, silentLog, type Log } from "../kit/log/index.ts";
import { NodeHeartbeat } from "../kit/node/index.ts";
import { LinkBatcher } from "./link-batcher.ts";
import { ResultOutbox } from "./result-outbox.ts";
import { CopyClaims } from "./copy-claims.ts";
import { InboxHeirs } from "./inbox-heirs.ts";
import type { RuntimeName } from "../kit/runtime.ts";

export interface FetchNodeOptions {
  nodeId: string;
  region: string;
  runtime: RuntimeName;
  /** Where /healthz and /metrics answer (http://host:port), for the node record. */
  httpAddress: string;
  regionRules: RegionRules;
  partitions: number;
  /** The fleet's politeness key (the ring's): hosts are placed by it (core/addressing). Default host. */
  politenessKey?: PolitenessKeyMode;
  concurrency: number;
  heartbeatMs: number;
  /** First redelivery delay after a failure here; doubles per delivery, capped at 64x. */
  nakDelayMs: number;
  /** The policy's gap multiplier (gap >= this x fetch time), for naks after a request. Default: the policy default. */
  gapFetchMultiplier?: number;
  bus: MessageBus;
  state: ClusterState;
  worker: TaskRunner;
  /** The region's fetch claims (Redis; in memory they hold within this node only). */
  claims: FetchClaims;
  /** How long a task's claim lasts: longer than a task may wait in the stream behind others. */
  claimTtlMs: number;
  /**
   * The longest a fetch attempt may talk to its host (the policy's connect and response timeouts): a
   * repeat of a task the bus did not count waits this long after the claim. Default: the policy default's.
   */
  attemptMaxMs?: number;
  counters?: Counters;
  now?: () => number;
  log?: Log;
  /** More gauges for /metrics and the node record (the WARC upload's pending bytes). */
  extraGauges?: () => Record<string, number>;
  /** While the disk is full: whether there is room again (rejects while there is not). Absent: tasks are tried again. */
  diskProbe?: () => Promise<void>;
  /**
   * Pages this node renders at once, when its worker has a browser (0 or absent: none). The node then also
   * pulls the region's render queue (tasks asking for rendering go nowhere else), and announces it in its
   * record as the `renderPool` gauge, which frontier nodes read before asking for rendering.
   */
  renderPool?: number;
  /** The cap per address's board, fed by this node's gate: its busiest servers go in the node record. */
  addresses?: AddressBoard;
  /** The node fetches through a proxy (said in its record, for `url explain` on frontier nodes). */
  proxied?: boolean;
  /**
   * Checks, without a task, whether a local failure is over (a new connection to the egress proxy): a node
   * in local trouble gets no task to probe with while frontier nodes send its hosts elsewhere (trouble-probe.ts).
   */
  localCheck?: LocalCheck;
}

const DISK_PROBE_EVERY_MS = 2_000;

/**
 * Handlers the shared queue and each adopted inbox run at once, beside the node's own inbox at its full
 * concurrency: a quarter of it. Both are fallbacks, busy only for moments (a frontier node that knows no
 * live fetch node yet, a node just gone), so the node's bound is its concurrency and a quarter for each.
 */
function fallbackConcurrency(concurrency: number): number {
  return Math.max(1, Math.ceil(concurrency / 4));
}

/**
 * How long an attempt's word that it holds its task's outputs lasts (CopyClaims.hold). Renewed before each
 * retry of the outbox, which comes at most 1 s after the last one ended, and a publish to a server that
 * does not answer ends at its 5 s timeout: so three times that. A node killed while it held them leaves
 * the task's next delivery waiting this long at most, past the host's gap.
 */
const HOLD_WORD_MS = 18_000;

type Phase = "new" | "running" | "stopping" | "stopped";

/** Redelivered task ids remembered (a few hundred KB at most). */
const SPACED_MAX = 10_000;

export class FetchNode {
  readonly counters: Counters;
  /** `fetcher.duration-seconds` and `fetcher.page-bytes` of this node's fetches (core/stats buckets). */
  readonly histograms = new Histograms();
  private readonly now: () => number;
  private readonly log: Log;
  private readonly heartbeat: NodeHeartbeat;
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  /** Since when WARC writes fail for a full disk (undefined: they do not). */
  private diskFullSince: number | undefined;
  private lastDiskProbe = 0;
  private readonly startedAt: number;
  private subscription: Subscription | undefined;
  private renderSubscription: Subscription | undefined;
  private sharedSubscription: Subscription | undefined;
  private heirs: InboxHeirs | undefined;
  private phase: Phase = "new";
  private stopped: Promise<void> | undefined;
  private readonly links: LinkBatcher;
  /** Tasks whose redelivery here needs no further wait: their last attempt's gap is already in its delay. */
  private readonly spaced = new Set<string>();
  private readonly outbox: ResultOutbox;
  private readonly copies: CopyClaims;
  private readonly attemptMaxMs: number;
  /**
   * Tasks this node is working on now, from the claim to the ack or nak (their fetch, or outputs in the
   * outbox), with the stored copy each attempt took.
   */
  private readonly attempting = new Map<string, number>();
  /** Failures of this node's own side (proxy, ports, file table, resolver): tasks are handed back meanwhile. */
  private readonly trouble: LocalTrouble;
  private readonly troubleProbe: TroubleProbe | undefined;

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
    this.attemptMaxMs = opts.attemptMaxMs ?? DEFAULT_POLICY.connectTimeoutMs + DEFAULT_POLICY.responseTimeoutMs;
    this.copies = new CopyClaims({
      claims: opts.claims,
      ttlMs: opts.claimTtlMs,
      counters: this.counters,
      log: this.log.child("claims"),
      now: this.now,
    });
    this.startedAt = this.now();
    this.trouble = new LocalTrouble({ log: this.log, now: this.now, counters: this.counters });
    this.troubleProbe = opts.localCheck ? new TroubleProbe(this.trouble, opts.localCheck, (aside) => this.standAside(aside)) : undefined;
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
    // Its inbox exists before the node announces itself (frontier nodes send it tasks from then on).
    await this.opts.bus.ensureTaskInbox(this.opts.region, this.opts.nodeId);
    this.phase = "running";
    await this.heartbeat.start();
    const { bus, region, nodeId, concurrency } = this.opts;
    const track = (d: Delivery<FetchTask>) => this.track(d);
    // Its own inbox (the hosts frontier nodes chose it for), the shared queue (tasks sent while a frontier
    // node knew no live fetch node) and the inboxes of gone nodes it is the heir of (inbox-heirs.ts).
    this.subscription = this.pullOwnInbox();
    const fallback = fallbackConcurrency(concurrency);
    this.sharedSubscription = bus.consumeTasks(region, track, { concurrency: fallback });
    this.heirs = new InboxHeirs({
      bus,
      state: this.opts.state,
      region,
      nodeId,
      concurrency: fallback,
      handler: track,
      log: this.log.child("heirs"),
      counters: this.counters,
    });
    this.heirs.start();
    this.troubleProbe?.start();
    this.log.info("pulling fetch tasks", { region, concurrency, inbox: nodeId, fallbackConcurrency: fallback });
    const renderPool = this.opts.renderPool ?? 0;
    if (renderPool > 0) {
      this.renderSubscription = this.opts.bus.consumeTasks(this.opts.region, (d) => this.track(d), {
        concurrency: renderPool,
        render: true,
      });
      this.log.info("pulling render tasks", { region: this.opts.region, concurrency: renderPool });
    }
  }

  /** Its own inbox: the hosts frontier nodes chose it for. */
  private pullOwnInbox(): Subscription {
    const { bus, region, nodeId, concurrency } = this.opts;
    return bus.consumeTasks(region, (d) => this.track(d), { concurrency, inbox: nodeId });
  }

  /**
   * While its own side fails in a way it can check without a task (trouble-probe.ts), the node stops pulling
   * its inbox, so that its heir, which pulls it too meanwhile, gets its hosts' tasks instead of them being
   * handed back here untried; it pulls its inbox again once its side works.
   */
  private standAside(aside: boolean): void {
    if (this.phase !== "running") return;
    // Its record says so at once (the `localTrouble` gauge), not at the next beat: frontier nodes send its
    // hosts elsewhere, and its heir takes its inbox, that much sooner (and back again once it is over).
    void this.heartbeat.beat();
    if (aside && this.subscription) {
      const own = this.subscription;
      this.subscription = undefined;
      this.counters.add("fetcher.inbox.stood-aside");
      this.log.info("not pulling this node's inbox while its own side fails: its heir takes its hosts' tasks meanwhile", {
        inbox: this.opts.nodeId,
      });
      own.stop().catch((error) => this.log.warn("stopping the inbox subscription failed", errorFields(error)));
    } else if (!aside && !this.subscription) {
      this.subscription = this.pullOwnInbox();
      this.log.info("pulling this node's inbox again", { inbox: this.opts.nodeId });
    }
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
      renderPool: this.opts.renderPool ?? 0,
      // While our own side fails (LocalTrouble), frontier nodes send this node's hosts to the others and an
      // heir pulls its inbox too, so the tasks it hands back untried are fetched elsewhere (inbox-heirs.ts).
      localTrouble: this.trouble.troubled ? 1 : 0,
      ...(this.opts.addresses ? { addressesTracked: this.opts.addresses.size } : {}),
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
    this.troubleProbe?.stop();
    this.stopped = (async () => {
      const unsubscribed = Promise.all(
        [this.subscription, this.sharedSubscription, this.renderSubscription, this.heirs].map((s) =>
          s?.stop().catch((error) => this.log.warn("stopping the subscription failed", errorFields(error))),
        ),
      );
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
    const attemptCopy = this.attempting.get(task.taskId);
    if (attemptCopy !== undefined) {
      // A delivery of a task this node is working on now: fetched, it would be a second request to the host
      // just when the frontier, which gets the attempt's result, may send the host's next task (seen: 1.4
      // ms apart). Another stored copy (a frontier's re-offer after a NATS drop) is acked and dropped at
      // once, as the claims would answer: the attempt's own copy stays in the stream until that attempt
      // settles it. The same copy delivered again (a NATS server restarted without its consumer's latest
      // state) cannot be acked without acking the attempt's message: it is handed back, and a delivery
      // after the attempt's ack is dropped as done by the claims. Dropping a copy at once matters when the
      // claims are lost next (a Redis outage): a copy handed back would then come back to find no claims
      // to ask, and be fetched (seen: 4 hosts asked 149 ms after such a fetch).
      if (d.copy !== attemptCopy) {
        this.counters.add("fetcher.tasks.duplicate-copy-dropped");
        await this.settle(d);
        return;
      }
      this.counters.add("fetcher.tasks.repeat-of-own-attempt");
      d.nak(Math.max(this.opts.nakDelayMs, task.hostGapMs));
      return;
    }
    this.attempting.set(task.taskId, d.copy);
    try {
      await this.attempt(d, task);
    } finally {
      this.attempting.delete(task.taskId);
    }
  }

  /** Claims, fetches, publishes and acks one delivery of a task no other attempt of this node holds. */
  private async attempt(d: Delivery<FetchTask>, task: FetchTask): Promise<void> {
    const owner = task.ownerEpoch ? { partition: task.partition, epoch: task.ownerEpoch } : undefined;
    const claim = await this.copies.claim(task.taskId, d.copy, owner);
    if (claim.kind === "other-copy" || claim.kind === "done" || claim.kind === "stale") {
      // Another stored copy holds the task (fetched, or being fetched), or its outputs are stored already,
      // or its issuer no longer owns the host's partition: this delivery must never reach the host.
      await this.settle(d);
      return;
    }
    if (claim.kind === "held") {
      // Another node fetched this task and holds its outputs until the bus takes them (a NATS server that
      // restarted, and delivered the task again, or an ack wait that ran out meanwhile): its result is
      // still to come, and a fetch now would be a second request the frontier never hears of. Handed back
      // for as long as that attempt's word lasts; once it is published, a delivery is dropped as done, and
      // if that node dies with it, its word lapses and the task is fetched as any redelivery is.
      this.counters.add("fetcher.tasks.held-elsewhere");
      d.nak(Math.max(claim.forMs, task.hostGapMs, this.opts.nakDelayMs));
      return;
    }
    if (d.deliveryCount > 1 || claim.kind === "again") {
      this.counters.add("fetcher.tasks.redelivered");
      // Delivered again: an earlier attempt may have reached the host and ended without a word to the
      // frontier (a node that died mid-fetch, whose connection closed as it died). After an ack wait or a
      // nak that request ended by now at the latest, so the host's gap runs from now: the first time this
      // node sees the task, it hands it back for that long (a delayed nak, so no slot is held), unless it
      // timed that gap itself. A repeat the bus did not count (delivery count 1: a NATS server restarted
      // without its consumer's latest state) may come while that attempt still runs: it also waits until
      // the attempt, begun when the task was claimed, must have ended.
      if (!this.spaced.has(task.taskId)) {
        const unannounced = d.deliveryCount === 1 && claim.kind === "again";
        const running = unannounced ? Math.max(0, this.attemptMaxMs - claim.ageMs) : 0;
        this.remember(task.taskId);
        this.counters.add("fetcher.tasks.redelivered-spaced");
        if (unannounced) this.counters.add("fetcher.tasks.redelivered-unannounced");
        d.nak(task.hostGapMs + running);
        return;
      }
    }
    if (this.diskFullSince !== undefined && !(await this.roomAgain())) {
      // Not fetched: its page could not be stored. The frontier keeps the host in flight meanwhile.
      this.counters.add("fetcher.tasks.deferred-disk-full");
      d.nak(Math.max(this.opts.nakDelayMs, DISK_PROBE_EVERY_MS));
      return;
    }
    if (this.trouble.allowance() === 0) {
      // Our own side is failing: nothing would reach the host. Handed back untried for another node to take
      // (a node cut from the web while the others are not), for the nak delay at most, not until this
      // node's next probe: its backoff reaches 30 s, and a task held back that long would wait as long for
      // every node (seen: hosts idle 5-6 s after a 20 s cut of one node's link to its proxy had healed).
      this.counters.add("fetcher.tasks.deferred-local-trouble");
      const untilProbe = (this.trouble.resumeAt ?? this.now()) - this.now();
      this.nakPolitely(d, Math.max(1, Math.min(this.opts.nakDelayMs, untilProbe)));
      return;
    }
    this.trouble.started();
    const startedAt = preciseNow();
    let output: WorkOutput;
    try {
      output = await this.opts.worker.run(task, this.abort.signal);
      if (this.abort.signal.aborted) {
        // Cut short by our own stop: the outcome says "aborted", which is not the host's fault.
        this.counters.add("fetcher.tasks.abandoned");
        this.nakPolitely(d, this.politeDelay(task, startedAt, 0));
        return;
      }
    } catch (error) {
      if (this.abort.signal.aborted) {
        this.counters.add("fetcher.tasks.abandoned");
        this.nakPolitely(d, this.politeDelay(task, startedAt, 0));
        return;
      }
      // Its request was made: the redo waits the host's gap after it (politeDelay), full disk or not.
      const delayMs = this.politeDelay(task, startedAt, this.nakDelay(d.deliveryCount));
      if (isDiskFull(error)) this.diskIsFull(error);
      this.counters.add("fetcher.tasks.failed");
      this.log.warn(
        "task failed; redelivering later",
        errorFields(error, { task: task.taskId, url: task.url, delivery: d.deliveryCount, delayMs }),
      );
      this.nakPolitely(d, delayMs);
      return;
    }
    if (isAddressBusy(output.result)) {
      // Its server stayed at its cap across the region's fetch nodes: never asked, nothing to blame, nothing
      // slows down. Handed back for the nak delay (the frontier keeps its host in flight meanwhile).
      this.counters.add("fetcher.address.given-back");
      this.nakPolitely(d, this.opts.nakDelayMs);
      return;
    }
    if (isLocalFailure(output.result)) {
      // The host was never asked, so no result and no gap: the task waits only for this node's next probe.
      this.trouble.failed(output.result.local, output.result.message ?? output.result.local);
      this.troubleProbe?.update();
      this.nakPolitely(d, Math.max(this.opts.nakDelayMs, (this.trouble.resumeAt ?? this.now()) - this.now()));
      return;
    }
    this.trouble.succeeded();
    const fetchedAt = preciseNow();
    // Published now, or held until the bus takes it (outbox); given back unacked only if the node stops first.
    // While they wait for the bus, the claims say this attempt is alive, so no other node fetches a repeat.
    const whileHeld = () => this.copies.hold(task.taskId, d.copy, HOLD_WORD_MS);
    if (!(await this.outbox.deliver(output, this.abort.signal, whileHeld))) {
      this.counters.add("fetcher.tasks.abandoned");
      // Its request was made: the redo waits the host's gap after this fetch, as any nak after a request
      // (the time its outputs waited for the bus counts towards that gap, not towards the fetch's time).
      this.nakPolitely(d, this.politeDelay(task, startedAt, 0, fetchedAt));
      return;
    }
    this.count(output);
    // Before the ack: a delivery of this task after it (a lost ack, a server that forgot it) is dropped.
    await this.copies.done(task.taskId);
    await this.settle(d);
  }

  /** Acks a task done (or dropped); a lost ack only brings it back, to be done (or dropped) again. */
  private async settle(d: Delivery<FetchTask>): Promise<void> {
    try {
      await d.ack();
    } catch (error) {
      // Everything is published; if the ack is lost the task comes back and is done again, harmlessly.
      this.counters.add("fetcher.tasks.ack-failed");
      this.log.warn("ack failed; the task will be redelivered and done again", errorFields(error, { task: d.data.taskId }));
    }
  }

  /** Links first, each group to its partition's subject, then the result to the host's owner. */
  private async publish(output: WorkOutput): Promise<void> {
    await this.links.add(
      groupByOwner(output.links, {
        rules: this.opts.regionRules,
        partitions: this.opts.partitions,
        politenessKey: this.opts.politenessKey,
      }),
    );
    // Stamped as it leaves: the frontier moves the fetch's times from this clock onto its own.
    await this.opts.bus.publishResult(this.opts.region, { ...output.result, sentAt: preciseNow() });
  }

  /** A nak whose delay already spaces the redelivery from this attempt by the host's gap. */
  private nakPolitely(d: Delivery<FetchTask>, delayMs: number): void {
    this.remember(d.data.taskId);
    d.nak(delayMs);
  }

  /** Notes a task whose next attempt is spaced by its host's gap; the oldest are forgotten past a bound. */
  private remember(taskId: string): void {
    this.spaced.add(taskId);
    if (this.spaced.size > SPACED_MAX) this.spaced.delete(this.spaced.values().next().value!);
  }

  /**
   * The delay of a nak after this attempt may have reached the host: at least `atLeastMs`, and no redo
   * before the host's gap after this attempt, taken as if its whole time up to `endedAt` (which holds the
   * fetch, whether it finished or was cut short) were the fetch's duration. Default `endedAt`: now.
   */
  private politeDelay(task: FetchTask, startedAt: number, atLeastMs: number, endedAt?: number): number {
    const multiplier = this.opts.gapFetchMultiplier ?? DEFAULT_POLICY.gapFetchMultiplier;
    const now = preciseNow();
    const end = endedAt ?? now;
    const elapsed = end - startedAt;
    return Math.ceil(Math.max(atLeastMs, task.hostGapMs + multiplier * elapsed - (now - end)));
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
    if (r.kind !== "skipped") this.histograms.observe("fetcher.duration-seconds", Math.max(0, r.endedAt - r.startedAt) / 1000);
    if (r.kind === "response" && r.taskKind === "page" && r.bytes > 0) this.histograms.observe("fetcher.page-bytes", r.bytes);
    if (output.links.length > 0) this.counters.add("fetcher.links.published", output.links.length);
    if (r.serverWaitMs) this.counters.add("fetcher.address.waits");
  }

  private diskIsFull(error: unknown): void {
    if (this.diskFullSince !== undefined) return;
    this.diskFullSince = this.now();
    this.lastDiskProbe = this.diskFullSince;
    this.counters.add("fetcher.disk-full");
    this.log.error("the WARC disk is full: tasks are handed back unfetched until there is room again", errorFields(error));
  }

  /** While the disk is full: probes (every few seconds) whether there is room again. */
  private async roomAgain(): Promise<boolean> {
    const probe = this.opts.diskProbe;
    if (!probe) {
      this.diskFullSince = undefined;
      return true;
    }
    const now = this.now();
    if (now - this.lastDiskProbe < DISK_PROBE_EVERY_MS) return false;
    this.lastDiskProbe = now;
    try {
      await probe();
    } catch {
      return false;
    }
    if (this.diskFullSince !== undefined) this.log.info("there is room on the WARC disk again: fetching goes on");
    this.diskFullSince = undefined;
    return true;
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
      histograms: this.histograms.toJSON(),
      ...(this.opts.addresses ? { addresses: this.opts.addresses.top(ADDRESS_BOARD_ROWS) } : {}),
      ...(this.opts.proxied ? { proxied: true } : {}),
    };
  }
}

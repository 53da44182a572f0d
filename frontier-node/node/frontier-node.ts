/**
 * One frontier node: the embedded crawler's Frontier over this node's store and seen-set, serving the
 * partitions of its region that the ring gives it. It wires the parts and owns their lifecycle:
 *
 *   Membership        NodeRecord at start and every heartbeat; drain on the coordinator's mark
 *   SelfFence         a node silent (paused) nearly as long as the death timeout stops acting on every
 *                     partition, beats, re-reads the ring and resumes with what it still gives it
 *   PartitionManager  ring watch -> serving set, urls/results consumers, handoffs out
 *   Dispatcher        frontier.nextTasks -> the inbox of each host's fetch node (FetchersWatch: host
 *                     affinity), or crawl.fetch.<region> when none is known; bounded by credit
 *   lost-fetch sweep  frontier.releaseLost every few seconds (fetch lease)
 *   gRPC              FrontierService, including the receiving side of handoffs; the standard health
 *                     service reports SERVING only while the node is settled (see `settled`); with
 *                     `grpcTls`, mutual TLS that admits only coordinator and frontier certificates, and
 *                     handoffs to other nodes go out with this node's certificate
 *   HTTP              /healthz, /readyz, /metrics
 *   Replicator        (with a replica) the store's journal to the replica, snapshots, and each partition
 *                     claimed or rebuilt from the replica before it is served (frontier-node/replication)
 *
 * The cluster state, bus, store and seen-set are borrowed: the caller builds and closes them. The servers,
 * loops and subscriptions are this node's and end with `stop()` (a clean stop: results of tasks in flight
 * are awaited for a bounded time, the rest given back, the replicator stopped with its unsent rows left in
 * the store's journal, the record deleted).
 */
import { addressOf, groupByOwner } from "../../core/addressing/index.ts";
import { pageRecordOf } from "../../core/feed/index.ts";
import type { JobBudget, PageFeed } from "../../core/ports/index.ts";
import type { RegionRules } from "../../core/cluster/index.ts";
import { type ClusterState, type MessageBus } from "../../core/ports/index.ts";
import type { PolicyConfig } from "../../core/config/index.ts";
import { renderingWanted } from "../../core/render/index.ts";
import { FetchersWatch } from "./fetchers-watch.ts";
import { preciseNow } from "../../core/politeness/index.ts";
import type { Counters } from "../../core/stats/index.ts";
import type { DiscoveredUrl } from "../../core/model/index.ts";
import { FrontierClient, startGrpcServer, type RunningGrpcServer } from "../../adapters/grpc/index.ts";
import { healthApp, serveHono, type RunningHttpServer } from "../../adapters/http/index.ts";
import { FRONTIER_CALLERS, TokenSet } from "../../core/auth/index.ts";
import { errorFields, silentLog, type Log } from "../../kit/log/index.ts";
import { parseHostPort } from "../../core/net/index.ts";
import { Frontier, frontierGauges } from "../../engine/frontier/index.ts";
import type { FrontierStore } from "../../engine/frontier/index.ts";
import type { FetchClaims, PartitionReplica, SeenSet } from "../../core/ports/index.ts";
import { Replicator } from "../replication/index.ts";
import { Dispatcher } from "./dispatcher.ts";
import { frontierService, type FrontierServiceDeps } from "./grpc-service.ts";
import { HandoffReceiver } from "./handoff-receiver.ts";
import { HandoffSender, type HandoffPeer } from "./handoff-sender.ts";
import { Membership } from "./membership.ts";
import { PartitionManager } from "./partitions.ts";
import { Pulse } from "./pulse.ts";
import { DEFAULT_DEATH_TIMEOUT_MS, SelfFence } from "./self-fence.ts";

export interface FrontierNodeOptions {
  /** For `url explain`: the server a URL is capped under and its state in the region's gate. */
  servers?: FrontierServiceDeps["servers"];
  /**
   * The feed of fetched pages (core/feed): each page result is given to it before it is applied. In a node,
   * the local outbox (feed-outbox.ts), whose gauges show its backlog on /metrics.
   */
  feed?: Pick<PageFeed, "publish"> & { gauges?(): Record<string, number> };
  /**
   * The page budgets of jobs with maxPages (core/ports/job-budget.ts; NatsKvJobBudget on the cluster bucket),
   * held under this node's id. Absent: jobs' page tasks are not budgeted (maxPages ends a job only by its count).
   */
  budget?: JobBudget;
  nodeId: string;
  region: string;
  /** The cluster's partition count P (the ring's, when one exists). */
  partitions: number;
  rules: RegionRules;
  policy: PolicyConfig;
  credit: number;
  /** How long a task whose publish fails is published again before it is given back (Dispatcher). */
  republishForMs?: number;
  heartbeatIntervalMs: number;
  maxQueued: number;
  confirmAllSeen?: boolean;
  stopGraceMs: number;
  lostSweepIntervalMs: number;
  /** host:port to bind the gRPC API on (port 0: any free port). */
  grpcListen: string;
  /** Address written in the node record; default the bound address. */
  grpcAdvertise?: string;
  /** host:port of /healthz, /readyz, /metrics; undefined: none. */
  httpListen?: string;
  /** Tokens /metrics requires; none: /metrics is open (/healthz and /readyz always are). */
  metricsTokens?: readonly string[];
  /** gRPC over mutual TLS (CA, this node's certificate and key); absent: plain text. */
  grpcTls?: { ca: string; cert: string; key: string };
  /** HTTPS for /healthz, /readyz, /metrics; absent: plain HTTP. */
  httpTls?: { cert: string; key: string };
  state: ClusterState;
  bus: MessageBus;
  store: FrontierStore;
  seen: SeenSet;
  /** URLs imported by a handoff (a local Bloom seen-set learns them). */
  onImportedUrls?: (urls: string[]) => void;
  /**
   * Where each partition's state is replicated (docs/cluster.md, "Replicated partition state"); the store
   * must keep a journal. Absent: a partition lives on this node's disk only.
   */
  replica?: PartitionReplica;
  /**
   * The region's fetch claims (Redis): every task whose result this node applies is marked done there, so
   * a late delivery of it is never fetched again (fetch-node/copy-claims.ts). Absent: no marks.
   */
  fetchClaims?: { claims: FetchClaims; ttlMs: number };
  /** Snapshot policy of the replicated state. Defaults: every 10 min with changes, or every 20,000 journal rows. */
  snapshots?: { intervalMs?: number; rows?: number };
  /** How long a partition's new journal rows wait for later ones before they are sent (StatePublisher). */
  stateLingerMs?: number;
  now?: () => number;
  /** The process's counters, shared with the bus (default the frontier's own). */
  counters?: Counters;
  log?: Log;
  /** Connects to another node's Handoff RPC; default a FrontierClient. */
  dial?: (address: string, peerId: string) => HandoffPeer;
  handoffChunkSize?: number;
}

export class FrontierNode {
  readonly frontier: Frontier;
  private readonly pulse = new Pulse();
  private readonly fence: SelfFence;
  private readonly dispatcher: Dispatcher;
  private readonly manager: PartitionManager;
  private readonly receiver: HandoffReceiver;
  private readonly replicator: Replicator | undefined;
  private lastClaimWarnAt = 0;
  private readonly log: Log;
  private readonly now: () => number;
  /** Built once the servers are bound: the record carries their addresses. */
  private membership!: Membership;
  private grpc: RunningGrpcServer | undefined;
  private http: RunningHttpServer | undefined;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  /** The region's live fetch nodes: which one takes a host's tasks, and whether one renders. */
  private readonly fetchers: FetchersWatch;
  private healthSync: ReturnType<typeof setInterval> | undefined;
  private stopping: Promise<void> | undefined;
  private stopRootsWatch: (() => void) | undefined;
  private stopJobsWatch: (() => void) | undefined;
  private left = false;
  /** The partitions served as last announced by `announceServing` (its first record has none). */
  private announced = "";
  private addresses = { grpc: "", http: "" };

  /** Builds the node, binds its servers, announces it and starts serving what the ring gives it. */
  static async start(opts: FrontierNodeOptions): Promise<FrontierNode> {
    const node = new FrontierNode(opts);
    await node.run();
    return node;
  }

  private constructor(private readonly opts: FrontierNodeOptions) {
    const log = (this.log = opts.log ?? silentLog);
    // The politeness clock: results from fetch nodes are moved onto it when they arrive (partitions.ts).
    const now = (this.now = opts.now ?? preciseNow);
    const { nodeId, region, partitions, bus, state, store } = opts;
    let taskCounter = 0;
    const runId = Math.floor(now()).toString(36);
    const fetchersLog = log.child("fetchers");
    this.fetchers = new FetchersWatch({
      state,
      region,
      politenessKey: opts.policy.politenessKey,
      // A fetch node silent for the death timeout gets no new task: its hosts go to the others.
      staleMs: () => this.manager.currentRing?.deathTimeoutMs ?? DEFAULT_DEATH_TIMEOUT_MS,
      onError: (error) => fetchersLog.warn("could not read the node records; fetch nodes as last read", errorFields(error)),
      onChange: (nodes) =>
        fetchersLog.info(nodes.length > 0 ? "fetch nodes taking this region's hosts" : "no live fetch node: tasks go to the shared queue", {
          nodes: nodes.join(","),
        }),
    });
    const fetchers = this.fetchers;
    const frontier: Frontier = new Frontier({
      ...(renderingWanted(opts.policy) ? { renderAvailable: () => fetchers.renderAvailable } : {}),
      store,
      seen: opts.seen,
      policy: opts.policy,
      partitions,
      maxQueued: opts.maxQueued,
      confirmAllSeen: opts.confirmAllSeen,
      now,
      newTaskId: () => `${nodeId}-${runId}-${(taskCounter++).toString(36)}`,
      counters: opts.counters,
      serving: [],
      onDisk: (full, error) =>
        full
          ? log.error(
              "the store's disk is full: no fetch task is handed out until there is room; URL and result messages wait in their streams",
              errorFields(error),
            )
          : log.info("there is room on the store's disk again: dispatching goes on"),
      log: log.child("seen"),
      forward: {
        owns: (host) => {
          const address = addressOf(host, { ...opts, politenessKey: opts.policy.politenessKey });
          return address.region === region && frontier.serves(address.partition);
        },
        send: (urls) => this.forward(urls),
      },
      ...(opts.budget
        ? { budget: { budget: opts.budget, holder: nodeId, holders: () => this.frontierNodes(), log: log.child("budgets") } }
        : {}),
      // The seeds' hosts go to the cluster state, which every frontier node watches (run()).
      sharedRoots: { add: (hosts) => state.addScopeRoots(hosts) },
      // Deduplicated by the task id: a result given again (redelivered, a batch retried) is stored once.
      feed: opts.feed
        ? (items) => opts.feed!.publish(items.map(({ result, job }) => ({ id: result.taskId, record: pageRecordOf(result, job, region) })))
        : undefined,
    });
    this.frontier = frontier;
    const replicator = (this.replicator = opts.replica
      ? new Replicator({
          nodeId,
          region,
          store,
          replica: opts.replica,
          snapshotIntervalMs: opts.snapshots?.intervalMs ?? 10 * 60_000,
          rowsPerSnapshot: opts.snapshots?.rows ?? 20_000,
          lingerMs: opts.stateLingerMs ?? 0,
          lastSeen: async (id) => (await state.listNodes()).find((n) => n.id === id)?.heartbeatAt,
          log: log.child("replication"),
          now,
        })
      : undefined);
    /** Partitions received whole by handoff, with the ring epoch that marked them handed over. */
    const handedIn = new Map<number, number>();
    this.fence = new SelfFence({
      now,
      deathTimeoutMs: () => this.manager.currentRing?.deathTimeoutMs ?? DEFAULT_DEATH_TIMEOUT_MS,
      beat: () => this.membership.beat(),
      refreshRing: () => this.manager.refresh(),
      onResume: () => {
        this.dispatcher.wake();
        this.pulse.notify();
      },
      counters: frontier.counters,
      log: log.child("fence"),
    });
    this.dispatcher = new Dispatcher({
      frontier,
      bus,
      region,
      credit: opts.credit,
      republishForMs: opts.republishForMs,
      now,
      fence: this.fence,
      ownerEpoch: (p) => this.manager.ownerEpoch(p),
      fetcherOf: (task) => fetchers.fetcherOf(task),
      log: log.child("dispatcher"),
    });
    const sender = new HandoffSender({
      nodeId,
      region,
      state,
      store,
      frontier,
      dial:
        opts.dial ??
        ((address, peerId) => new FrontierClient(address, { peerName: `frontier node ${peerId} at ${address}`, tls: opts.grpcTls })),
      progress: (ms) => this.pulse.wait(ms),
      admitting: (p) => this.manager.isAdmitting(p),
      preparing: (p) => this.manager.isPreparing(p),
      holds: replicator && ((p) => replicator.holds(p)),
      releaseResults: (p) => this.manager.releaseResults(p),
      beforeExport: replicator && ((p, signal) => untilAborted(replicator.flushed(p), signal)),
      afterHandover: replicator && ((p) => replicator.gaveAway(p)),
      chunkSize: opts.handoffChunkSize,
      log: log.child("handoff"),
    });
    this.manager = new PartitionManager({
      nodeId,
      region,
      partitions,
      state,
      bus,
      frontier,
      dispatcher: this.dispatcher,
      sender,
      pulse: this.pulse,
      now,
      onResultApplied: opts.fetchClaims && ((taskId) => this.markDone(opts.fetchClaims!, taskId)),
      fence: this.fence,
      onChange: () => {
        this.syncHealth();
        this.announceServing();
        void this.checkDrained();
      },
      preparation: replicator && {
        prepare: async (p) => {
          const epoch = handedIn.get(p);
          handedIn.delete(p);
          const prep = await replicator.prepare(p, epoch !== undefined && epoch === this.manager.currentRing?.epoch);
          if (prep.outcome === "restored") {
            frontier.restored(p, prep.lostAt);
            log.info("partition rebuilt from its replica", {
              partition: p,
              from: prep.from.writer.node,
              lostAt: prep.lostAt,
              ...prep.report,
            });
          }
          replicator.serving(p);
        },
        released: (p) => replicator.released(p),
        committed: (p) => replicator.whenStored(p, replicator.lastRow(p)),
      },
      log: log.child("partitions"),
    });
    this.receiver = new HandoffReceiver({
      nodeId,
      region,
      partitions,
      state,
      store,
      frontier,
      onImportedUrls: opts.onImportedUrls,
      reload: (p) => this.manager.reload(p),
      replicated: replicator && {
        preparing: (p) => this.manager.isPreparing(p),
        onHandedIn: (p, epoch) => handedIn.set(p, epoch),
      },
      log: log.child("handoff"),
    });
  }

  get grpcAddress(): string {
    return this.addresses.grpc;
  }

  /** `http://host:port` of /healthz and /metrics, or "" when not served. */
  get httpAddress(): string {
    return this.addresses.http;
  }

  private async run(): Promise<void> {
    const { opts, log, frontier, manager, dispatcher, now } = this;
    const { nodeId, region, partitions, rules, bus, state } = opts;
    await bus.ensureRegion(region, partitions);
    const grpcLog = log.child("grpc");
    this.grpc = await startGrpcServer(
      [
        frontierService({
          ...(opts.servers ? { servers: opts.servers } : {}),
          nodeId,
          region,
          partitions,
          rules,
          politenessKey: opts.policy.politenessKey,
          frontier,
          bus,
          receiver: this.receiver,
          ownerOf: (r, p) => manager.ownerOf(r, p),
          serving: () => manager.served,
          drain: () => this.drain(),
          onAdmitted: () => dispatcher.wake(),
          mayAct: () => this.fence.allows(),
          logInternal: (error) => grpcLog.error("internal error in a gRPC handler", errorFields(error)),
        }),
      ],
      opts.grpcListen,
      {
        tls: opts.grpcTls && { ...opts.grpcTls, clientRoles: FRONTIER_CALLERS },
        onRefused: (refused) => grpcLog.warn("refused a call: its certificate is not one this API answers", { ...refused }),
      },
    );
    this.addresses.grpc = opts.grpcAdvertise || this.grpc.address;
    try {
      const listen = opts.httpListen ? parseHostPort(opts.httpListen) : undefined;
      if (opts.httpListen && !listen) throw new Error(`httpListen "${opts.httpListen}" is not host:port`);
      if (listen) {
        const httpLog = log.child("http");
        this.http = await serveHono(
          healthApp({
            ready: () => this.ready,
            metrics: () => ({
              counters: this.counters(),
              gauges: this.gauges(),
              histograms: frontier.histograms.toJSON(),
              labels: { node: nodeId, region },
            }),
            metricsTokens: new TokenSet(opts.metricsTokens ?? []),
          }),
          {
            hostname: listen.host,
            port: listen.port,
            tls: opts.httpTls,
            onError: (error) => httpLog.error("health app failed", errorFields(error)),
          },
        );
        this.addresses.http = this.http.url;
      }
      this.membership = new Membership({
        state,
        // Node records carry whole milliseconds, as every other role's do.
        identity: {
          id: nodeId,
          role: "frontier",
          region,
          runtime: "bun",
          grpcAddress: this.grpcAddress,
          httpAddress: this.httpAddress,
          startedAt: Math.floor(now()),
        },
        intervalMs: opts.heartbeatIntervalMs,
        now: () => Math.floor(now()),
        report: () => ({
          partitions: manager.served,
          counters: this.counters(),
          gauges: this.gauges(),
          histograms: frontier.histograms.toJSON(),
          hosts: frontier.hostReport(),
          jobs: frontier.jobReport(),
        }),
        onDrain: () => {
          frontier.drain();
          this.syncHealth();
          void this.checkDrained();
        },
        onWritten: (heartbeatAt) => this.fence.beatWritten(heartbeatAt),
        log: log.child("membership"),
      });
      await this.membership.start();
    } catch (error) {
      await this.grpc.close(0);
      await this.http?.close();
      throw error;
    }
    // Roots other nodes record (seeds they admitted) widen this node's scope too; a node keeps the ones it
    // heard in its store, so after a restart it judges links by them before the watch catches up.
    await this.replicator?.start();
    this.stopRootsWatch = state.watchScopeRoots((hosts) => frontier.addScopeRoots(hosts));
    // A job paused, resumed, cancelled or ended in the registry holds back, lets go or drops its URLs here.
    this.stopJobsWatch = state.watchJobs((job) => {
      const dropped = frontier.setJob(job);
      if (dropped > 0) log.info("dropped a cancelled job's queued URLs", { job: job.id, dropped });
      this.dispatcher.wake(); // a job with maxPages may take its first budget now
    });
    manager.start();
    // Read before the first hand-out, so the first tasks already go to their hosts' fetch nodes.
    await this.fetchers.start();
    dispatcher.start();
    this.sweeper = setInterval(() => this.sweepLost(), opts.lostSweepIntervalMs);
    // Events set the health status at once; this also catches a heartbeat that stopped reaching the state.
    this.healthSync = setInterval(() => this.syncHealth(), opts.heartbeatIntervalMs);
    this.syncHealth();
    log.info("frontier node started", { nodeId, region, partitions, grpc: this.grpcAddress, http: this.httpAddress });
  }

  /** Frontier nodes owning partitions in the ring (the page budgets' chunks are cut for them); at least 1. */
  private frontierNodes(): number {
    const owners = new Set<string>();
    for (const region of Object.values(this.manager.currentRing?.regions ?? {})) for (const o of region.owners) if (o) owners.add(o);
    return Math.max(1, owners.size);
  }

  /** Serving what the ring says and heartbeating, not stopping. */
  get ready(): boolean {
    return this.stopping === undefined && this.manager.currentRing !== undefined && this.membership.healthy && !this.left;
  }

  /**
   * What the gRPC health service reports as SERVING (for every service name and ""): ready, not draining,
   * serving at least one partition of the ring and waiting to receive or prepare none (with a replica, a
   * partition is served once claimed or rebuilt from it). A node that just joined turns SERVING once its
   * handoffs in have landed, which is what a rolling upgrade waits for before it moves on.
   */
  get settled(): boolean {
    const roles = this.manager.currentRoles;
    return (
      this.ready &&
      !this.frontier.isDraining &&
      !this.membership.isDraining &&
      this.manager.served.length > 0 &&
      roles.await.length === 0 &&
      this.manager.preparingPartitions.length === 0
    );
  }

  /** Partitions served now (given by the ring and, with a replica, prepared). */
  get serving(): number[] {
    return this.manager.served;
  }

  /** Partitions this node is waiting to receive, and partitions it is handing over. */
  get pending(): { await: number[]; handOff: number[] } {
    return {
      await: [...this.manager.currentRoles.await],
      handOff: [...new Set([...this.manager.currentRoles.handOff, ...this.manager.handingOff])],
    };
  }

  /** Stores a snapshot of partition p's replicated state now (tests, benchmarks); nothing without a replica. */
  async snapshot(p: number): Promise<void> {
    await this.replicator?.snapshot(p);
  }

  /** Stops dispatching and marks the record draining; partitions leave as the coordinator moves them. */
  async drain(): Promise<void> {
    this.frontier.drain();
    this.syncHealth();
    await this.membership.drain();
    await this.checkDrained();
  }

  /** A clean stop (SIGINT/SIGTERM): see the module comment. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.cleanStop();
    return this.stopping;
  }

  /**
   * Ends every activity as a `kill -9` would, for tests: no task given back, the store not marked clean,
   * the record left to age out. The borrowed store must then be closed (or dropped) by the caller.
   */
  crash(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.sweeper) clearInterval(this.sweeper);
      this.fetchers.stop();
      if (this.healthSync) clearInterval(this.healthSync);
      this.stopRootsWatch?.();
      this.stopJobsWatch?.();
      this.fence.stop();
      this.membership.stop();
      await this.dispatcher.stop();
      await this.manager.stopIntake();
      await this.frontier.stopSeenRecovery();
      await this.manager.abortHandoffs();
      await this.manager.stopResults();
      await this.replicator?.stop(0);
      await this.grpc?.close(0);
      await this.http?.close();
    })();
    return this.stopping;
  }

  private async cleanStop(): Promise<void> {
    const { log } = this;
    this.fetchers.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.healthSync) clearInterval(this.healthSync);
    this.stopRootsWatch?.();
    this.stopJobsWatch?.();
    this.fence.stop();
    this.grpc?.health.set(false);
    await this.dispatcher.stop();
    // No task goes out any more: the page budget held here goes back for the other nodes.
    await this.frontier
      .giveBackBudgets()
      .catch((error) => log.warn("could not give page budgets back; the coordinator reclaims them", errorFields(error)));
    await this.manager.stopIntake();
    await this.frontier.stopSeenRecovery();
    // Results of tasks in flight, and handoffs under way (which wait for those results), get the grace period.
    const deadline = this.now() + this.opts.stopGraceMs;
    const busy = () => this.frontier.inFlight > 0 || this.manager.handingOff.length > 0;
    while (busy() && this.now() < deadline) await this.pulse.wait(Math.min(250, Math.max(1, deadline - this.now())));
    await this.manager.abortHandoffs();
    const abandoned = this.dispatcher.abandonAll();
    if (abandoned > 0) log.info("gave back tasks whose results did not come in time; they are fetched again later", { abandoned });
    await this.manager.stopResults();
    // Rows not sent by then stay in the store's journal and go at the next start.
    await this.replicator?.stop();
    if (!this.left) {
      try {
        await this.membership.leave();
      } catch (error) {
        this.membership.stop();
        log.warn("could not delete the node record; it will age out", errorFields(error));
      }
    }
    await this.grpc?.close();
    await this.http?.close();
    log.info("frontier node stopped", { nodeId: this.opts.nodeId });
  }

  /**
   * Marks a task done in the fetch claims, not awaited: a late delivery of the task comes back only after
   * the fetch consumer's ack wait (seconds), long after this mark. A failed mark is counted and logged at
   * most once a minute: such a task, delivered again, may then be fetched again (the claims' answer when
   * Redis is down anyway).
   */
  private markDone(claims: { claims: FetchClaims; ttlMs: number }, taskId: string): void {
    claims.claims.done(taskId, claims.ttlMs).catch((error: unknown) => {
      this.frontier.counters.add("node.claims.done-failed");
      const now = Date.now();
      if (now - this.lastClaimWarnAt < 60_000) return;
      this.lastClaimWarnAt = now;
      this.log.warn(
        "marking a task done in the fetch claims failed (a late delivery of it may be fetched again)",
        errorFields(error, { task: taskId }),
      );
    });
  }

  /** A draining node with nothing left to serve or hand over deletes its record (coordinator contract). */
  private async checkDrained(): Promise<void> {
    if (this.left || this.stopping || !this.membership.isDraining || !this.manager.idle || this.frontier.inFlight > 0) return;
    this.left = true;
    try {
      await this.membership.leave();
      this.log.info("drained: every partition was handed over; the node record is deleted and the process may be stopped");
    } catch (error) {
      this.left = false;
      this.log.warn("could not delete the node record after draining; retrying later", errorFields(error));
    }
  }

  /**
   * Writes the record as soon as the partitions served change (a ring applied, a partition prepared or
   * handed over), not at the next heartbeat: the coordinator's `/v1/nodes` and `cluster up`'s readiness
   * read what a node serves from its record (measured: a node's record showed its partitions up to a
   * heartbeat interval, 2 s, after it served them). Beats asked for while one is writing share one more.
   */
  private announceServing(): void {
    if (!this.membership) return;
    const serving = this.manager.served.join(",");
    if (serving === this.announced) return;
    this.announced = serving;
    void this.membership.beat();
  }

  private syncHealth(): void {
    if (this.membership) this.grpc?.health.set(this.settled);
  }

  private sweepLost(): void {
    const lost = this.frontier.releaseLost(this.now());
    if (lost.length === 0) return;
    for (const t of lost) this.dispatcher.settled(t.taskId);
    this.log.warn("released hosts whose fetch results never came (fetch lease expired)", { hosts: lost.length });
    this.manager.released();
    this.dispatcher.wake();
    void this.checkDrained();
  }

  /** Redirect targets and sitemaps on hosts other nodes own go to their partitions' streams. */
  private async forward(urls: DiscoveredUrl[]): Promise<void> {
    await Promise.all(
      groupByOwner(urls, { ...this.opts, politenessKey: this.opts.policy.politenessKey }).map((g) =>
        this.opts.bus.publishUrls(g.region, g.partition, g.urls),
      ),
    );
    const sitemaps = urls.filter((u) => u.sitemap).length;
    if (urls.length > sitemaps) this.frontier.counters.add("node.redirects.forwarded", urls.length - sitemaps);
    if (sitemaps > 0) this.frontier.counters.add("node.sitemaps.forwarded", sitemaps);
  }

  /** Replicated state's gauges and counters (none without a replica). */
  private counters(): Record<string, number> {
    return { ...this.frontier.counters.toJSON(), ...this.replicator?.counters() };
  }

  private gauges(): Record<string, number> {
    return {
      ...frontierGauges(this.frontier),
      ...this.replicator?.gauges(),
      ...this.opts.feed?.gauges?.(),
      partitionsPreparing: this.manager.preparingPartitions.length,
      credit: this.opts.credit,
      tasksWaitingToPublish: this.dispatcher.waitingToPublish,
      partitionsServed: this.manager.served.length,
      // The region's live fetch nodes this node sends its hosts' tasks to (0: the shared queue).
      fetchNodesKnown: this.fetchers.fetchers.length,
      partitionsHandingOff: this.manager.handingOff.length,
      partitionsAwaited: this.manager.currentRoles.await.length,
      partitionsRebuildingSeen: this.frontier.partitionsRebuildingSeen.length,
      draining: this.frontier.isDraining ? 1 : 0,
    };
  }
}

/** Resolves with `promise`, or rejects when `signal` aborts first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

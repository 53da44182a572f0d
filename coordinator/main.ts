/**
 * The coordinator process, its composition root: reads the configuration (flags > env > defaults),
 * connects to NATS, opens the cluster state (NATS KV) and the bus (JetStream), makes sure every region's
 * streams exist, builds membership, stats, seeds and routing, serves gRPC (crawlctl) and the admin HTTP API,
 * writes its own node record at every heartbeat (kit/node), and every heartbeat interval, and as soon as
 * a node joins or leaves (loop.ts), renews the lease and rebalances the ring (leader only), samples the
 * totals for the pages/s rate (and the dashboard's pages/s and bytes/s chart), and sets the gRPC health
 * status: SERVING only on the leader with a ring (a standby says NOT_SERVING, so a load balancer sends
 * crawlctl to the leader; the same rule as /readyz). Start, stop and exit are the process kit's (kit/main
 * `runMain`): on SIGINT or SIGTERM the close steps turn the health status NOT_SERVING, stop the loop, close
 * the servers, delete its record, hand the lease over and close NATS; a second signal exits at once.
 *
 * With the TLS settings (kit/tls) it logs in to NATS as the coordinator's user over TLS, serves gRPC over
 * TLS (crawlctl checks the certificate, then sends the token), presents its certificate to the frontier
 * nodes it calls (mutual TLS), and serves the admin API over HTTPS; the files are checked before anything
 * starts.
 *
 * Prints one JSON line on stdout once serving: {"adminUrl", "grpcAddress", "nodeId"} plus "token" when the
 * token was generated (a launcher reads it).
 */
import { TokenSet } from "../core/auth/index.ts";
import { UnavailableError } from "../core/errors/index.ts";
import { FEED_STREAM, openedOnFirstUse } from "../core/feed/index.ts";
import { regionsOf, type NodeRecord } from "../core/cluster/index.ts";
import { AddressPolicy, parseHostPort } from "../core/net/index.ts";
import { FrontierClient, startGrpcServer } from "../adapters/grpc/index.ts";
import { API_MAX_BODY_BYTES, serveHono } from "../adapters/http/index.ts";
import {
  connectNats,
  JetStreamBus,
  JetStreamPageFeed,
  NatsKvClusterState,
  NatsKvJobBudget,
  watchNatsConnection,
} from "../adapters/nats/index.ts";
import { errorFields } from "../kit/log/index.ts";
import { runMain, startStep, type ProcessSpec } from "../kit/main/index.ts";
import { NodeHeartbeat } from "../kit/node/index.ts";
import { describeSecurity, loadGrpcTls, loadHttpTls, loadNatsAccess } from "../kit/tls/index.ts";
import { adminApp } from "./admin-api.ts";
import { coordinatorUsage, resolveCoordinatorConfig, type ResolvedConfig } from "./config.ts";
import { coordinatorGrpcService } from "./grpc-service.ts";
import { Membership } from "./membership.ts";
import { Rebalancer } from "./rebalancer.ts";
import { Routing } from "./routing.ts";
import { SeedPublisher } from "./seeds.ts";
import { BudgetKeeper } from "./job-budgets.ts";
import { clusterJobService } from "./jobs.ts";
import type { CoordinatorServices } from "./services.ts";
import { ClusterDashboard } from "./dashboard.ts";
import { ClusterStats } from "./stats.ts";
import { startCoordinatorLoop } from "./loop.ts";

/**
 * How long a membership change waits for more before the rebalance it causes (loop.ts), so changes that
 * come together make one ring (records of nodes started at once, a restarted fleet). Kept short: a join
 * waits this long for its partitions. Measured on `cluster up`: the two frontier nodes joined 35-230 ms
 * apart; when more than 50 ms apart the second took its share from the first by handoff, and the cluster
 * was ready about 0.3 s later than with one ring for both.
 */
const MEMBERSHIP_SETTLE_MS = 50;

export const coordinatorProcess: ProcessSpec<ResolvedConfig> = {
  name: "coordinator",
  usage: coordinatorUsage,
  configure: (argv, env) => resolveCoordinatorConfig(argv, env),
  logFormat: (resolved) => resolved.config.logFormat,
  abruptStopCost: "the lease and the node record are left to expire, so a standby takes over only after the lease TTL",
  async run(ctx) {
    const { config, security, rules, policy, tokenGenerated } = ctx.config;
    const adminTokens = new TokenSet(config.adminTokens);
    const { log, runtime } = ctx;
    const now = () => Date.now();
    const regions = regionsOf(rules);
    const onError = (where: string) => (error: unknown, detail: string) => log.error(`${where}: ${detail}`, errorFields(error));

    const tls = await startStep("read the TLS files", "fix or replace the file named (crawlctl certs makes them)", () => ({
      nats: loadNatsAccess(security),
      grpc: loadGrpcTls(security, "coordinator"),
      http: loadHttpTls(security),
    }));
    const nc = await startStep(
      `connect to NATS at ${config.natsUrls.join(", ")}`,
      "check that nats-server runs there with JetStream (-js), or give --nats-url",
      () => connectNats([...config.natsUrls], `coordinator ${config.nodeId}`, {}, tls.nats),
    );
    ctx.onClose("nats", () => nc.close());
    watchNatsConnection(nc, log.child("nats"));
    const state = await startStep(
      "open the cluster state bucket (NATS KV)",
      "check that nats-server runs with JetStream enabled (-js)",
      () => NatsKvClusterState.open(nc, { replicas: config.natsReplicas, onError: onError("cluster-state") }),
    );
    ctx.onClose("cluster-state", () => state.close());
    // With the regions, each region's streams go to its own NATS cluster when clusters are named after them.
    const bus = new JetStreamBus(nc, { onError: onError("bus"), regions, replicas: config.natsReplicas });
    ctx.onClose("bus", () => bus.close());
    await startStep(
      `create the streams of regions ${regions.join(", ")}`,
      "check that JetStream is enabled and has room (nats-server -js)",
      async () => {
        for (const region of regions) await bus.ensureRegion(region, config.partitions);
      },
    );

    // The feed of fetched pages: made when missing, its retention brought in line with this table's. Opened
    // when first read and tried now and every 5 s until it opens, not awaited: the stream lives in one region's
    // NATS cluster, and a coordinator must start and serve while that region is away (reads answer 503 then).
    const feed = openedOnFirstUse(() =>
      JetStreamPageFeed.open(nc, {
        replicas: config.natsReplicas,
        retention: { maxAgeMs: config.feedMaxAgeMs, maxBytes: config.feedMaxBytes, duplicateWindowMs: 2 * 60_000 },
      }).catch((error: unknown) => {
        throw new UnavailableError(
          `the page feed (stream ${FEED_STREAM}) cannot be opened now (${error instanceof Error ? error.message : String(error)}); retry shortly`,
          {
            cause: error,
          },
        );
      }),
    );
    let feedWarned = false;
    const openFeed = () =>
      feed.open().then(
        () => {
          clearInterval(feedRetry);
          if (feedWarned) log.info(`the page feed (stream ${FEED_STREAM}) is open`);
        },
        (error: unknown) => {
          if (!feedWarned)
            log.warn("the page feed cannot be opened yet: tried again every 5 s, its reads answer 503 meanwhile", errorFields(error));
          feedWarned = true;
        },
      );
    const feedRetry = setInterval(() => void openFeed(), 5_000);
    ctx.onClose("page feed", () => clearInterval(feedRetry));
    void openFeed();
    // The jobs' page budgets, beside the job records in the cluster-state bucket (job-budgets.ts).
    const budgets = new BudgetKeeper(
      await startStep("open the job page budgets (NATS KV)", "check that JetStream is enabled", () => NatsKvJobBudget.open(nc)),
    );
    const membership = new Membership({ state, now, deathTimeoutMs: config.deathTimeoutMs, observedSince: now() });
    // While this coordinator's own connection is down it cannot see the nodes' heartbeats, which most likely
    // fail for the same reason: that silence counts against no node (measured: after a 5 s NATS restart the
    // nodes' first heartbeats took another 5 s, and both frontier nodes were declared dead without this).
    void (async () => {
      for await (const s of nc.status()) if (s.type === "disconnect" || s.type === "staleConnection") membership.blind();
    })().catch((error: unknown) => log.warn("watching the NATS connection for membership failed", errorFields(error)));
    const stats = new ClusterStats({ membership, now });
    const seeds = new SeedPublisher({
      bus,
      rules,
      partitions: config.partitions,
      politenessKey: policy.politenessKey,
      maxUrls: config.maxSeedsPerRequest,
      addresses: AddressPolicy.of(policy),
    });
    const jobs = clusterJobService({ state, membership, seeds, now, budgets });
    const dashboard = new ClusterDashboard({ membership, state, now, jobs: () => jobs.list() });
    const rebalancer = new Rebalancer({
      state,
      membership,
      nodeId: config.nodeId,
      incarnation: crypto.randomUUID(),
      startedAt: now(),
      leaseTtlMs: config.leaseTtlMs,
      partitions: config.partitions,
      vnodes: config.vnodes,
      politenessKey: policy.politenessKey,
      expectFrontiers: config.expectFrontiers,
      // The record says who leads as soon as that changes (a standby's refusal names the leader from it).
      onLeaderChange: () => void heartbeat.beat(),
      regions,
      now,
      log: log.child("rebalancer"),
    });
    ctx.onClose("lease", () => rebalancer.release());
    let httpUrl = "";
    let grpcAddress = "";
    const startedAt = now();
    const heartbeat = new NodeHeartbeat({
      state,
      record: (): NodeRecord => ({
        id: config.nodeId,
        role: "coordinator",
        region: rules.defaultRegion,
        runtime: runtime.name,
        status: "active",
        // Where crawlctl and services reach this coordinator: a standby's refusal names the leader's.
        grpcAddress,
        httpAddress: httpUrl,
        startedAt,
        heartbeatAt: now(),
        partitions: [],
        counters: {},
        gauges: { leader: rebalancer.isLeader ? 1 : 0 },
      }),
      intervalMs: config.heartbeatIntervalMs,
      log: log.child("heartbeat"),
    });
    ctx.onClose("record", async () => {
      try {
        await heartbeat.leave();
      } finally {
        heartbeat.stop();
      }
    });
    const routing = new Routing({
      state,
      membership,
      rules,
      partitions: config.partitions,
      politenessKey: policy.politenessKey,
      connect: (address, peerName) => new FrontierClient(address, { deadlineMs: config.frontierCallTimeoutMs, peerName, tls: tls.grpc }),
    });
    ctx.onClose("routing", () => routing.close());
    const services: CoordinatorServices = {
      nodeId: config.nodeId,
      state,
      membership,
      stats,
      dashboard,
      seeds,
      jobs,
      feed,
      routing,
      rules,
      ready: () => rebalancer.isLeader && rebalancer.hasRing,
      isLeader: () => rebalancer.isLeader,
      log,
    };

    const grpc = await startStep(`serve gRPC on ${config.grpcListen}`, "give a free address with --grpc-listen", () =>
      startGrpcServer(
        [coordinatorGrpcService(services, { tokens: adminTokens, maxSeedsPerRequest: config.maxSeedsPerRequest })],
        config.grpcListen,
        { tls: tls.grpc },
      ),
    );
    ctx.onClose("grpc", () => grpc.close());
    grpcAddress = grpc.address;
    const listen = parseHostPort(config.httpListen)!; // checked by the table's listen kind
    const http = await startStep(`serve the admin API on ${config.httpListen}`, "give a free address with --http-listen", () =>
      serveHono(
        adminApp(services, {
          tokens: adminTokens,
          metricsTokens: new TokenSet(config.metricsTokens),
          maxSeedsPerRequest: config.maxSeedsPerRequest,
        }),
        {
          port: listen.port,
          hostname: listen.host,
          // Room for a full add-seeds request (10,000 URLs of a few hundred bytes each).
          maxBodyBytes: API_MAX_BODY_BYTES,
          tls: tls.http,
          onError: (error) => log.error("admin API error", errorFields(error)),
        },
      ),
    );
    ctx.onClose("http", () => http.close());
    httpUrl = http.url;

    await heartbeat.start();
    const loop = startCoordinatorLoop({
      rebalancer,
      membership,
      intervalMs: config.heartbeatIntervalMs,
      settleMs: MEMBERSHIP_SETTLE_MS,
      afterTick: () => grpc.health.set(services.ready()),
      sample: async () => {
        await stats.read();
        await dashboard.sample();
        // Only the lease holder writes job records: a job at its limit ends here.
        if (rebalancer.isLeader) for (const job of await services.jobs.endDue()) log.info("job ended", { job: job.id, reason: job.reason });
        // A frontier node gone for good leaves its unspent page budgets to the others.
        if (rebalancer.isLeader)
          for (const [holder, units] of await budgets.reclaimLost((await membership.view()).members, now()))
            log.info("reclaimed the page budgets of a frontier node no longer live", { node: holder, units });
      },
      onError: (error) => log.error("coordinator loop step failed; retrying at the next heartbeat", errorFields(error)),
    });
    ctx.onClose("loop", () => loop.stop());
    // Registered last, so it runs first: load balancers stop sending calls before anything closes.
    ctx.onClose("health", () => grpc.health.stop());

    ctx.out(
      `${JSON.stringify({ nodeId: config.nodeId, adminUrl: http.url, grpcAddress: grpc.address, ...(tokenGenerated ? { token: config.adminTokens[0] } : {}) })}\n`,
    );
    log.info("serving", {
      nodeId: config.nodeId,
      adminUrl: http.url,
      grpcAddress: grpc.address,
      regions,
      partitions: config.partitions,
      security: describeSecurity(tls),
    });
    await ctx.stopRequested;
    return 0;
  },
};

if (import.meta.main) await runMain(coordinatorProcess);

/**
 * The coordinator process, its composition root: reads the configuration (flags > env > defaults),
 * connects to NATS, opens the cluster state (NATS KV) and the bus (JetStream), makes sure every region's
 * streams exist, builds membership, stats, seeds and routing, serves gRPC (crawlctl) and the admin HTTP API,
 * and then every heartbeat interval: writes its own node record, renews the lease and rebalances the ring
 * (leader only), and samples the totals for the pages/s rate. On SIGINT or SIGTERM it stops the loop,
 * closes the servers, deletes its record, hands the lease over and closes NATS; a second signal exits at once.
 *
 * Prints one JSON line on stdout once serving: {"adminUrl", "grpcAddress", "nodeId"} plus "token" when the
 * token was generated (a launcher reads it).
 */
import { regionsOf, type NodeRecord } from "../core/cluster/index.ts";
import { FrontierClient, startGrpcServer, type RunningGrpcServer } from "../adapters/grpc/index.ts";
import { serveHono, type RunningHttpServer } from "../adapters/http/index.ts";
import { connectNats, JetStreamBus, NatsKvClusterState } from "../adapters/nats/index.ts";
import { jsonLog, type Log } from "../kit/log/index.ts";
import { TokenSet } from "../core/auth/index.ts";
import { AddressPolicy } from "../core/net/index.ts";
import { adminApp } from "./admin-api.ts";
import { CoordinatorConfigError, coordinatorUsage, resolveCoordinatorConfig, type CoordinatorConfig } from "./config.ts";
import { coordinatorGrpcService } from "./grpc-service.ts";
import { Membership } from "./membership.ts";
import { Rebalancer } from "./rebalancer.ts";
import { Routing } from "./routing.ts";
import { SeedPublisher } from "./seeds.ts";
import type { CoordinatorServices } from "./services.ts";
import { ClusterStats } from "./stats.ts";
import { every } from "./ticker.ts";

const ADMIN_MAX_BODY_BYTES = 8 * 1024 * 1024;

export async function main(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(coordinatorUsage());
    return 0;
  }
  let resolved: ReturnType<typeof resolveCoordinatorConfig>;
  try {
    resolved = resolveCoordinatorConfig(argv, env);
  } catch (error) {
    if (error instanceof CoordinatorConfigError) {
      process.stderr.write(`coordinator: ${error.message}\n\n${coordinatorUsage()}`);
      return 2;
    }
    throw error;
  }
  const { config, rules, policy, tokenGenerated } = resolved;
  const adminTokens = new TokenSet(config.adminTokens);
  const log = jsonLog("coordinator");
  const now = () => Date.now();

  let nc: Awaited<ReturnType<typeof connectNats>>;
  try {
    nc = await connectNats([...config.natsUrls], `coordinator ${config.nodeId}`);
  } catch (error) {
    process.stderr.write(
      `coordinator: cannot connect to NATS at ${config.natsUrls.join(", ")}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  const onError = (where: string) => (error: unknown, detail: string) => log.error(`${where}: ${detail}`, { error });
  const regions = regionsOf(rules);
  let state: NatsKvClusterState;
  let bus: JetStreamBus;
  try {
    state = await NatsKvClusterState.open(nc, { onError: onError("cluster-state") });
    bus = new JetStreamBus(nc, { onError: onError("bus") });
    for (const region of regions) await bus.ensureRegion(region, config.partitions);
  } catch (error) {
    log.error("cannot set up the cluster state bucket and the region streams (is JetStream enabled?)", { error });
    await nc.close();
    return 1;
  }

  const membership = new Membership({ state, now, deathTimeoutMs: config.deathTimeoutMs });
  const stats = new ClusterStats({ membership, now });
  const seeds = new SeedPublisher({
    bus,
    rules,
    partitions: config.partitions,
    maxUrls: config.maxSeedsPerRequest,
    addresses: AddressPolicy.of(policy),
  });
  const routing = new Routing({
    state,
    membership,
    rules,
    partitions: config.partitions,
    connect: (address, peerName) => new FrontierClient(address, { deadlineMs: config.frontierCallTimeoutMs, peerName }),
  });
  const rebalancer = new Rebalancer({
    state,
    membership,
    nodeId: config.nodeId,
    leaseTtlMs: config.leaseTtlMs,
    partitions: config.partitions,
    vnodes: config.vnodes,
    regions,
    now,
    log: log.child("rebalancer"),
  });
  const services: CoordinatorServices = {
    nodeId: config.nodeId,
    state,
    membership,
    stats,
    seeds,
    routing,
    rules,
    ready: () => rebalancer.isLeader && rebalancer.hasRing,
    log,
  };

  const [httpHost, httpPort] = splitHostPort(config.httpListen);
  let grpc: RunningGrpcServer;
  let http: RunningHttpServer;
  try {
    grpc = await startGrpcServer([coordinatorGrpcService(services, { tokens: adminTokens })], config.grpcListen);
  } catch (error) {
    log.error("cannot serve gRPC", { listen: config.grpcListen, error });
    await closeAll(routing, bus, state, nc);
    return 1;
  }
  try {
    http = await serveHono(
      adminApp(services, {
        tokens: adminTokens,
        metricsTokens: new TokenSet(config.metricsTokens),
        maxSeedsPerRequest: config.maxSeedsPerRequest,
      }),
      {
        port: httpPort,
        hostname: httpHost,
        // Room for a full add-seeds request (10,000 URLs of a few hundred bytes each).
        maxBodyBytes: ADMIN_MAX_BODY_BYTES,
        onError: (error) => log.error("admin API error", { error }),
      },
    );
  } catch (error) {
    log.error("cannot serve the admin API", { listen: config.httpListen, error });
    await grpc.close(0);
    await closeAll(routing, bus, state, nc);
    return 1;
  }

  const startedAt = now();
  const selfRecord = (): NodeRecord => ({
    id: config.nodeId,
    role: "coordinator",
    region: rules.defaultRegion,
    runtime: typeof Bun !== "undefined" ? "bun" : "deno",
    status: "active",
    grpcAddress: "",
    httpAddress: http.url,
    startedAt,
    heartbeatAt: now(),
    partitions: [],
    counters: {},
    gauges: { leader: rebalancer.isLeader ? 1 : 0 },
  });
  const loop = every(
    config.heartbeatIntervalMs,
    async () => {
      await state.putNode(selfRecord());
      await rebalancer.tick();
      await stats.read();
    },
    (error) => log.error("coordinator loop step failed; retrying at the next heartbeat", { error }),
  );

  process.stdout.write(
    `${JSON.stringify({ nodeId: config.nodeId, adminUrl: http.url, grpcAddress: grpc.address, ...(tokenGenerated ? { token: config.adminTokens[0] } : {}) })}\n`,
  );
  log.info("serving", { nodeId: config.nodeId, adminUrl: http.url, grpcAddress: grpc.address, regions, partitions: config.partitions });

  const signal = await waitForSignal();
  log.info("stopping", { signal });
  await shutdown(log, [
    ["loop", () => loop.stop()],
    ["http", () => http.close()],
    ["grpc", () => grpc.close()],
    ["routing", async () => routing.close()],
    ["record", () => state.deleteNode(config.nodeId)],
    ["lease", () => rebalancer.release()],
    ["bus", () => bus.close()],
    ["cluster-state", () => state.close()],
    ["nats", () => nc.close()],
  ]);
  return 0;
}

/** Resolves with the first SIGINT/SIGTERM; a second one exits at once. */
function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    let received = false;
    const on = (name: string) => {
      if (received) {
        process.stderr.write(`coordinator: ${name} again, exiting now\n`);
        process.exit(130);
      }
      received = true;
      resolve(name);
    };
    process.on("SIGINT", () => on("SIGINT"));
    process.on("SIGTERM", () => on("SIGTERM"));
  });
}

/** Runs each close step in order; a failing step is logged and the rest still run. */
async function shutdown(log: Log, steps: ReadonlyArray<readonly [string, () => Promise<unknown>]>): Promise<void> {
  const tookMs: Record<string, number> = {};
  for (const [name, step] of steps) {
    const started = Date.now();
    try {
      await step();
    } catch (error) {
      log.warn(`stopping ${name} failed`, { error });
    }
    tookMs[name] = Date.now() - started;
  }
  log.info("stopped", { tookMs });
}

/** Closes what start-up opened before it failed. */
async function closeAll(routing: Routing, bus: JetStreamBus, state: NatsKvClusterState, nc: { close(): Promise<void> }): Promise<void> {
  routing.close();
  await bus.close().catch(() => {});
  await state.close().catch(() => {});
  await nc.close().catch(() => {});
}

function splitHostPort(listen: CoordinatorConfig["httpListen"]): [string, number] {
  const colon = listen.lastIndexOf(":");
  return [listen.slice(0, colon).replace(/^\[|\]$/g, ""), Number(listen.slice(colon + 1))];
}

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}

/**
 * The frontier node process: its composition root. It reads the configuration (frontier-node/node/config.ts,
 * flags over `CRAWL_*` env vars over defaults), opens the state under --data-dir (the SQLite frontier store,
 * and the local Bloom seen-set when no Redis is configured), connects to the region's NATS (cluster state in
 * KV, the JetStream bus) and Redis, settles the partition count against the ring, and runs a FrontierNode
 * until SIGINT or SIGTERM, then stops it cleanly. Start, stop and exit are the process kit's (kit/main
 * `runMain`): each part registers its close as it opens, and they close in reverse. Restarted with the same
 * data dir (and so the same node id), it resumes from its store. With the TLS settings (kit/tls), checked
 * before anything starts, it logs in to NATS as the frontier user over TLS, reaches Redis over TLS as the
 * ACL user of its URL, serves gRPC over mutual TLS to the coordinator and the other frontier nodes only
 * (a fetch node's certificate is refused), and serves /healthz and /metrics over HTTPS.
 *
 *   bun frontier-node/main.ts --region us --nats-url nats://127.0.0.1:4222 --redis-url redis://127.0.0.1:6379 \
 *     --data-dir /var/lib/crawler/f1 --grpc-listen 127.0.0.1:7501 --http-listen 127.0.0.1:7581
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_FETCH_CLAIM_TTL_MS, type ClusterState, type FetchClaims, type SeenSet } from "../core/ports/index.ts";
import { Counters } from "../core/stats/index.ts";
import { politenessKeyMismatch, ringPolitenessKey } from "../core/cluster/index.ts";
import type { PolitenessKeyMode } from "../core/politeness/index.ts";
import {
  connectNats,
  JetStreamBus,
  JetStreamPageFeed,
  NatsKvJobBudget,
  JetStreamPartitionReplica,
  NatsKvClusterState,
  watchNatsConnection,
} from "../adapters/nats/index.ts";
import { connectRedis, RedisFetchClaims, RedisSeenSet, redisConnectionLog, type RedisClient } from "../adapters/redis/index.ts";
import { frontierServerExplainer } from "./server-explain.ts";
import { lockDir } from "../kit/fs/index.ts";
import { errorFields } from "../kit/log/index.ts";
import { runMain, StartupError, startStep, type ProcessSpec } from "../kit/main/index.ts";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import { applyScopeFile, formatDuration } from "../core/config/index.ts";
import { describeSecurity, loadGrpcTls, loadHttpTls, loadNatsAccess, loadRedisCa } from "../kit/tls/index.ts";
import { frontierNodeUsage, generateNodeId, resolveFrontierNodeConfig, type ResolvedFrontierNodeConfig } from "./node/config.ts";
import { FrontierNode } from "./node/frontier-node.ts";
import { FeedOutbox } from "./node/feed-outbox.ts";
import { openedOnFirstUse } from "../core/feed/index.ts";
import { SqlitePageFeed } from "../adapters/sqlite/index.ts";
import { openNodeStore } from "./open-store.ts";

const SEEN_SAVE_INTERVAL_MS = 30_000;

export const frontierNodeProcess: ProcessSpec<ResolvedFrontierNodeConfig> = {
  name: "frontier-node",
  usage: frontierNodeUsage,
  configure: resolveFrontierNodeConfig,
  logFormat: (resolved) => resolved.config.logFormat,
  stopNote: (resolved) => `results of tasks in flight get ${formatDuration(resolved.config.stopGraceMs)}`,
  abruptStopCost: "the store is consistent; tasks in flight are fetched again after the restart",
  async run(ctx) {
    const resolved = ctx.config;
    const { config, security, rules } = resolved;
    // --scope-file's lists join the policy's before anything uses it (a bad file is a usage error, exit 2).
    const policy = applyScopeFile(resolved.policy, (path) => readFileSync(path, "utf8"));
    const { log } = ctx;
    const tls = await startStep("read the TLS files", "fix or replace the file named (crawlctl certs makes them)", () => ({
      nats: loadNatsAccess(security),
      redisCa: loadRedisCa(security),
      grpc: loadGrpcTls(security, "frontier"),
      http: loadHttpTls(security),
    }));
    log.info("security", describeSecurity({ ...tls, redis: config.redisUrl ? { url: config.redisUrl, caPem: tls.redisCa } : undefined }));
    const dataDir = resolve(config.dataDir);
    mkdirSync(dataDir, { recursive: true });
    const lock = lockDir(dataDir);
    if (!lock.ok)
      throw new StartupError(
        `${dataDir} is in use by another frontier node (pid ${lock.holder}); stop it first or give another --data-dir`,
      );
    ctx.onClose("data dir lock", () => lock.release());

    // Without Redis the seen-set is a local Bloom filter, which replays the store's admission log.
    const store = openNodeStore(dataDir, { recentLog: !config.redisUrl, journal: config.replicateState }, log, (m) => new StartupError(m));
    ctx.onClose("store", () => store.close());
    const nodeId = settleNodeId(config.nodeId, store.getMeta("node-id"), dataDir);
    store.setMeta("node-id", nodeId);

    const nc = await startStep(
      `connect to NATS at ${config.natsUrls.join(", ")}`,
      "check that nats-server runs there with JetStream (-js), or give --nats-url",
      () => connectNats([...config.natsUrls], nodeId, {}, tls.nats),
    );
    ctx.onClose("nats", () => nc.drain());
    watchNatsConnection(nc, log.child("nats"));
    const state: ClusterState = await startStep(
      "open the cluster state (NATS KV)",
      "check that nats-server runs with JetStream enabled (-js)",
      () =>
        NatsKvClusterState.open(nc, {
          replicas: config.natsReplicas,
          onError: (error, where) => log.child("cluster-state").warn(where, errorFields(error)),
        }),
    );
    ctx.onClose("cluster state", () => state.close());
    // One set of counters for the process: the frontier's, and the bus's refused messages.
    const counters = new Counters();
    const bus = new JetStreamBus(nc, {
      onError: (error, where) => log.child("bus").warn(where, errorFields(error)),
      counters,
      replicas: config.natsReplicas,
    });
    ctx.onClose("bus", () => bus.close());

    // A store that has placed hosts before (it knows its partition count) was built with its key, `host` if it has none.
    const builtWithKey = store.getMeta("politeness-key") ?? (store.getMeta("partitions") === undefined ? undefined : "host");
    const partitions = await settlePartitions(resolved, state, store.getMeta("partitions"));
    store.setMeta("partitions", String(partitions));
    await checkPolitenessKey(policy.politenessKey, state, builtWithKey);
    store.setMeta("politeness-key", policy.politenessKey);

    let seen: SeenSet;
    let onImportedUrls: ((urls: string[]) => void) | undefined;
    let fetchClaims: { claims: FetchClaims; ttlMs: number } | undefined;
    let gateRedis: RedisClient | undefined;
    if (config.redisUrl) {
      const url = config.redisUrl;
      const redisLog = log.child("redis");
      seen = await startStep(`connect to Redis at ${url}`, "check that redis-server runs there, or give another --redis-url", () =>
        RedisSeenSet.connect(url, {}, { name: nodeId, tlsCaPem: tls.redisCa, ...redisConnectionLog(redisLog) }),
      );
      ctx.onClose("seen-set", () => seen.close());
      // Tasks whose results this node applies are marked done in the region's fetch claims (its own connection).
      const claims = await startStep(`connect to Redis at ${url} for the fetch claims`, "check that redis-server runs there", () =>
        RedisFetchClaims.connect(url, {}, { name: `${nodeId}-claims`, tlsCaPem: tls.redisCa, ...redisConnectionLog(redisLog) }),
      );
      ctx.onClose("fetch claims", () => claims.close());
      fetchClaims = { claims, ttlMs: DEFAULT_FETCH_CLAIM_TTL_MS };
      // `url explain` reads the region's address gate (the fetch nodes' cap per server) on a connection of its own.
      const explainRedis = await startStep(`connect to Redis at ${url} for url explain`, "check that redis-server runs there", () =>
        connectRedis(url, { name: `${nodeId}-explain`, tlsCaPem: tls.redisCa, ...redisConnectionLog(redisLog) }),
      );
      ctx.onClose("redis (url explain)", () => explainRedis.close());
      gateRedis = explainRedis;
    } else {
      const local = LocalBloomSeenSet.openReplaying(join(dataDir, "seen.bloom"), store);
      const saver = setInterval(() => local.checkpoint(store), SEEN_SAVE_INTERVAL_MS);
      // Registered after the store's step, so it runs before it: the snapshot reads the store.
      ctx.onClose("seen-set snapshot", () => {
        clearInterval(saver);
        local.checkpoint(store);
      });
      seen = local;
      onImportedUrls = (urls) => local.addKnown(urls);
      log.warn("no --redis-url: using a local Bloom filter as the seen-set; run one frontier node per region this way");
    }

    // The feed of fetched pages: opened (made when missing); its retention is the coordinator's to set.
    // Opened by the outbox's first publish, not here: the stream lives in one region, which may be away now.
    const stream = openedOnFirstUse(() => JetStreamPageFeed.open(nc, { replicas: config.natsReplicas }));
    // Results go to an outbox on this disk and a loop publishes them, so the stream's region being away never stops this crawl.
    const outboxLog = log.child("feed-outbox");
    const outboxTable = await startStep(
      `open the feed outbox in ${dataDir}`,
      "check that the data dir is writable and has room",
      async () =>
        SqlitePageFeed.open(join(dataDir, "feed-outbox.sqlite"), {
          maxAgeMs: config.feedMaxAgeMs,
          maxBytes: config.feedMaxBytes,
          now: () => Date.now(),
          onDropped: FeedOutbox.dropReporter(counters, outboxLog),
        }),
    );
    const feed = new FeedOutbox({ outbox: outboxTable, stream, counters, log: outboxLog });
    feed.start();
    ctx.onClose("feed outbox", () => feed.stop());
    // The page budgets of jobs with maxPages: in the cluster-state bucket, beside the job records.
    const budget = await startStep("open the job page budgets (NATS KV)", "check that JetStream is enabled", () =>
      NatsKvJobBudget.open(nc),
    );
    const servers = frontierServerExplainer({ policy, region: config.region, state, ...(gateRedis ? { redis: gateRedis } : {}) });
    ctx.onClose("url explain", () => servers.close());
    const node = await startStep(
      `start the node (gRPC on ${config.grpcListen}${config.httpListen ? `, HTTP on ${config.httpListen}` : ""})`,
      "check that those addresses are free (--grpc-listen, --http-listen) and that NATS answers",
      () =>
        FrontierNode.start({
          servers,
          feed,
          budget,
          nodeId,
          region: config.region,
          partitions,
          rules,
          policy,
          credit: config.credit,
          heartbeatIntervalMs: config.heartbeatIntervalMs,
          maxQueued: config.maxQueued,
          confirmAllSeen: config.confirmAllSeen,
          fetchClaims,
          stopGraceMs: config.stopGraceMs,
          lostSweepIntervalMs: config.lostSweepIntervalMs,
          grpcListen: config.grpcListen,
          grpcAdvertise: config.grpcAdvertise || undefined,
          httpListen: config.httpListen || undefined,
          metricsTokens: config.metricsTokens,
          grpcTls: tls.grpc,
          httpTls: tls.http,
          state,
          bus,
          store,
          seen,
          onImportedUrls,
          replica: config.replicateState ? new JetStreamPartitionReplica(nc, { replicas: config.natsReplicas }) : undefined,
          snapshots: { intervalMs: config.stateSnapshotIntervalMs },
          stateLingerMs: config.stateLingerMs,
          counters,
          log,
        }),
    );
    ctx.out(
      `${JSON.stringify({ nodeId, region: config.region, grpcAddress: node.grpcAddress, httpAddress: node.httpAddress, partitions })}\n`,
    );

    await ctx.stopRequested;
    try {
      await node.stop();
    } catch (error) {
      log.error("clean stop failed", errorFields(error));
    }
    return 0;
  },
};

/** The node id: the configured one, else the one this data dir was created with, else a fresh one. */
function settleNodeId(configured: string, saved: string | undefined, dataDir: string): string {
  if (configured && saved && configured !== saved) {
    throw new StartupError(
      `${dataDir} holds the state of node ${saved}, not ${configured}: restart that node with its own id (or leave --node-id empty), or give this node another --data-dir`,
    );
  }
  return configured || saved || generateNodeId();
}

/**
 * The politeness key places every host, so it must be the ring's (core/cluster fleet-politeness-key.ts) and
 * the one this store was built with (`builtWith` undefined: a new store).
 */
async function checkPolitenessKey(mine: PolitenessKeyMode, state: ClusterState, builtWith: string | undefined): Promise<void> {
  const ring = (await state.getRing())?.ring;
  const refused =
    (ring && politenessKeyMismatch(ringPolitenessKey(ring), mine)) ||
    (builtWith !== undefined && politenessKeyMismatch(builtWith as PolitenessKeyMode, mine, "the key this node's store was built with"));
  if (refused) throw new StartupError(refused);
}

/** The partition count: the ring's when there is one (a different explicit --partitions is fatal). */
async function settlePartitions(resolved: ResolvedFrontierNodeConfig, state: ClusterState, saved: string | undefined): Promise<number> {
  const ring = (await state.getRing())?.ring;
  let partitions = resolved.config.partitions;
  if (ring && ring.partitions !== partitions) {
    if (resolved.partitionsGiven) {
      throw new StartupError(
        `--partitions ${partitions} differs from the cluster's ring (${ring.partitions} partitions); the partition count is fixed for the cluster's life`,
      );
    }
    partitions = ring.partitions;
  }
  if (saved !== undefined && Number(saved) !== partitions) {
    throw new StartupError(
      `the store was built with ${saved} partitions but the cluster uses ${partitions}; this data dir belongs to another cluster`,
    );
  }
  return partitions;
}

if (import.meta.main) await runMain(frontierNodeProcess);

/**
 * The frontier node process: its composition root. It reads the configuration (frontier-node/node/config.ts,
 * flags over `CRAWL_*` env vars over defaults), opens the state under --data-dir (the SQLite frontier store,
 * and the local Bloom seen-set when no Redis is configured), connects to the region's NATS (cluster state in
 * KV, the JetStream bus) and Redis, settles the partition count against the ring, and runs a FrontierNode
 * until SIGINT or SIGTERM, then stops it cleanly and closes what it opened. Restarted with the same data dir
 * (and so the same node id), it resumes from its store.
 *
 *   bun frontier-node/main.ts --region us --nats-url nats://127.0.0.1:4222 --redis-url redis://127.0.0.1:6379 \
 *     --data-dir /var/lib/crawler/f1 --grpc-listen 127.0.0.1:7501 --http-listen 127.0.0.1:7581
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ClusterState, SeenSet } from "../core/ports/index.ts";
import { connectNats, JetStreamBus, JetStreamPartitionReplica, NatsKvClusterState, type NatsConnection } from "../adapters/nats/index.ts";
import { RedisSeenSet } from "../adapters/redis/index.ts";
import { lockDir } from "../kit/fs/index.ts";
import { jsonLog, type Log } from "../kit/log/index.ts";
import { LocalBloomSeenSet } from "../adapters/memory/index.ts";
import {
  frontierNodeUsage,
  FrontierNodeConfigError,
  generateNodeId,
  resolveFrontierNodeConfig,
  type ResolvedFrontierNodeConfig,
} from "./node/config.ts";
import { FrontierNode } from "./node/frontier-node.ts";
import { openNodeStore } from "./open-store.ts";

const SEEN_SAVE_INTERVAL_MS = 30_000;

/** Fatal at start-up, with a message for the operator (no stack). */
class StartupError extends Error {
  override name = "StartupError";
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(frontierNodeUsage());
    return 0;
  }
  let resolved: ResolvedFrontierNodeConfig;
  try {
    resolved = resolveFrontierNodeConfig(argv, env);
  } catch (error) {
    if (error instanceof FrontierNodeConfigError) {
      process.stderr.write(`frontier-node: ${error.message}\n\n${frontierNodeUsage()}`);
      return 2;
    }
    throw error;
  }
  const log = jsonLog("frontier-node");
  try {
    return await run(resolved, log);
  } catch (error) {
    if (error instanceof StartupError) {
      log.error(error.message);
      return 1;
    }
    log.error("frontier node failed", { error });
    return 1;
  }
}

async function run(resolved: ResolvedFrontierNodeConfig, log: Log): Promise<number> {
  const { config, policy, rules } = resolved;
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDir(dataDir);
  if (!lock.ok)
    throw new StartupError(`${dataDir} is in use by another frontier node (pid ${lock.holder}); stop it first or give another --data-dir`);
  const closers: Array<() => Promise<void> | void> = [() => lock.release()];
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        log.warn("closing failed", { error });
      }
    }
  };
  try {
    // Without Redis the seen-set is a local Bloom filter, which replays the store's admission log.
    const store = openNodeStore(dataDir, { recentLog: !config.redisUrl, journal: config.replicateState }, log, (m) => new StartupError(m));
    closers.push(() => store.close());
    const nodeId = settleNodeId(config.nodeId, store.getMeta("node-id"), dataDir);
    store.setMeta("node-id", nodeId);

    const nc: NatsConnection = await connectNats([...config.natsUrls], nodeId);
    closers.push(() => nc.drain());
    const state: ClusterState = await NatsKvClusterState.open(nc, {
      onError: (error, where) => log.child("cluster-state").warn(where, { error }),
    });
    closers.push(() => state.close());
    const bus = new JetStreamBus(nc, { onError: (error, where) => log.child("bus").warn(where, { error }) });
    closers.push(() => bus.close());

    const partitions = await settlePartitions(resolved, state, store.getMeta("partitions"));
    store.setMeta("partitions", String(partitions));

    let seen: SeenSet;
    let onImportedUrls: ((urls: string[]) => void) | undefined;
    if (config.redisUrl) {
      seen = await RedisSeenSet.connect(
        config.redisUrl,
        {},
        { name: nodeId, onError: (error) => log.child("redis").warn("redis connection error", { error }) },
      );
      closers.push(() => seen.close());
    } else {
      const local = LocalBloomSeenSet.openReplaying(join(dataDir, "seen.bloom"), store);
      const saver = setInterval(() => local.checkpoint(store), SEEN_SAVE_INTERVAL_MS);
      // Registered before the store's closer runs (closers run in reverse): the snapshot reads the store.
      closers.push(() => {
        clearInterval(saver);
        local.checkpoint(store);
      });
      seen = local;
      onImportedUrls = (urls) => local.addKnown(urls);
      log.warn("no --redis-url: using a local Bloom filter as the seen-set; run one frontier node per region this way");
    }

    const node = await FrontierNode.start({
      nodeId,
      region: config.region,
      partitions,
      rules,
      policy,
      credit: config.credit,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      maxQueued: config.maxQueued,
      confirmAllSeen: config.confirmAllSeen,
      stopGraceMs: config.stopGraceMs,
      lostSweepIntervalMs: config.lostSweepIntervalMs,
      grpcListen: config.grpcListen,
      grpcAdvertise: config.grpcAdvertise || undefined,
      httpListen: config.httpListen || undefined,
      state,
      bus,
      store,
      seen,
      onImportedUrls,
      replica: config.replicateState ? new JetStreamPartitionReplica(nc, { replicas: config.natsReplicas }) : undefined,
      snapshots: { intervalMs: config.stateSnapshotIntervalMs },
      log,
    });
    process.stdout.write(
      `${JSON.stringify({ nodeId, region: config.region, grpcAddress: node.grpcAddress, httpAddress: node.httpAddress, partitions })}\n`,
    );

    await new Promise<void>((done) => {
      let signals = 0;
      const onSignal = (name: string) => {
        signals++;
        if (signals > 1) {
          log.warn(`${name} again: exiting now; the store is consistent, tasks in flight are fetched again after the restart`);
          process.exit(130);
        }
        log.info(`${name}: stopping`);
        node.stop().then(done, (error: unknown) => {
          log.error("clean stop failed", { error });
          done();
        });
      };
      process.on("SIGINT", () => onSignal("SIGINT"));
      process.on("SIGTERM", () => onSignal("SIGTERM"));
    });
    return 0;
  } finally {
    await closeAll();
  }
}

/** The node id: the configured one, else the one this data dir was created with, else a fresh one. */
function settleNodeId(configured: string, saved: string | undefined, dataDir: string): string {
  if (configured && saved && configured !== saved) {
    throw new StartupError(
      `${dataDir} holds the state of node ${saved}, not ${configured}: restart that node with its own id (or leave --node-id empty), or give this node another --data-dir`,
    );
  }
  return configured || saved || generateNodeId();
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

if (import.meta.main) {
  process.exitCode = await main(process.argv.slice(2), process.env);
  process.exit();
}

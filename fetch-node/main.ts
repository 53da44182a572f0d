/**
 * The fetch node process: the composition root. It reads the configuration (flags > env > defaults,
 * config.ts), connects to the region's NATS (JetStream bus and cluster-state KV) and, when given, its
 * Redis (the shared content index; else an in-memory one), builds the same fetch path as the embedded
 * crawler (fetch-path.ts), serves /healthz, /readyz and /metrics, and runs a FetchNode until SIGINT or
 * SIGTERM; a second signal exits at once (unacked tasks are redelivered). Everything it opened it closes,
 * in reverse order. The same file runs on Bun and on Deno (fetch-node/README.md has both commands); the
 * runtime is reached only through runtime.ts.
 */
import { connectNats, JetStreamBus, NatsKvClusterState, type NatsConnection } from "../adapters/nats/index.ts";
import { healthApp, serveHono } from "../adapters/http/index.ts";
import { RedisContentIndex } from "../adapters/redis/index.ts";
import { Counters } from "../core/stats/index.ts";
import { textLog, type Log } from "../kit/log/index.ts";
import { describeFetchNodeConfig, FetchNodeConfigError, fetchNodeUsage, loadFetchNodeConfig, type FetchNodeConfig } from "./config.ts";
import type { ContentIndex } from "../core/ports/index.ts";
import { MemoryContentIndex } from "../adapters/memory/index.ts";
import { openFetchPath, startWarcUpload, type WarcUploadStarted } from "../engine/fetch/index.ts";
import { s3StoreFor } from "../adapters/s3/index.ts";
import { FetchNode } from "./node.ts";
import { probeDisk } from "./disk-probe.ts";
import { hostRuntime, type RuntimePort } from "../kit/runtime.ts";

/** Runs the node; resolves with the exit code once it has stopped and closed everything. */
export async function main(runtime: RuntimePort): Promise<number> {
  const argv = runtime.argv();
  const write = (text: string) => void process.stderr.write(text);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(fetchNodeUsage());
    return 0;
  }
  let config: FetchNodeConfig;
  try {
    config = loadFetchNodeConfig(argv, runtime.env());
  } catch (error) {
    if (!(error instanceof FetchNodeConfigError)) throw error;
    write(`fetch-node: ${error.message}\n\nsee --help\n`);
    return 2;
  }
  const log = textLog(`fetch-node[${config.nodeId}]`, write);
  log.info("starting", { runtime: runtime.name, version: runtime.version, ...describeFetchNodeConfig(config) });

  const closers: Array<[string, () => Promise<unknown>]> = [];
  const closeAll = async () => {
    for (const [what, close] of closers.reverse()) {
      try {
        await close();
      } catch (error) {
        log.warn(`closing ${what} failed`, { error: String(error) });
      }
    }
  };

  let node: FetchNode | undefined;
  try {
    node = await assemble(config, runtime, log, closers);
  } catch (error) {
    log.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
    await closeAll();
    return 1;
  }

  const signal = await new Promise<string>((resolve) => {
    let first = true;
    runtime.onStopSignal((name) => {
      if (!first) {
        log.warn(`${name} again: exiting now; unacked tasks are redelivered after the ack wait`);
        runtime.exit(130);
      }
      first = false;
      resolve(name);
    });
  });
  log.info(`${signal}: stopping`, { tasksInFlight: node.tasksInFlight, graceMs: config.stopGraceMs });
  await node.stop(config.stopGraceMs);
  await closeAll();
  log.info("stopped", { tasks: node.counters.sum("fetcher.tasks.") });
  return 0;
}

/** Opens every part in dependency order, registering each one's close as soon as it exists. */
async function assemble(
  config: FetchNodeConfig,
  runtime: RuntimePort,
  log: Log,
  closers: Array<[string, () => Promise<unknown>]>,
): Promise<FetchNode> {
  const onError = (component: string) => (error: unknown, where?: string) =>
    log.child(component).warn(where ?? "error", { error: error instanceof Error ? error.message : String(error) });

  const nc = await connectNats(config.natsServers, config.nodeId);
  closers.push(["nats", () => nc.close()]);
  const connected = watchConnection(nc, log.child("nats"));
  const bus = new JetStreamBus(nc, { onError: onError("bus") });
  closers.push(["bus", () => bus.close()]);
  const state = await NatsKvClusterState.open(nc, { onError: onError("cluster-state") });
  closers.push(["cluster state", () => state.close()]);

  let content: ContentIndex;
  if (config.redisUrl) {
    const onRedisError = onError("redis");
    content = await RedisContentIndex.connect(config.redisUrl, {}, { name: config.nodeId, onError: (e) => onRedisError(e) });
  } else {
    log.warn("no --redis-url: duplicates are detected within this node only");
    content = new MemoryContentIndex();
  }
  closers.push(["content index", () => content.close()]);

  const counters = new Counters();
  // Before the writer opens the directory (recovery takes what is there as left over); closed after it.
  let upload: WarcUploadStarted | undefined;
  if (config.warc.upload) {
    const store = s3StoreFor(config.warc.upload, () => counters.add("warc.upload.request-retries"));
    upload = await startWarcUpload({ warcDir: config.warcDir, store, counters, log: log.child("warc-upload") });
    const uploader = upload.uploader;
    closers.push([
      "warc upload",
      async () => {
        const left = await uploader.close(config.warc.uploadDrainMs);
        if (left.filesLeft > 0) log.warn("finished WARC files not uploaded yet; the next start uploads them", left);
      },
    ]);
  }

  const path = await openFetchPath({
    policy: config.policy,
    warcDir: config.warcDir,
    warcPrefix: config.nodeId,
    warc: { maxFileBytes: config.warc.rollBytes, maxFileAgeMs: config.warc.rollAgeMs, finishedDir: upload?.finishedDir },
    proxyUrl: config.proxyUrl,
    allowPrivateAddresses: config.allowPrivateAddresses,
    maxConcurrentRequests: config.concurrency,
    content,
  });
  closers.push(["fetch path", () => path.close()]);

  let node: FetchNode | undefined;
  const labels = { node: config.nodeId, region: config.region, runtime: runtime.name };
  const http = await serveHono(
    healthApp({
      ready: () => (node?.ready ?? false) && connected(),
      metrics: () => ({ counters: counters.toJSON(), gauges: node?.gauges() ?? {}, labels }),
    }),
    { hostname: config.http.hostname, port: config.http.port, onError: onError("http") },
  );
  closers.push(["http", () => http.close()]);

  node = new FetchNode({
    nodeId: config.nodeId,
    region: config.region,
    runtime: runtime.name,
    httpAddress: http.url,
    regionRules: config.regionRules,
    partitions: config.partitions,
    concurrency: config.concurrency,
    heartbeatMs: config.heartbeatMs,
    nakDelayMs: config.nakDelayMs,
    bus,
    state,
    worker: path.worker,
    counters,
    log,
    extraGauges: upload ? () => upload.uploader.gauges() : undefined,
    diskProbe: () => probeDisk(config.warcDir),
  });
  await node.start();
  log.info("ready", { http: http.url, region: config.region });
  return node;
}

/** Logs connection changes and reports whether NATS is connected now (for /readyz). */
function watchConnection(nc: NatsConnection, log: Log): () => boolean {
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") {
        up = false;
        log.warn("disconnected; reconnecting");
      } else if (s.type === "reconnect") {
        up = true;
        log.info("reconnected");
      }
    }
  })().catch(() => {});
  return () => up && !nc.isClosed();
}

if (import.meta.main) {
  const runtime = hostRuntime();
  const code = await main(runtime);
  // Sockets of libraries (undici keep-alive, redis) must not keep a stopped node alive.
  runtime.exit(code);
}

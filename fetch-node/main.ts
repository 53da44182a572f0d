/**
 * The fetch node process: the composition root. It reads the configuration (flags > env > defaults,
 * config.ts), connects to the region's NATS (JetStream bus and cluster-state KV; links for another region
 * whose servers do not answer wait in this region's forward stream, and this node moves them on later)
 * and, when given, its Redis (the shared content index and fetch claims, over one connection; else
 * in-memory ones, which hold within this node only), builds the same fetch path as the embedded crawler
 * (engine/fetch), with --warc-upload ships finished WARC files to object storage, serves
 * /healthz, /readyz and /metrics, and runs a FetchNode until SIGINT or SIGTERM. Start, stop and exit are
 * the process kit's (kit/main `runMain`): each part registers its close as it opens, a second signal exits
 * at once (unacked tasks are redelivered). The same file runs on Bun and on Deno (fetch-node/README.md has
 * both commands); the runtime is reached only through kit/runtime.ts. With the TLS settings (kit/tls),
 * checked before anything starts, it logs in to NATS as the fetch user over TLS, reaches Redis over TLS as
 * the ACL user of its URL, and serves /healthz and /metrics over HTTPS.
 */
import { existsSync } from "node:fs";
import { connectNats, JetStreamBus, NatsKvClusterState, watchNatsConnection } from "../adapters/nats/index.ts";
import { healthApp, serveHono } from "../adapters/http/index.ts";
import { TokenSet } from "../core/auth/index.ts";
import { connectRedis, RedisAddressGate, RedisContentIndex, RedisFetchClaims, redisConnectionLog } from "../adapters/redis/index.ts";
import { politenessKeyMismatch, regionsOf, ringPolitenessKey } from "../core/cluster/index.ts";
import { Counters } from "../core/stats/index.ts";
import { errorFields } from "../kit/log/index.ts";
import { checkDiskRoom } from "../kit/fs/index.ts";
import { runMain, StartupError, startStep, type ProcessContext, type ProcessSpec } from "../kit/main/index.ts";
import { describeFetchNodeConfig, fetchNodeUsage, loadFetchNodeConfig, type FetchNodeConfig } from "./config.ts";
import type { AddressGate, ContentIndex, FetchClaims, Log } from "../core/ports/index.ts";
import { MemoryAddressGate, MemoryContentIndex, MemoryFetchClaims } from "../adapters/memory/index.ts";
import {
  addressGateLimits,
  CountingAddressGate,
  openFetchPath,
  proxyListens,
  startWarcUpload,
  type FetchPathOptions,
  type WarcUploadStarted,
} from "../engine/fetch/index.ts";
import { AddressBoard } from "../core/politeness/index.ts";
import { renderingWanted } from "../core/render/index.ts";
import { s3StoreFor } from "../adapters/s3/index.ts";
import { formatHostPort } from "../core/net/index.ts";
import { formatDuration, type PolicyConfig } from "../core/config/index.ts";
import { AdvisoryContentIndex } from "./advisory-content-index.ts";
import { FetchNode } from "./node.ts";
import type { LocalCheck } from "./trouble-probe.ts";
import { describeSecurity, loadHttpTls, loadNatsAccess, loadRedisCa } from "../kit/tls/index.ts";

/** Added to a pass's lease beyond the request's own timeouts (the fetch path's steps around the request). */
const ADDRESS_LEASE_MARGIN_MS = 10_000;

export const fetchNodeProcess: ProcessSpec<FetchNodeConfig> = {
  name: "fetch-node",
  usage: fetchNodeUsage,
  configure: (argv, env) => loadFetchNodeConfig(argv, env),
  logFormat: (config) => config.logFormat,
  stopNote: (config) => `tasks in flight get ${formatDuration(config.stopGraceMs)} to finish`,
  abruptStopCost: "unacked tasks are redelivered after the ack wait",
  async run(ctx) {
    const { config, runtime, log } = ctx;
    log.info("starting", { runtime: runtime.name, version: runtime.version, ...describeFetchNodeConfig(config) });
    const node = await assemble(ctx);
    const signal = await ctx.stopRequested;
    log.info(`${signal}: stopping the node`, { tasksInFlight: node.tasksInFlight, graceMs: config.stopGraceMs });
    await node.stop(config.stopGraceMs);
    log.info("stopped", { tasks: node.counters.sum("fetcher.tasks.") });
    return 0;
  },
};

/** Opens every part in dependency order, registering each one's close as soon as it exists. */
async function assemble(ctx: ProcessContext<FetchNodeConfig>): Promise<FetchNode> {
  const { config, runtime, log } = ctx;
  const onError = (component: string) => (error: unknown, where?: string) =>
    log.child(component).warn(where ?? "error", errorFields(error));

  const tls = await startStep(
    "read the TLS files",
    "fix or replace the file named (on Deno: --allow-read on it; crawlctl certs makes them)",
    () => ({ nats: loadNatsAccess(config.security), redisCa: loadRedisCa(config.security), http: loadHttpTls(config.security) }),
  );
  log.info("security", describeSecurity({ ...tls, redis: config.redisUrl ? { url: config.redisUrl, caPem: tls.redisCa } : undefined }));
  const nc = await startStep(
    `connect to NATS at ${config.natsServers.join(", ")}`,
    "check that nats-server runs there with JetStream (-js), or give --nats-url",
    () => connectNats(config.natsServers, config.nodeId, {}, tls.nats),
  );
  ctx.onClose("nats", () => nc.close());
  const connected = watchNatsConnection(nc, log.child("nats"));
  const counters = new Counters();
  // Connected to its own region's servers: links for a region whose servers do not answer wait here.
  const bus = new JetStreamBus(nc, { onError: onError("bus"), counters, localRegion: config.region, replicas: config.natsReplicas });
  ctx.onClose("bus", () => bus.close());
  const state = await startStep("open the cluster state (NATS KV)", "check that nats-server runs with JetStream enabled (-js)", () =>
    NatsKvClusterState.open(nc, { replicas: config.natsReplicas, onError: onError("cluster-state") }),
  );
  ctx.onClose("cluster state", () => state.close());
  // Links are placed by the politeness key (core/addressing): it must be the fleet's (core/cluster fleet-politeness-key.ts).
  const ring = (await state.getRing())?.ring;
  const keyRefused = ring && politenessKeyMismatch(ringPolitenessKey(ring), config.policy.politenessKey);
  if (keyRefused) throw new StartupError(keyRefused);

  let content: ContentIndex;
  let claims: FetchClaims;
  let addressGate: AddressGate;
  const limits = addressGateLimits(config.policy);
  if (config.redisUrl) {
    const url = config.redisUrl;
    const redis = await startStep(`connect to Redis at ${url}`, "check that redis-server runs there, or give another --redis-url", () =>
      connectRedis(url, { name: config.nodeId, tlsCaPem: tls.redisCa, ...redisConnectionLog(log.child("redis")) }),
    );
    // One connection for both; closed after them (the node, which claims, stops before anything closes).
    ctx.onClose("redis", () => redis.close());
    // A cache: when Redis cannot answer, a page is taken as new content rather than fetched again later.
    content = new AdvisoryContentIndex(new RedisContentIndex(redis), { counters, log: log.child("content-index") });
    claims = new RedisFetchClaims(redis);
    // No request holds its pass longer than its connect and response timeouts: a killed node's passes lapse after that.
    const leaseMs = Math.round(config.policy.connectTimeoutMs + config.policy.responseTimeoutMs + ADDRESS_LEASE_MARGIN_MS);
    addressGate = new RedisAddressGate(redis, {
      ...limits,
      leaseMs,
      onUnguarded: () => counters.add("fetcher.address.unguarded"),
    });
  } else {
    log.warn(
      "no --redis-url: duplicates are detected within this node only, and so are fetch claims (a task stored twice after a NATS restart, or re-offered by a frontier node after a reconnect, may be fetched by two nodes); give every fetch node of a cluster its region's Redis",
    );
    content = new MemoryContentIndex();
    claims = new MemoryFetchClaims();
    addressGate = new MemoryAddressGate(limits);
  }
  // This node's passes, counted per server for the dashboard (its record) and as fetcher.address.passes.
  const addresses = new AddressBoard();
  addressGate = new CountingAddressGate(addressGate, addresses, { counters, prefix: "fetcher" });
  ctx.onClose("address gate", () => addressGate.close());
  ctx.onClose("content index", () => content.close());
  ctx.onClose("fetch claims", () => claims.close());

  // Before the writer opens the directory (recovery takes what is there as left over); closed after it.
  let upload: WarcUploadStarted | undefined;
  if (config.warc.upload) {
    const store = s3StoreFor(config.warc.upload, () => counters.add("warc.upload.request-retries"));
    upload = await startStep(
      `start uploading finished WARC files of ${config.warcDir} to ${store.location}`,
      "check that the WARC directory can be read and written (on Deno: --allow-read and --allow-write on it)",
      () => startWarcUpload({ warcDir: config.warcDir, store, counters, log: log.child("warc-upload") }),
    );
    const uploader = upload.uploader;
    ctx.onClose("warc upload", async () => {
      const left = await uploader.close(config.warc.uploadDrainMs);
      if (left.filesLeft > 0) log.warn("finished WARC files not uploaded yet; the next start uploads them", left);
    });
  }

  // Rendering: on Bun with Chromium, when the policy renders anything; the browser starts at the first render.
  const renders = await renderCapability(config.policy, runtime.name, log);
  const path = await startStep(
    `open the fetch path (WARC files in ${config.warcDir})`,
    "check that the directory can be created and written (on Deno: --allow-read and --allow-write on it), and the --proxy URL",
    () =>
      openFetchPath({
        policy: config.policy,
        warcDir: config.warcDir,
        warcPrefix: config.nodeId,
        warc: {
          maxFileBytes: config.warc.rollBytes,
          maxFileAgeMs: config.warc.rollAgeMs,
          wet: config.warc.text === "wet",
          finishedDir: upload?.finishedDir,
          objectLocation: upload?.objectLocation,
        },
        proxyUrl: config.proxyUrl,
        maxConcurrentRequests: config.concurrency,
        content,
        ...(renders ? { renderer: renders.factory } : {}),
        addressGate,
      }),
  );
  ctx.onClose("fetch path", () => path.close());

  let node: FetchNode | undefined;
  const labels = { node: config.nodeId, region: config.region, runtime: runtime.name };
  const listen = formatHostPort(config.http.hostname, config.http.port);
  const http = await startStep(`serve /healthz and /metrics on ${listen}`, "give a free address with --http-listen", () =>
    serveHono(
      healthApp({
        ready: () => (node?.ready ?? false) && connected(),
        metrics: () => ({ counters: counters.toJSON(), gauges: node?.gauges() ?? {}, histograms: node?.histograms.toJSON(), labels }),
        metricsTokens: new TokenSet(config.metricsTokens),
      }),
      { hostname: config.http.hostname, port: config.http.port, tls: tls.http, onError: onError("http") },
    ),
  );
  ctx.onClose("http", () => http.close());

  node = new FetchNode({
    nodeId: config.nodeId,
    region: config.region,
    runtime: runtime.name,
    httpAddress: http.url,
    regionRules: config.regionRules,
    partitions: config.partitions,
    politenessKey: config.policy.politenessKey,
    concurrency: config.concurrency,
    heartbeatMs: config.heartbeatMs,
    nakDelayMs: config.nakDelayMs,
    gapFetchMultiplier: config.policy.gapFetchMultiplier,
    bus,
    state,
    worker: path.worker,
    claims,
    claimTtlMs: config.claimTtlMs,
    attemptMaxMs: config.policy.connectTimeoutMs + config.policy.responseTimeoutMs,
    counters,
    log,
    extraGauges: upload ? () => upload.uploader.gauges() : undefined,
    diskProbe: async () => checkDiskRoom(config.warcDir),
    ...(renders ? { renderPool: config.policy.renderPool } : {}),
    addresses,
    proxied: config.proxyUrl !== undefined,
    localCheck: localCheckOf(config.proxyUrl),
  });
  const started = node;
  await startStep(`start pulling the fetch tasks of region ${config.region}`, "check that NATS JetStream answers", () => started.start());
  // With other regions, the links that waited here for one of them are moved there once it answers
  // (stopped with the bus, after the node).
  if (regionsOf(config.regionRules).length > 1) bus.forwardLinks();
  log.info("ready", { http: http.url, region: config.region });
  return node;
}

/**
 * Whether this node renders, and its renderer factory: when the policy renders anything, the node runs on
 * Bun and Chromium is where --chromium says. engine/render (playwright-core) is loaded only then, so a node
 * on Deno never loads it. A node that cannot render says why once; render tasks go to the nodes that can.
 */
async function renderCapability(
  policy: PolicyConfig,
  runtime: string,
  log: Log,
): Promise<{ factory: NonNullable<FetchPathOptions["renderer"]> } | undefined> {
  if (!renderingWanted(policy)) return undefined;
  if (runtime !== "bun" || !existsSync(policy.chromiumPath)) {
    log.warn("this node does not render (it needs Bun and Chromium): tasks asking for rendering go to the nodes that can", {
      runtime,
      chromium: policy.chromiumPath,
    });
    return undefined;
  }
  const render = await import("../engine/render/index.ts");
  return { factory: render.chromiumRenderer(policy) };
}

if (import.meta.main) await runMain(fetchNodeProcess);

/**
 * How the node checks, without a task, that a local failure is over: through a proxy, one that was out of
 * reach takes a new connection again. Other causes wait for a task's fetch.
 */
function localCheckOf(proxyUrl: string | undefined): LocalCheck | undefined {
  if (proxyUrl === undefined) return undefined;
  // As the fetcher's own check of the proxy (its timeout too).
  return { covers: (cause) => cause === "proxy-unreachable", check: () => proxyListens(proxyUrl) };
}

/**
 * The coordinator's configuration in one table: for each field its default, env var, flag, description
 * and parser/checker. `resolveCoordinatorConfig` layers flags over env over defaults, collects every bad
 * value into one CoordinatorConfigError (fatal: the coordinator does not start), and checks the fields
 * against each other (the death timeout must outlast several heartbeats). The env vars share the `CRAWL_`
 * prefix with the other roles, so one environment can configure a whole local cluster (partitions, region
 * rules and NATS URL must be equal on every node). The coordinator also reads the crawl policy's address
 * rules (core/config, `--allow-private-addresses`, `--deny-addresses`...), to refuse seeds no node would
 * fetch, and the politeness key (`--politeness-key`), which places hosts and which it writes into the ring
 * for the fleet; it takes every policy flag, like the other roles, so one set of flags serves the whole fleet.
 * Its security rows are kit/tls's: its NATS user and the servers' CA, its gRPC certificate (TLS for
 * crawlctl, and its identity when it calls frontier nodes), and the admin API's HTTPS certificate.
 */
import { FEED_RETENTION_SPECS } from "../core/feed/index.ts";
import { hostname } from "node:os";
import { listenKind, NATS_REPLICAS_FIELD, natsUrlsKind, parseRegionRules, tokenKind, type RegionRules } from "../core/cluster/index.ts";
import {
  between,
  ConfigError,
  durationKind,
  integerKind,
  POLICY_FIELDS,
  readConfig,
  sizeKind,
  stringKind,
  tableRows,
  usageText,
  type Env,
  type FieldRow,
  type FieldSpecs,
  type PolicyConfig,
} from "../core/config/index.ts";
import { checkPartitionCount } from "../core/ring/index.ts";
import { tokenListKind } from "../core/auth/index.ts";
import { LOG_FORMAT_FIELD, type LogFormat } from "../kit/log/index.ts";
import {
  checkSecuritySettings,
  GRPC_TLS_SETTINGS,
  HTTP_TLS_SETTINGS,
  NATS_ACCESS_SETTINGS,
  type GrpcTlsSettings,
  type HttpTlsSettings,
  type NatsAccessSettings,
} from "../kit/tls/index.ts";
import { newNodeId } from "../kit/node/index.ts";

export interface CoordinatorConfig {
  nodeId: string;
  defaultRegion: string;
  /** `eu=.de,.fr;apac=.jp`: host suffixes to region; unmatched hosts go to defaultRegion. */
  regionRules: string;
  partitions: number;
  vnodes: number;
  /** Frontier nodes the first ring waits for (up to 10 s); 0: none. */
  expectFrontiers: number;
  natsUrls: readonly string[];
  /** Copies JetStream keeps of the region streams and the cluster-state bucket. */
  natsReplicas: number;
  /** host:port of the gRPC CoordinatorService. */
  grpcListen: string;
  /** host:port of the admin HTTP API. */
  httpListen: string;
  /** Bearer tokens of the admin HTTP API and the gRPC API, all valid at once (rotation); none: one is generated at start. */
  adminTokens: readonly string[];
  /** Tokens /metrics accepts; none: /metrics is open like /healthz and /readyz. */
  metricsTokens: readonly string[];
  heartbeatIntervalMs: number;
  deathTimeoutMs: number;
  leaseTtlMs: number;
  /** Deadline of calls the coordinator forwards to frontier nodes. */
  frontierCallTimeoutMs: number;
  maxSeedsPerRequest: number;
  /** How long the feed of fetched pages (stream CRAWL_PAGES) keeps a record. */
  feedMaxAgeMs: number;
  /** How many bytes the feed keeps at most; the oldest records go first. */
  feedMaxBytes: number;
  logFormat: LogFormat | undefined;
}

const SECOND = 1_000;

const SPECS: FieldSpecs<CoordinatorConfig> = {
  nodeId: {
    default: "",
    env: "CRAWL_NODE_ID",
    flag: "--node-id",
    description: "This coordinator's id (a-z, 0-9, -); empty: coordinator-<hostname>. A standby on the same machine needs its own",
    ...tokenKind("node id", { optional: true }),
  },
  defaultRegion: {
    default: "default",
    env: "CRAWL_DEFAULT_REGION",
    flag: "--default-region",
    description: "Region of every host no region rule matches",
    ...tokenKind("region"),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffixes per region, e.g. "eu=.de,.fr;apac=.jp" (longest suffix wins)',
    ...stringKind("rules"),
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P (fixed for the cluster's life; equal on every node)",
    ...integerKind(between(1, 4096)),
  },
  vnodes: {
    default: 128,
    env: "CRAWL_VNODES",
    flag: "--vnodes",
    description: "Virtual nodes per frontier node on the ring",
    ...integerKind(between(1, 4096)),
  },
  expectFrontiers: {
    default: 0,
    env: "CRAWL_EXPECT_FRONTIERS",
    flag: "--expect-frontiers",
    description:
      "Frontier nodes (all regions) the cluster starts with: the first ring waits up to 10 s for this many, so each gets its share at once instead of by handoffs from the first to join; 0: no wait",
    ...integerKind(between(0, 100_000)),
  },
  natsUrls: {
    default: ["nats://127.0.0.1:4222"],
    env: "CRAWL_NATS_URL",
    flag: "--nats-url",
    description: "NATS server URL(s), comma-separated",
    ...natsUrlsKind(),
  },
  natsReplicas: NATS_REPLICAS_FIELD,
  grpcListen: {
    default: "127.0.0.1:7400",
    env: "CRAWL_GRPC_LISTEN",
    flag: "--grpc-listen",
    description: "host:port of the gRPC API (crawlctl)",
    ...listenKind(),
  },
  httpListen: {
    default: "127.0.0.1:7480",
    env: "CRAWL_HTTP_LISTEN",
    flag: "--http-listen",
    description: "host:port of the admin HTTP API (/healthz, /readyz, /metrics, /v1/...)",
    ...listenKind(),
  },
  adminTokens: {
    default: [],
    defaultText: "one generated and printed at start",
    env: "CRAWL_ADMIN_TOKEN",
    flag: "--admin-token",
    description:
      "Bearer token(s) of the admin API and gRPC, comma-separated, each valid (rotate: give new,old; move the clients; drop old)",
    ...tokenListKind(),
  },
  metricsTokens: {
    default: [],
    defaultText: "none: /metrics is open",
    env: "CRAWL_METRICS_TOKEN",
    flag: "--metrics-token",
    description:
      "Bearer token(s) /metrics requires, comma-separated; the admin token is not accepted there. /healthz and /readyz stay open",
    ...tokenListKind(),
  },
  heartbeatIntervalMs: {
    default: 2 * SECOND,
    env: "CRAWL_HEARTBEAT_INTERVAL",
    flag: "--heartbeat-interval",
    description: "How often the coordinator renews its lease, writes its record and rebalances",
    ...durationKind(between(100, 60 * SECOND)),
  },
  deathTimeoutMs: {
    default: 10 * SECOND,
    env: "CRAWL_DEATH_TIMEOUT",
    flag: "--death-timeout",
    description: "A node whose last heartbeat is older than this is dead and loses its partitions",
    ...durationKind(between(300, 10 * 60 * SECOND)),
  },
  leaseTtlMs: {
    default: 6 * SECOND,
    env: "CRAWL_LEASE_TTL",
    flag: "--lease-ttl",
    description: "Lifetime of the coordinator lease; a standby takes over this long after the leader stops renewing",
    ...durationKind(between(200, 10 * 60 * SECOND)),
  },
  frontierCallTimeoutMs: {
    default: 5 * SECOND,
    env: "CRAWL_FRONTIER_CALL_TIMEOUT",
    flag: "--frontier-call-timeout",
    description: "Deadline of host and URL questions forwarded to the owning frontier node",
    ...durationKind(between(50, 60 * SECOND)),
  },
  maxSeedsPerRequest: {
    default: 10_000,
    env: "CRAWL_MAX_SEEDS_PER_REQUEST",
    flag: "--max-seeds-per-request",
    description: "Most URLs one add-seeds call may carry",
    ...integerKind(between(1, 1_000_000)),
  },
  ...FEED_RETENTION_SPECS,
  logFormat: LOG_FORMAT_FIELD,
};

export const COORDINATOR_FIELDS = tableRows(SPECS);

/** The security rows the coordinator reads besides its own (kit/tls). */
export const COORDINATOR_SECURITY_FIELDS = [...NATS_ACCESS_SETTINGS, ...GRPC_TLS_SETTINGS, ...HTTP_TLS_SETTINGS];

/** NATS user and CA, gRPC and HTTPS files; empty values mean off. */
export type CoordinatorSecurity = NatsAccessSettings & GrpcTlsSettings & HttpTlsSettings;

const ALL_FIELDS: readonly FieldRow<CoordinatorConfig & CoordinatorSecurity>[] = [...COORDINATOR_FIELDS, ...COORDINATOR_SECURITY_FIELDS];

/** The coordinator cannot start with this configuration (fatal): fix the listed values. */
export class CoordinatorConfigError extends ConfigError.titled("invalid coordinator configuration") {}

export interface ResolvedConfig {
  config: CoordinatorConfig;
  security: CoordinatorSecurity;
  rules: RegionRules;
  /** The crawl policy; the coordinator uses its address rules for seeds. */
  policy: PolicyConfig;
  /** True when no token was configured and `config.adminToken` was generated. */
  tokenGenerated: boolean;
}

/**
 * Parses `argv` (`--flag value` or `--flag=value`) over `env` over the defaults. `--help` is not handled
 * here. Throws CoordinatorConfigError listing every problem.
 */
export function resolveCoordinatorConfig(argv: readonly string[], env: Env, generateToken: () => string = randomToken): ResolvedConfig {
  // Every policy flag is taken (one set of flags serves the whole fleet); only the address rules and the politeness key are used.
  const read = readConfig(argv, env, ALL_FIELDS, { policy: true });
  const { problems, policy } = read;
  if (problems.length > 0 || !policy) throw new CoordinatorConfigError(problems);
  const {
    natsUser,
    natsPassword,
    natsTlsCaFile,
    grpcTlsCaFile,
    grpcTlsCertFile,
    grpcTlsKeyFile,
    httpTlsCertFile,
    httpTlsKeyFile,
    ...config
  } = read.values;
  const security = {
    natsUser,
    natsPassword,
    natsTlsCaFile,
    grpcTlsCaFile,
    grpcTlsCertFile,
    grpcTlsKeyFile,
    httpTlsCertFile,
    httpTlsKeyFile,
  };
  for (const item of checkSecuritySettings(security)) problems.push(item);
  if (config.deathTimeoutMs < 2 * config.heartbeatIntervalMs)
    problems.push("deathTimeoutMs: must be at least two heartbeat intervals, or a slow heartbeat kills a healthy node");
  if (config.leaseTtlMs <= config.heartbeatIntervalMs)
    problems.push("leaseTtlMs: must be longer than the heartbeat interval, which renews it");
  try {
    checkPartitionCount(config.partitions);
  } catch (error) {
    problems.push(`partitions: ${(error as Error).message}`);
  }
  let rules: RegionRules | undefined;
  try {
    rules = parseRegionRules(config.regionRules, config.defaultRegion);
  } catch (error) {
    problems.push(`regionRules: ${(error as Error).message}`);
  }
  if (problems.length > 0 || !rules) throw new CoordinatorConfigError(problems);
  const tokenGenerated = config.adminTokens.length === 0;
  return {
    config: {
      ...config,
      nodeId: config.nodeId || newNodeId("coordinator", { host: hostname() }),
      adminTokens: tokenGenerated ? [generateToken()] : config.adminTokens,
    },
    security,
    rules,
    policy,
    tokenGenerated,
  };
}

/** 32 random bytes as base64url: a token that fits the bearer-token syntax. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const ADDRESS_FIELDS = new Set<string>(["allowPrivateAddresses", "allowAddresses", "denyAddresses", "denyHosts"]);

/** The usage text: one line per field with its flag, env var, default and description. */
export function coordinatorUsage(): string {
  return usageText(
    ["usage: coordinator [options]"],
    ["Runs the cluster coordinator: membership, ring, gRPC API and admin HTTP API."],
    [
      { title: "options (flag > env > default)", rows: COORDINATOR_FIELDS },
      { title: "TLS and authentication (empty: off)", rows: COORDINATOR_SECURITY_FIELDS },
      {
        title: "crawl policy used here, to refuse seeds (every other policy flag of core/config is accepted and ignored)",
        rows: POLICY_FIELDS.filter((f) => ADDRESS_FIELDS.has(f.field)),
      },
    ],
  );
}

/**
 * The frontier node's configuration in one table: for each field its default, env var, flag, description
 * and parser/checker, plus every crawl-policy knob of core/config (same flags and env vars as `crawl`).
 * `resolveFrontierNodeConfig` layers flags over env over defaults and collects every bad value into one
 * FrontierNodeConfigError (fatal: the node does not start). Env vars share the `CRAWL_` prefix with the
 * other roles, so one environment can configure a local cluster; partitions, region rules and the NATS URL
 * must be equal on every node (the partition count is read from the ring when one exists). Its security
 * rows are kit/tls's: its NATS user and the servers' CA, the Redis CA (with a rediss:// URL carrying the
 * ACL user), its gRPC certificate (mutual TLS with the coordinator and the other frontier nodes), and the
 * HTTPS certificate of /healthz, /readyz and /metrics.
 */
import { hostname } from "node:os";
import { listenKind, NATS_REPLICAS_FIELD, natsUrlsKind, parseRegionRules, tokenKind, type RegionRules } from "../../core/cluster/index.ts";
import {
  between,
  ConfigError,
  dirKind,
  durationKind,
  integerKind,
  POLICY_FIELDS,
  readConfig,
  stringKind,
  switchKind,
  tableRows,
  urlKind,
  usageText,
  type Env,
  type FieldRow,
  type FieldSpecs,
  type PolicyConfig,
} from "../../core/config/index.ts";
import { checkPartitionCount } from "../../core/ring/index.ts";
import { tokenListKind } from "../../core/auth/index.ts";
import { LOG_FORMAT_FIELD, type LogFormat } from "../../kit/log/index.ts";
import {
  checkSecuritySettings,
  GRPC_TLS_SETTINGS,
  HTTP_TLS_SETTINGS,
  NATS_ACCESS_SETTINGS,
  REDIS_TLS_SETTINGS,
  type GrpcTlsSettings,
  type HttpTlsSettings,
  type NatsAccessSettings,
  type RedisTlsSettings,
} from "../../kit/tls/index.ts";
import { newNodeId } from "../../kit/node/index.ts";
import { FEED_RETENTION_SPECS } from "../../core/feed/index.ts";

export interface FrontierNodeConfig {
  /** Empty: the id saved in the data dir by an earlier run, else `frontier-<hostname>-<random>`. */
  nodeId: string;
  region: string;
  defaultRegion: string;
  regionRules: string;
  natsUrls: readonly string[];
  /** Copies JetStream keeps of the region streams, the cluster-state bucket and the replicated partition state. */
  natsReplicas: number;
  /** Empty: no Redis, a local Bloom filter saved under the data dir (single-node development). */
  redisUrl: string;
  dataDir: string;
  grpcListen: string;
  /** Address other nodes dial for this node's gRPC API; empty: the bound listen address. */
  grpcAdvertise: string;
  /** Empty: no HTTP endpoint. */
  httpListen: string;
  /** Tokens /metrics requires; none: /metrics is open. */
  metricsTokens: readonly string[];
  partitions: number;
  credit: number;
  heartbeatIntervalMs: number;
  maxQueued: number;
  confirmAllSeen: boolean;
  stopGraceMs: number;
  lostSweepIntervalMs: number;
  logFormat: LogFormat | undefined;
  /** Replicate each partition's state in JetStream (docs/cluster.md, "Replicated partition state"). */
  replicateState: boolean;
  stateSnapshotIntervalMs: number;
  stateLingerMs: number;
  /** The bound of this node's feed outbox (feed-outbox.ts): the feed's own retention rows, read here for it. */
  feedMaxAgeMs: number;
  feedMaxBytes: number;
}

const SECOND = 1_000;

const SPECS: FieldSpecs<FrontierNodeConfig> = {
  nodeId: {
    default: "",
    env: "CRAWL_NODE_ID",
    flag: "--node-id",
    description:
      "This node's id (a-z, 0-9, -); empty: the id saved in --data-dir, else frontier-<hostname>-<random>. Restart with the same id and data dir to resume",
    ...tokenKind("node id", { optional: true }),
  },
  region: {
    default: "default",
    env: "CRAWL_REGION",
    flag: "--region",
    description: "Region this node serves (its partitions, fetch subject and Redis)",
    ...tokenKind("region"),
  },
  defaultRegion: {
    default: "default",
    env: "CRAWL_DEFAULT_REGION",
    flag: "--default-region",
    description: "Region of every host no region rule matches (as on the coordinator)",
    ...tokenKind("region"),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffixes per region, e.g. "eu=.de,.fr;apac=.jp" (as on the coordinator)',
    ...stringKind("rules"),
  },
  natsUrls: {
    default: ["nats://127.0.0.1:4222"],
    env: "CRAWL_NATS_URL",
    flag: "--nats-url",
    description: "NATS server URL(s) of this region, comma-separated",
    ...natsUrlsKind(),
  },
  natsReplicas: NATS_REPLICAS_FIELD,
  redisUrl: {
    default: "",
    env: "CRAWL_REDIS_URL",
    flag: "--redis-url",
    description: "Redis of this region for the seen-set (redis://host:port); empty: a local Bloom filter in --data-dir (one node only)",
    ...urlKind(["redis", "rediss"], { optional: true }),
  },
  dataDir: {
    default: "frontier-data",
    env: "CRAWL_DATA_DIR",
    flag: "--data-dir",
    description: "Directory of the node's state (SQLite frontier store, local seen-set); keep it to resume",
    ...dirKind(),
  },
  grpcListen: {
    default: "127.0.0.1:0",
    env: "CRAWL_FRONTIER_GRPC_LISTEN",
    flag: "--grpc-listen",
    description: "host:port of the FrontierService gRPC API (port 0 picks a free one; the node record carries the bound one)",
    ...listenKind(),
  },
  grpcAdvertise: {
    default: "",
    env: "CRAWL_FRONTIER_GRPC_ADVERTISE",
    flag: "--grpc-advertise",
    description: "host:port other nodes dial for this node's gRPC API; empty: the bound listen address",
    ...listenKind({ optional: true }),
  },
  httpListen: {
    default: "127.0.0.1:0",
    env: "CRAWL_FRONTIER_HTTP_LISTEN",
    flag: "--http-listen",
    description: "host:port of /healthz, /readyz and /metrics; empty: none",
    ...listenKind({ optional: true }),
  },
  metricsTokens: {
    default: [],
    defaultText: "none: /metrics is open",
    env: "CRAWL_METRICS_TOKEN",
    flag: "--metrics-token",
    description: "Bearer token(s) /metrics requires, comma-separated (two during a rotation); /healthz and /readyz stay open",
    ...tokenListKind(),
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P; the ring's count wins when a ring exists (giving another one explicitly is an error)",
    ...integerKind(between(1, 4096)),
  },
  credit: {
    default: 512,
    env: "CRAWL_CREDIT",
    flag: "--credit",
    description: "Most fetch tasks this node has in flight at once (one per host), so the fetch stream never floods",
    ...integerKind(between(1, 1_000_000)),
  },
  heartbeatIntervalMs: {
    default: 2 * SECOND,
    env: "CRAWL_HEARTBEAT_INTERVAL",
    flag: "--heartbeat-interval",
    description: "How often the node rewrites its record (liveness, counters, partitions)",
    ...durationKind(between(50, 60 * SECOND)),
  },
  maxQueued: {
    default: 0,
    env: "CRAWL_MAX_QUEUED",
    flag: "--max-queued",
    description:
      "Frontier size limit of this node (0: none); beyond it the lowest-priority URLs are dropped. A limit keeps an index of the queue by priority: about 38 B of disk a queued URL, and a page written per fetch",
    ...integerKind(between(0, 10_000_000_000)),
  },
  confirmAllSeen: {
    default: false,
    env: "CRAWL_CONFIRM_ALL_SEEN",
    flag: "--confirm-all-seen",
    description: "Confirm every Bloom 'maybe seen' in the exact store, not only seeds and home pages",
    ...switchKind(),
  },
  stopGraceMs: {
    default: 10 * SECOND,
    env: "CRAWL_STOP_GRACE",
    flag: "--stop-grace",
    description: "On SIGINT/SIGTERM, how long to wait for results of tasks in flight before giving them back",
    ...durationKind(between(0, 10 * 60 * SECOND)),
  },
  lostSweepIntervalMs: {
    default: 5 * SECOND,
    env: "CRAWL_LOST_SWEEP_INTERVAL",
    flag: "--lost-sweep-interval",
    description: "How often hosts in flight longer than the fetch lease (--fetch-lease) are released",
    ...durationKind(between(10, 10 * 60 * SECOND)),
  },
  logFormat: LOG_FORMAT_FIELD,
  replicateState: {
    default: true,
    env: "CRAWL_REPLICATE_STATE",
    flag: "--replicate-state",
    description:
      "Replicate each partition's state (a journal of its changes, and snapshots) in JetStream, so a node lost with its disk loses at most its last moments; false: a partition lives on this node's disk only",
    ...switchKind(),
  },
  stateSnapshotIntervalMs: {
    default: 10 * 60 * SECOND,
    env: "CRAWL_STATE_SNAPSHOT_INTERVAL",
    flag: "--state-snapshot-interval",
    description: "How often a partition that changed gets a snapshot of its replicated state (sooner after 20,000 journal rows)",
    ...durationKind(between(SECOND, 24 * 60 * 60 * SECOND)),
  },
  stateLingerMs: {
    default: 250,
    env: "CRAWL_STATE_LINGER",
    flag: "--state-linger",
    description:
      "How long a partition's new journal rows wait for later ones before they go to JetStream together: fewer, larger messages at full pace; a node lost with its disk may lose this much more of its last moments",
    ...durationKind(between(0, 5 * SECOND)),
  },
  feedMaxAgeMs: {
    ...FEED_RETENTION_SPECS.feedMaxAgeMs,
    description:
      "How long a page record waits in this node's feed outbox (feed-outbox.sqlite in the data dir) for the stream CRAWL_PAGES; older ones are dropped, counted (feed.outbox.dropped)",
  },
  feedMaxBytes: {
    ...FEED_RETENTION_SPECS.feedMaxBytes,
    description:
      "Most bytes this node's feed outbox keeps while the stream CRAWL_PAGES does not take them; past it the oldest are dropped, counted",
  },
};

export const FRONTIER_NODE_FIELDS = tableRows(SPECS);

/** The node cannot start with this configuration (fatal): fix the listed values. */
export class FrontierNodeConfigError extends ConfigError.titled("invalid frontier node configuration") {}

/** The security rows a frontier node reads besides its own (kit/tls). */
export const FRONTIER_NODE_SECURITY_FIELDS = [...NATS_ACCESS_SETTINGS, ...REDIS_TLS_SETTINGS, ...GRPC_TLS_SETTINGS, ...HTTP_TLS_SETTINGS];

/** NATS user and CA, Redis CA, gRPC and HTTPS files; empty values mean off. */
export type FrontierNodeSecurity = NatsAccessSettings & RedisTlsSettings & GrpcTlsSettings & HttpTlsSettings;

const ALL_FIELDS: readonly FieldRow<FrontierNodeConfig & FrontierNodeSecurity>[] = [
  ...FRONTIER_NODE_FIELDS,
  ...FRONTIER_NODE_SECURITY_FIELDS,
];

export interface ResolvedFrontierNodeConfig {
  config: FrontierNodeConfig;
  security: FrontierNodeSecurity;
  policy: PolicyConfig;
  rules: RegionRules;
  /** Where the partition count came from: a ring with another count is fatal only when it was given. */
  partitionsGiven: boolean;
}

/**
 * Parses `argv` (`--flag value` or `--flag=value`; a boolean field's flag may stand alone) over `env` over
 * the defaults, node fields and policy fields alike. `--help` is not handled here. Throws
 * FrontierNodeConfigError listing every problem.
 */
export function resolveFrontierNodeConfig(argv: readonly string[], env: Env): ResolvedFrontierNodeConfig {
  const read = readConfig(argv, env, ALL_FIELDS, { policy: true });
  const { problems, policy } = read;
  const {
    natsUser,
    natsPassword,
    natsTlsCaFile,
    redisTlsCaFile,
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
    redisTlsCaFile,
    grpcTlsCaFile,
    grpcTlsCertFile,
    grpcTlsKeyFile,
    httpTlsCertFile,
    httpTlsKeyFile,
  };
  if (problems.length === 0) for (const p of checkSecuritySettings(security, config.redisUrl)) problems.push(p);
  let rules: RegionRules | undefined;
  if (problems.length === 0) {
    try {
      checkPartitionCount(config.partitions);
    } catch (error) {
      problems.push(`partitions: ${(error as Error).message}`);
    }
    try {
      rules = parseRegionRules(config.regionRules, config.defaultRegion);
    } catch (error) {
      problems.push(`regionRules: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0 || !policy || !rules) throw new FrontierNodeConfigError(problems);
  return { config, security, policy, rules, partitionsGiven: read.given.has("partitions") };
}

/** A fresh node id: `frontier-<hostname>-<6 random base-36 digits>` (kit/node `newNodeId`). */
export function generateNodeId(host: string = hostname(), random?: () => number): string {
  return newNodeId("frontier", { host, randomChars: 6, random });
}

/** The usage text: one line per field with its flag, env var, default and description, then the policy. */
export function frontierNodeUsage(): string {
  return usageText(
    ["usage: bun frontier-node/main.ts [options]"],
    [
      "Runs one frontier node: serves the partitions of its region that the ring gives it, publishes fetch",
      "tasks, applies results, and hands partitions over when the ring moves them.",
    ],
    [
      { title: "options (flag > env > default)", rows: FRONTIER_NODE_FIELDS },
      { title: "TLS and authentication (empty: off)", rows: FRONTIER_NODE_SECURITY_FIELDS },
      { title: "crawl policy (flag > env > default)", rows: POLICY_FIELDS },
    ],
  );
}

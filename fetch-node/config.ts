/**
 * The fetch node's configuration in one table: for each field its default, env var, flag, description and
 * value kind, plus the WARC rolling and upload rows `crawl` reads too (engine/fetch's WARC_ROLL_SETTINGS,
 * adapters/s3's S3_UPLOAD_SETTINGS), plus every crawl-policy knob of core/config (the fetch node takes every
 * policy flag so a fleet can pass one set to every role; it uses the fetch slice). `loadFetchNodeConfig` layers flags over env
 * over defaults and collects every bad value into one FetchNodeConfigError (fatal: nothing is started).
 * Env vars share the `CRAWL_` prefix with the other roles. Region rules and the partition count must be
 * the coordinator's: they decide where each discovered link is published. Its security rows are kit/tls's:
 * its NATS user and the servers' CA, the Redis CA (with a rediss:// URL carrying the ACL user), and the
 * HTTPS certificate of /healthz, /readyz and /metrics. A fetch node has no gRPC.
 */
import { DEFAULT_FETCH_CLAIM_TTL_MS } from "../core/ports/index.ts";
import {
  listenKind,
  NATS_REPLICAS_FIELD,
  natsUrlsKind,
  parseRegionRules,
  regionsOf,
  tokenKind,
  type RegionRules,
} from "../core/cluster/index.ts";
import { tokenListKind } from "../core/auth/index.ts";
import {
  ConfigError,
  dirKind,
  durationKind,
  formatDuration,
  integerKind,
  POLICY_FIELDS,
  readConfig,
  stringKind,
  tableRows,
  urlKind,
  usageText,
  type Env,
  type FieldRow,
  type FieldSpecs,
  type PolicyConfig,
} from "../core/config/index.ts";
import { formatHostPort, parseHostPort } from "../core/net/index.ts";
import { LOG_FORMAT_FIELD, type LogFormat } from "../kit/log/index.ts";
import { PROXY_URL_FIELD, proxyFromEnv } from "../kit/net/index.ts";
import { newNodeId } from "../kit/node/index.ts";
import { describeS3Target, resolveS3Target, S3_UPLOAD_SETTINGS, type S3Target, type S3UploadSettings } from "../adapters/s3/index.ts";
import { WARC_ROLL_SETTINGS, type WarcRollSettings } from "../engine/fetch/index.ts";
import {
  checkSecuritySettings,
  HTTP_TLS_SETTINGS,
  NATS_ACCESS_SETTINGS,
  REDIS_TLS_SETTINGS,
  type HttpTlsSettings,
  type NatsAccessSettings,
  type RedisTlsSettings,
} from "../kit/tls/index.ts";

/** The table's values: a default left undefined is worked out in `loadFetchNodeConfig` (its `defaultText` says how). */
export interface FetchNodeSettings {
  nodeId: string | undefined;
  region: string | undefined;
  natsUrls: readonly string[];
  natsReplicas: number;
  redisUrl: string | undefined;
  warcDir: string | undefined;
  httpListen: string;
  metricsTokens: readonly string[];
  concurrency: number;
  proxyUrl: string | undefined;
  heartbeatIntervalMs: number;
  stopGraceMs: number;
  nakDelayMs: number;
  claimTtlMs: number;
  regionRules: string;
  defaultRegion: string;
  partitions: number;
  logFormat: LogFormat | undefined;
}

/** The resolved configuration the node is built from. */
export interface FetchNodeConfig {
  nodeId: string;
  region: string;
  natsServers: string[];
  /** Copies JetStream keeps of the region streams and the cluster-state bucket. */
  natsReplicas: number;
  /** Absent: a MemoryContentIndex and MemoryFetchClaims (duplicates and claims are then per node, not per region). */
  redisUrl?: string;
  warcDir: string;
  /** Rolling of WARC files, and their upload when `upload` is set (WARC_ROLL_SETTINGS, S3_UPLOAD_SETTINGS). */
  warc: { rollBytes: number; rollAgeMs: number; uploadDrainMs: number; text: WarcRollSettings["text"]; upload?: S3Target };
  http: { hostname: string; port: number };
  /** Tokens /metrics requires; none: /metrics is open. */
  metricsTokens: readonly string[];
  concurrency: number;
  proxyUrl?: string;
  heartbeatMs: number;
  stopGraceMs: number;
  nakDelayMs: number;
  /** How long a task's fetch claim lasts (FetchClaims: in Redis with `redisUrl`, else in memory). */
  claimTtlMs: number;
  regionRules: RegionRules;
  partitions: number;
  policy: PolicyConfig;
  logFormat: LogFormat | undefined;
  /** NATS user and CA, Redis CA, HTTPS files; empty values mean off. */
  security: FetchNodeSecurity;
}

/** NATS user and CA, Redis CA, HTTPS files; empty values mean off. */
export type FetchNodeSecurity = NatsAccessSettings & RedisTlsSettings & HttpTlsSettings;

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

const SPECS: FieldSpecs<FetchNodeSettings> = {
  nodeId: {
    default: undefined,
    defaultText: "fetch-<random>",
    env: "CRAWL_NODE_ID",
    flag: "--node-id",
    description: "This node's id in the cluster (a-z, 0-9, -)",
    ...tokenKind("node id"),
  },
  region: {
    default: undefined,
    defaultText: "the default region",
    env: "CRAWL_REGION",
    flag: "--region",
    description: "Region whose fetch tasks this node pulls (crawl.fetch.<region>)",
    ...tokenKind("region"),
  },
  natsUrls: {
    default: ["nats://127.0.0.1:4222"],
    env: "CRAWL_NATS_URL",
    flag: "--nats-url",
    description: "NATS server(s) of the region, comma-separated",
    ...natsUrlsKind(),
  },
  natsReplicas: NATS_REPLICAS_FIELD,
  redisUrl: {
    default: undefined,
    defaultText: "none: content index and fetch claims in memory (this node only)",
    env: "CRAWL_REDIS_URL",
    flag: "--redis-url",
    description: "The region's Redis: shared content index (fingerprints, SimHash) and fetch claims",
    ...urlKind(["redis", "rediss"]),
  },
  warcDir: {
    default: undefined,
    defaultText: "warc/<node id>",
    env: "CRAWL_WARC_DIR",
    flag: "--warc-dir",
    description: "Directory for this node's WARC files and index.cdxj",
    ...dirKind(),
  },
  httpListen: {
    default: "127.0.0.1:0",
    env: "CRAWL_FETCH_HTTP_LISTEN",
    flag: "--http-listen",
    description: "host:port for /healthz, /readyz and /metrics (port 0: any free port, published in the node record)",
    ...listenKind(),
  },
  metricsTokens: {
    default: [],
    defaultText: "none: /metrics is open",
    env: "CRAWL_METRICS_TOKEN",
    flag: "--metrics-token",
    description: "Bearer token(s) /metrics requires, comma-separated (two during a rotation); /healthz and /readyz stay open",
    ...tokenListKind(),
  },
  concurrency: {
    default: 256,
    env: "CRAWL_FETCH_CONCURRENCY",
    flag: "--concurrency",
    description: "Tasks fetched at once (each to a different host: the frontier sends one per host)",
    ...integerKind({ min: 1, max: 10_000 }),
  },
  proxyUrl: PROXY_URL_FIELD,
  heartbeatIntervalMs: {
    default: 2 * SECOND,
    env: "CRAWL_HEARTBEAT_INTERVAL",
    flag: "--heartbeat-interval",
    description: "How often the node record (with counters) is written to the cluster state",
    ...durationKind({ min: 100, max: 60 * SECOND }),
  },
  stopGraceMs: {
    default: 25 * SECOND,
    env: "CRAWL_STOP_GRACE",
    flag: "--stop-grace",
    description: "On SIGINT/SIGTERM, how long tasks in flight may finish before they are abandoned (and redelivered)",
    ...durationKind({ min: 0, max: 600 * SECOND }),
  },
  nakDelayMs: {
    default: 2 * SECOND,
    env: "CRAWL_FETCH_NAK_DELAY",
    flag: "--nak-delay",
    description: "Delay before a task that failed here is redelivered; doubles per delivery, at most 64x",
    ...durationKind({ min: 0, max: 600 * SECOND }),
  },
  claimTtlMs: {
    default: DEFAULT_FETCH_CLAIM_TTL_MS,
    env: "CRAWL_FETCH_CLAIM_TTL",
    flag: "--fetch-claim-ttl",
    description:
      "How long a fetch task stays claimed by the stored copy fetched (region's Redis, else this node's memory); another copy of it delivered meanwhile is dropped unfetched. Longer than a task may wait in the stream",
    ...durationKind({ min: 10 * SECOND, max: 24 * 60 * MINUTE }),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffix to region, e.g. "eu=.de,.fr;apac=.jp" (must equal the coordinator\'s)',
    ...stringKind("rules"),
  },
  defaultRegion: {
    default: "default",
    env: "CRAWL_DEFAULT_REGION",
    flag: "--default-region",
    description: "Region of hosts no rule matches (must equal the coordinator's)",
    ...tokenKind("region"),
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P of the cluster (must equal the coordinator's)",
    ...integerKind({ min: 1, max: 4096 }),
  },
  logFormat: LOG_FORMAT_FIELD,
};

export const FETCH_NODE_FIELDS = tableRows(SPECS);

/** WARC rolling and upload: the rows `crawl` reads too, with the same flags and env vars. */
const WARC_FIELDS = [...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS];

/** The security rows a fetch node reads besides its own (kit/tls). */
export const FETCH_NODE_SECURITY_FIELDS = [...NATS_ACCESS_SETTINGS, ...REDIS_TLS_SETTINGS, ...HTTP_TLS_SETTINGS];

/** Every row the node reads besides the policy: its own table, the WARC rolling and upload rows, the security rows. */
const ALL_FIELDS: readonly FieldRow<FetchNodeSettings & WarcRollSettings & S3UploadSettings & FetchNodeSecurity>[] = [
  ...FETCH_NODE_FIELDS,
  ...WARC_FIELDS,
  ...FETCH_NODE_SECURITY_FIELDS,
];

/** The node cannot start with this configuration (fatal, never retry): fix the listed values. */
export class FetchNodeConfigError extends ConfigError.titled("invalid fetch node configuration, the node cannot start") {}

/**
 * Resolves the configuration from argv (`--flag value`, `--flag=value`) and env. `--help` is not handled
 * here. Throws FetchNodeConfigError listing every problem. `newId` makes the default node id (injectable
 * for tests).
 */
export function loadFetchNodeConfig(
  argv: readonly string[],
  env: Env,
  newId: () => string = () => newNodeId("fetch", { randomChars: 8 }),
): FetchNodeConfig {
  const read = readConfig(argv, env, ALL_FIELDS, { policy: true, unknown: (_arg, name) => `unknown option ${name} (see --help)` });
  const { values, problems, policy } = read;
  const upload = resolveS3Target(values, problems);
  let regionRules: RegionRules | undefined;
  try {
    regionRules = parseRegionRules(values.regionRules, values.defaultRegion);
  } catch (error) {
    problems.push(`regionRules: ${(error as Error).message}`);
  }
  const region = values.region ?? values.defaultRegion;
  if (regionRules && !regionsOf(regionRules).includes(region)) {
    problems.push(`region: "${region}" is neither the default region nor named by the region rules, so no host is ever crawled there`);
  }
  const security: FetchNodeSecurity = {
    natsUser: values.natsUser,
    natsPassword: values.natsPassword,
    natsTlsCaFile: values.natsTlsCaFile,
    redisTlsCaFile: values.redisTlsCaFile,
    httpTlsCertFile: values.httpTlsCertFile,
    httpTlsKeyFile: values.httpTlsKeyFile,
  };
  for (const item of checkSecuritySettings(security, values.redisUrl)) problems.push(item);
  const listen = parseHostPort(values.httpListen);
  if (problems.length > 0 || !policy || !regionRules || !listen) throw new FetchNodeConfigError(problems);

  const nodeId = values.nodeId ?? newId();
  return {
    nodeId,
    region,
    natsServers: [...values.natsUrls],
    natsReplicas: values.natsReplicas,
    redisUrl: values.redisUrl,
    warcDir: values.warcDir ?? `warc/${nodeId}`,
    warc: {
      rollBytes: values.warcRollSize,
      rollAgeMs: values.warcRollAge,
      uploadDrainMs: values.warcUploadDrain,
      text: values.text,
      upload,
    },
    http: { hostname: listen.host, port: listen.port },
    metricsTokens: values.metricsTokens,
    concurrency: values.concurrency,
    proxyUrl: values.proxyUrl ?? proxyFromEnv(env),
    heartbeatMs: values.heartbeatIntervalMs,
    stopGraceMs: values.stopGraceMs,
    nakDelayMs: values.nakDelayMs,
    claimTtlMs: values.claimTtlMs,
    regionRules,
    partitions: values.partitions,
    policy,
    logFormat: values.logFormat,
    security,
  };
}

/** The policy knobs the fetch path uses; every other policy flag is accepted and ignored. */
const POLICY_USED = new Set([
  "userAgent",
  "connectTimeoutMs",
  "keepAliveMs",
  "responseTimeoutMs",
  "maxBodyBytes",
  "allowPrivateAddresses",
  "allowAddresses",
  "denyAddresses",
  "denyHosts",
]);

/** `--help` text: the node's own settings, the WARC rolling and upload rows, then the policy knobs it uses. */
export function fetchNodeUsage(): string {
  return usageText(
    ["usage: fetch-node/main.ts [options]"],
    [
      "Pulls fetch tasks of one region from NATS JetStream, fetches them, writes WARC, and publishes the",
      "discovered links and the result; runs on Bun and Deno. Flags override env vars, which override defaults.",
    ],
    [
      { title: "options", rows: FETCH_NODE_FIELDS },
      { title: "WARC files and their upload to object storage", rows: WARC_FIELDS },
      { title: "TLS and authentication (empty: off)", rows: FETCH_NODE_SECURITY_FIELDS },
      {
        title: "crawl policy used here (every other policy flag of core/config is accepted and ignored)",
        rows: POLICY_FIELDS.filter((f) => POLICY_USED.has(f.field)),
      },
    ],
  );
}

/** The settings as printable rows (start-up log, admin views); secrets in URLs are masked. */
export function describeFetchNodeConfig(c: FetchNodeConfig): Record<string, string> {
  const mask = (u: string) => u.replace(/\/\/[^@/]*@/, "//***@");
  return {
    nodeId: c.nodeId,
    region: c.region,
    nats: c.natsServers.map(mask).join(","),
    redis: c.redisUrl ? mask(c.redisUrl) : "(memory)",
    warcDir: c.warcDir,
    warcUpload: describeS3Target(c.warc.upload),
    http: formatHostPort(c.http.hostname, c.http.port),
    concurrency: String(c.concurrency),
    fetchClaimTtl: formatDuration(c.claimTtlMs),
    proxy: c.proxyUrl ? mask(c.proxyUrl) : "(none)",
    allowPrivateAddresses: String(c.policy.allowPrivateAddresses),
    allowAddresses: c.policy.allowAddresses.join(",") || "(none)",
    denyAddresses: c.policy.denyAddresses.join(",") || "(none)",
    denyHosts: c.policy.denyHosts.join(",") || "(none)",
    partitions: String(c.partitions),
    defaultRegion: c.regionRules.defaultRegion,
  };
}

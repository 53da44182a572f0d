/**
 * The fetch node's configuration: one table of settings (field, default, env var, flag, description),
 * layered flag > env > default like the crawl policy of core/config, which this resolves too (the fetch
 * node takes every policy flag so a fleet can pass one set to every role; it uses the fetch slice).
 * Bad input is fatal at start-up: every problem is collected into one FetchNodeConfigError, nothing is
 * started. Region rules and the partition count must be the coordinator's: they decide where each
 * discovered link is published.
 */
import { parseRegionRules, regionsOf, tokenKind, type RegionRules } from "../core/cluster/index.ts";
import { tokenListKind } from "../core/auth/index.ts";
import {
  dirKind,
  durationKind,
  integerKind,
  POLICY_FIELDS,
  PolicyConfigError,
  policyOverrides,
  readFields,
  readFlags,
  resolvePolicy,
  tableRows,
  usageLine,
  type Env,
  type FieldSpecs,
  type PolicyConfig,
  type ValueKind,
} from "../core/config/index.ts";
import { describeS3Target, resolveS3Target, S3_UPLOAD_SETTINGS, type S3Target } from "../adapters/s3/index.ts";
import { WARC_ROLL_SETTINGS } from "../engine/fetch/index.ts";

export interface FetchNodeConfig {
  nodeId: string;
  region: string;
  natsServers: string[];
  /** Absent: a MemoryContentIndex (duplicates are then found per node, not per region). */
  redisUrl?: string;
  warcDir: string;
  /** Rolling of WARC files, and their upload when `upload` is set (WARC_ROLL_SETTINGS, S3_UPLOAD_SETTINGS). */
  warc: { rollBytes: number; rollAgeMs: number; uploadDrainMs: number; upload?: S3Target };
  http: { hostname: string; port: number };
  /** Tokens /metrics requires; none: /metrics is open. */
  metricsTokens: readonly string[];
  concurrency: number;
  proxyUrl?: string;
  heartbeatMs: number;
  stopGraceMs: number;
  nakDelayMs: number;
  regionRules: RegionRules;
  partitions: number;
  policy: PolicyConfig;
}

/** The node cannot start with this configuration (fatal, never retry): fix the listed values. */
export class FetchNodeConfigError extends Error {
  override name = "FetchNodeConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid fetch node configuration, the node cannot start:\n  - ${problems.join("\n  - ")}`);
  }
}

/** Comma-separated URLs with one of `schemes`; `bareHostPort` also accepts `host:port` (NATS clients do). */
const urls = (schemes: string[], bareHostPort = false): ValueKind<string[]> => ({
  kind: "urls",
  parse: (raw) =>
    raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  format: (v) => v.join(","),
  check: (v) => {
    if (v.length === 0) return "must name at least one URL";
    for (const u of v) {
      if (bareHostPort && /^[^\s:/]+:\d{1,5}$/.test(u)) continue;
      let scheme: string;
      try {
        scheme = new URL(u).protocol.replace(/:$/, "");
      } catch {
        return `"${u}" is not a URL`;
      }
      if (!schemes.includes(scheme)) return `"${u}" must use ${schemes.join(" or ")}`;
    }
    return undefined;
  },
});

/** One URL with one of `schemes`. */
const url = (schemes: string[]): ValueKind<string> => {
  const list = urls(schemes);
  return {
    kind: "url",
    parse: (raw) => raw.trim(),
    format: (v) => v,
    check: (v) => (v.includes(",") ? "must be a single URL" : list.check([v])),
  };
};

const listen: ValueKind<{ hostname: string; port: number }> = {
  kind: "host:port",
  parse(raw) {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(raw.trim());
    if (!m) throw new Error(`expected host:port such as 127.0.0.1:9102 (port 0 picks a free one), got "${raw}"`);
    return { hostname: m[1] ?? m[2]!, port: Number(m[3]) };
  },
  format: (v) => `${v.hostname.includes(":") ? `[${v.hostname}]` : v.hostname}:${v.port}`,
  check: (v) => (v.port > 65535 ? `port must be at most 65535, got ${v.port}` : undefined),
};

const regionRulesText: ValueKind<string> = {
  kind: "rules",
  parse: (raw) => raw.trim(),
  format: (v) => v,
  check: (v) => {
    try {
      parseRegionRules(v, "x");
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  },
};

/** The table's values: a default left undefined is worked out in `loadFetchNodeConfig` (its `defaultText` says how). */
interface FetchNodeSettings {
  nodeId: string | undefined;
  region: string | undefined;
  nats: readonly string[];
  redis: string | undefined;
  warcDir: string | undefined;
  http: { hostname: string; port: number };
  metricsTokens: readonly string[];
  concurrency: number;
  proxy: string | undefined;
  heartbeat: number;
  stopGrace: number;
  nakDelay: number;
  regionRules: string;
  defaultRegion: string;
  partitions: number;
}

const SPECS: FieldSpecs<FetchNodeSettings> = {
  nodeId: {
    flag: "--node-id",
    env: "CRAWL_NODE_ID",
    default: undefined,
    defaultText: "fetch-<random>",
    ...tokenKind("node id"),
    description: "This node's id in the cluster (a-z, 0-9, -)",
  },
  region: {
    flag: "--region",
    env: "CRAWL_REGION",
    default: undefined,
    defaultText: "the default region",
    ...tokenKind("region"),
    description: "Region whose fetch tasks this node pulls (crawl.fetch.<region>)",
  },
  nats: {
    flag: "--nats-url",
    env: "CRAWL_NATS_URL",
    default: ["nats://127.0.0.1:4222"],
    ...urls(["nats", "tls"], true),
    description: "NATS server(s) of the region, comma-separated",
  },
  redis: {
    flag: "--redis-url",
    env: "CRAWL_REDIS_URL",
    default: undefined,
    defaultText: "none: an in-memory content index",
    ...url(["redis", "rediss"]),
    description: "The region's Redis, shared content index (fingerprints, SimHash)",
  },
  warcDir: {
    flag: "--warc-dir",
    env: "CRAWL_WARC_DIR",
    default: undefined,
    defaultText: "warc/<node id>",
    ...dirKind(),
    description: "Directory for this node's WARC files and index.cdxj",
  },
  http: {
    flag: "--http-listen",
    env: "CRAWL_FETCH_HTTP_LISTEN",
    default: { hostname: "127.0.0.1", port: 0 },
    ...listen,
    description: "host:port for /healthz, /readyz and /metrics (port 0: any free port, published in the node record)",
  },
  metricsTokens: {
    flag: "--metrics-token",
    env: "CRAWL_METRICS_TOKEN",
    default: [],
    defaultText: "none: /metrics is open",
    ...tokenListKind(),
    description: "Bearer token(s) /metrics requires, comma-separated (two during a rotation); /healthz and /readyz stay open",
  },
  concurrency: {
    flag: "--concurrency",
    env: "CRAWL_FETCH_CONCURRENCY",
    default: 256,
    ...integerKind({ min: 1, max: 10_000 }),
    description: "Tasks fetched at once (each to a different host: the frontier sends one per host)",
  },
  proxy: {
    flag: "--proxy",
    env: "CRAWL_PROXY",
    default: undefined,
    defaultText: "HTTP_PROXY / HTTPS_PROXY, else none",
    ...url(["http", "https"]),
    description: "HTTP forward proxy for every request",
  },
  heartbeat: {
    flag: "--heartbeat-interval",
    env: "CRAWL_HEARTBEAT_INTERVAL",
    default: 2_000,
    ...durationKind({ min: 100, max: 60_000 }),
    description: "How often the node record (with counters) is written to the cluster state",
  },
  stopGrace: {
    flag: "--stop-grace",
    env: "CRAWL_STOP_GRACE",
    default: 25_000,
    ...durationKind({ min: 0, max: 600_000 }),
    description: "On SIGINT/SIGTERM, how long tasks in flight may finish before they are abandoned (and redelivered)",
  },
  nakDelay: {
    flag: "--nak-delay",
    env: "CRAWL_FETCH_NAK_DELAY",
    default: 2_000,
    ...durationKind({ min: 0, max: 600_000 }),
    description: "Delay before a task that failed here is redelivered; doubles per delivery, at most 64x",
  },
  regionRules: {
    flag: "--region-rules",
    env: "CRAWL_REGION_RULES",
    default: "",
    defaultText: "none",
    ...regionRulesText,
    description: 'Host suffix to region, e.g. "eu=.de,.fr;apac=.jp" (must equal the coordinator\'s)',
  },
  defaultRegion: {
    flag: "--default-region",
    env: "CRAWL_DEFAULT_REGION",
    default: "default",
    ...tokenKind("region"),
    description: "Region of hosts no rule matches (must equal the coordinator's)",
  },
  partitions: {
    flag: "--partitions",
    env: "CRAWL_PARTITIONS",
    default: 64,
    ...integerKind({ min: 1, max: 4096 }),
    description: "Partition count P of the cluster (must equal the coordinator's)",
  },
};

/** Every setting, in help order. */
export const FETCH_NODE_SETTINGS = tableRows(SPECS);

/** Random part of a default node id: 8 base-36 characters. */
function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => (b % 36).toString(36)).join("");
}

/**
 * Resolves the configuration from argv (`--flag value`, `--flag=value`) and env. Throws
 * FetchNodeConfigError listing every problem. `newId` makes the default node id (injectable for tests).
 */
export function loadFetchNodeConfig(
  argv: readonly string[],
  env: Env,
  newId: () => string = () => `fetch-${randomSuffix()}`,
): FetchNodeConfig {
  const { flags, problems } = readFlags(
    argv,
    [...FETCH_NODE_SETTINGS, ...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS, ...POLICY_FIELDS],
    (_arg, name) => `unknown option ${name} (see --help)`,
  );
  const read = readFields(FETCH_NODE_SETTINGS, flags, env);
  problems.push(...read.problems);
  const values = read.values;
  const roll = readFields(WARC_ROLL_SETTINGS, flags, env);
  const s3 = readFields(S3_UPLOAD_SETTINGS, flags, env);
  problems.push(...roll.problems, ...s3.problems);
  const upload = resolveS3Target(s3.values, problems);

  let policy: PolicyConfig | undefined;
  try {
    policy = resolvePolicy(policyOverrides(flags), env);
  } catch (error) {
    if (error instanceof PolicyConfigError) problems.push(...error.problems);
    else throw error;
  }

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
  if (problems.length > 0 || !policy || !regionRules) throw new FetchNodeConfigError(problems);

  const nodeId = values.nodeId ?? newId();
  return {
    nodeId,
    region,
    natsServers: [...values.nats],
    redisUrl: values.redis,
    warcDir: values.warcDir ?? `warc/${nodeId}`,
    warc: { rollBytes: roll.values.warcRollSize, rollAgeMs: roll.values.warcRollAge, uploadDrainMs: roll.values.warcUploadDrain, upload },
    http: { ...values.http },
    metricsTokens: values.metricsTokens,
    concurrency: values.concurrency,
    proxyUrl: values.proxy ?? env["HTTP_PROXY"] ?? env["http_proxy"] ?? env["HTTPS_PROXY"] ?? env["https_proxy"] ?? undefined,
    heartbeatMs: values.heartbeat,
    stopGraceMs: values.stopGrace,
    nakDelayMs: values.nakDelay,
    regionRules,
    partitions: values.partitions,
    policy,
  };
}

/** `--help` text: the node's own settings, then the policy knobs it uses. */
export function fetchNodeUsage(): string {
  const own = FETCH_NODE_SETTINGS.map((r) => usageLine(r, r.kind === "switch" ? "" : r.kind.toUpperCase()));
  const used = new Set([
    "userAgent",
    "connectTimeoutMs",
    "responseTimeoutMs",
    "maxBodyBytes",
    "allowPrivateAddresses",
    "allowAddresses",
    "denyAddresses",
    "denyHosts",
  ]);
  const policy = POLICY_FIELDS.filter((f) => used.has(f.field)).map((f) => usageLine(f));
  const warc = [...WARC_ROLL_SETTINGS, ...S3_UPLOAD_SETTINGS].map((r) => usageLine(r, r.kind.toUpperCase()));
  return [
    "usage: fetch-node/main.ts [options]",
    "",
    "Pulls fetch tasks of one region from NATS JetStream, fetches them, writes WARC, and publishes the",
    "discovered links and the result; runs on Bun and Deno. Flags override env vars, which override defaults.",
    "",
    "options:",
    ...own,
    "",
    "WARC files and their upload to object storage:",
    ...warc,
    "",
    "crawl policy used here (every other policy flag of core/config is accepted and ignored):",
    ...policy,
    "",
  ].join("\n");
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
    http: listen.format(c.http),
    concurrency: String(c.concurrency),
    proxy: c.proxyUrl ? mask(c.proxyUrl) : "(none)",
    allowPrivateAddresses: String(c.policy.allowPrivateAddresses),
    allowAddresses: c.policy.allowAddresses.join(",") || "(none)",
    denyAddresses: c.policy.denyAddresses.join(",") || "(none)",
    denyHosts: c.policy.denyHosts.join(",") || "(none)",
    partitions: String(c.partitions),
    defaultRegion: c.regionRules.defaultRegion,
  };
}

/**
 * The coordinator's configuration in one table: for each field its default, env var, flag, description
 * and parser/checker. `resolveCoordinatorConfig` layers flags over env over defaults, collects every bad
 * value into one CoordinatorConfigError (fatal: the coordinator does not start), and checks the fields
 * against each other (the death timeout must outlast several heartbeats). The env vars share the `CRAWL_`
 * prefix with the other roles, so one environment can configure a whole local cluster (partitions, region
 * rules and NATS URL must be equal on every node).
 */
import { hostname } from "node:os";
import { formatDuration, parseDuration, parseInteger } from "../core/config/index.ts";
import { checkToken, parseRegionRules, type RegionRules } from "../core/cluster/index.ts";
import { checkPartitionCount } from "../core/ring/index.ts";

export interface CoordinatorConfig {
  nodeId: string;
  defaultRegion: string;
  /** `eu=.de,.fr;apac=.jp`: host suffixes to region; unmatched hosts go to defaultRegion. */
  regionRules: string;
  partitions: number;
  vnodes: number;
  natsUrls: readonly string[];
  /** host:port of the gRPC CoordinatorService. */
  grpcListen: string;
  /** host:port of the admin HTTP API. */
  httpListen: string;
  /** Bearer token of the admin HTTP API and the gRPC API; empty means generate one at start. */
  adminToken: string;
  heartbeatIntervalMs: number;
  deathTimeoutMs: number;
  leaseTtlMs: number;
  /** Deadline of calls the coordinator forwards to frontier nodes. */
  frontierCallTimeoutMs: number;
  maxSeedsPerRequest: number;
}

interface FieldSpec<T> {
  default: T;
  env: string;
  flag: string;
  description: string;
  parse(raw: string): T;
  format(value: T): string;
  /** Why the value is unusable, or undefined. */
  check?(value: T): string | undefined;
}

type Specs = { [K in keyof CoordinatorConfig]: FieldSpec<CoordinatorConfig[K]> };

const SECOND = 1_000;

const duration = (min: number, max: number) => ({
  parse: parseDuration,
  format: formatDuration,
  check: (v: number) => (v < min || v > max ? `must be between ${formatDuration(min)} and ${formatDuration(max)}` : undefined),
});

const integer = (min: number, max: number) => ({
  parse: parseInteger,
  format: String,
  check: (v: number) => (v < min || v > max ? `must be between ${min} and ${max}` : undefined),
});

const text = (check?: (v: string) => string | undefined) => ({ parse: (raw: string) => raw.trim(), format: (v: string) => v, check });

function checkListen(v: string): string | undefined {
  return /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(v) && Number(v.slice(v.lastIndexOf(":") + 1)) <= 65535
    ? undefined
    : `must be host:port (port 0 picks a free one), got "${v}"`;
}

function tokenProblem(kind: "region" | "node id"): (v: string) => string | undefined {
  return (v) => {
    try {
      checkToken(kind, v);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
}

function defaultNodeId(): string {
  const host = hostname().toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+/, "").slice(0, 48);
  return `coordinator-${host || "local"}`;
}

const SPECS: Specs = {
  nodeId: {
    default: "",
    env: "CRAWL_NODE_ID",
    flag: "--node-id",
    description: "This coordinator's id (a-z, 0-9, -); empty: coordinator-<hostname>. A standby on the same machine needs its own",
    ...text((v) => (v === "" ? undefined : tokenProblem("node id")(v))),
  },
  defaultRegion: {
    default: "default",
    env: "CRAWL_DEFAULT_REGION",
    flag: "--default-region",
    description: "Region of every host no region rule matches",
    ...text(tokenProblem("region")),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffixes per region, e.g. "eu=.de,.fr;apac=.jp" (longest suffix wins)',
    parse: (raw) => raw.trim(),
    format: (v) => v || '""',
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P (fixed for the cluster's life; equal on every node)",
    ...integer(1, 4096),
  },
  vnodes: {
    default: 128,
    env: "CRAWL_VNODES",
    flag: "--vnodes",
    description: "Virtual nodes per frontier node on the ring",
    ...integer(1, 4096),
  },
  natsUrls: {
    default: ["nats://127.0.0.1:4222"],
    env: "CRAWL_NATS_URL",
    flag: "--nats-url",
    description: "NATS server URL(s), comma-separated",
    parse: (raw) => raw.split(",").map((s) => s.trim()).filter(Boolean),
    format: (v) => v.join(","),
    check: (v) => (v.length === 0 ? "must name at least one server" : v.find((u) => !/^(nats|tls|wss?):\/\/[^\s]+$|^[^\s:/]+:\d+$/.test(u)) ? "must be nats://host:port URLs" : undefined),
  },
  grpcListen: {
    default: "127.0.0.1:7400",
    env: "CRAWL_GRPC_LISTEN",
    flag: "--grpc-listen",
    description: "host:port of the gRPC API (crawlctl)",
    ...text(checkListen),
  },
  httpListen: {
    default: "127.0.0.1:7480",
    env: "CRAWL_HTTP_LISTEN",
    flag: "--http-listen",
    description: "host:port of the admin HTTP API (/healthz, /readyz, /metrics, /v1/...)",
    ...text(checkListen),
  },
  adminToken: {
    default: "",
    env: "CRAWL_ADMIN_TOKEN",
    flag: "--admin-token",
    description: "Bearer token for the admin API and gRPC; when empty one is generated and printed at start",
    ...text((v) => (v === "" || /^[A-Za-z0-9._~+/-]{16,256}=*$/.test(v) ? undefined : "must be 16-256 characters of A-Z a-z 0-9 . _ ~ + / -")),
  },
  heartbeatIntervalMs: {
    default: 2 * SECOND,
    env: "CRAWL_HEARTBEAT_INTERVAL",
    flag: "--heartbeat-interval",
    description: "How often the coordinator renews its lease, writes its record and rebalances",
    ...duration(100, 60 * SECOND),
  },
  deathTimeoutMs: {
    default: 10 * SECOND,
    env: "CRAWL_DEATH_TIMEOUT",
    flag: "--death-timeout",
    description: "A node whose last heartbeat is older than this is dead and loses its partitions",
    ...duration(300, 10 * 60 * SECOND),
  },
  leaseTtlMs: {
    default: 6 * SECOND,
    env: "CRAWL_LEASE_TTL",
    flag: "--lease-ttl",
    description: "Lifetime of the coordinator lease; a standby takes over this long after the leader stops renewing",
    ...duration(200, 10 * 60 * SECOND),
  },
  frontierCallTimeoutMs: {
    default: 5 * SECOND,
    env: "CRAWL_FRONTIER_CALL_TIMEOUT",
    flag: "--frontier-call-timeout",
    description: "Deadline of host and URL questions forwarded to the owning frontier node",
    ...duration(50, 60 * SECOND),
  },
  maxSeedsPerRequest: {
    default: 10_000,
    env: "CRAWL_MAX_SEEDS_PER_REQUEST",
    flag: "--max-seeds-per-request",
    description: "Most URLs one add-seeds call may carry",
    ...integer(1, 1_000_000),
  },
};

export type ConfigField = { [K in keyof CoordinatorConfig]: FieldSpec<CoordinatorConfig[K]> & { field: K } }[keyof CoordinatorConfig];

export const COORDINATOR_FIELDS: readonly ConfigField[] = (Object.keys(SPECS) as Array<keyof CoordinatorConfig>).map(
  (field) => ({ field, ...SPECS[field] }) as ConfigField,
);

/** The coordinator cannot start with this configuration (fatal): fix the listed values. */
export class CoordinatorConfigError extends Error {
  override name = "CoordinatorConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid coordinator configuration:\n  - ${problems.join("\n  - ")}`);
  }
}

export interface ResolvedConfig {
  config: CoordinatorConfig;
  rules: RegionRules;
  /** True when no token was configured and `config.adminToken` was generated. */
  tokenGenerated: boolean;
}

/**
 * Parses `argv` (`--flag value` or `--flag=value`) over `env` over the defaults. `--help` is not handled
 * here. Throws CoordinatorConfigError listing every problem.
 */
export function resolveCoordinatorConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  generateToken: () => string = randomToken,
): ResolvedConfig {
  const problems: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!COORDINATOR_FIELDS.some((f) => f.flag === name)) {
      problems.push(`unknown argument "${arg}" (see --help)`);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) problems.push(`${name} needs a value`);
    else flags.set(name, value);
  }
  const values: Record<string, unknown> = {};
  for (const row of COORDINATOR_FIELDS) {
    const flag = flags.get(row.flag);
    const fromEnv = env[row.env];
    const raw = flag ?? (fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : undefined);
    const origin = flag !== undefined ? `flag ${row.flag}` : `env ${row.env}`;
    let value: unknown = row.default;
    if (raw !== undefined) {
      try {
        value = row.parse(raw);
      } catch (error) {
        problems.push(`${row.field}: ${(error as Error).message} (from ${origin})`);
        continue;
      }
    }
    const problem = (row.check as ((v: unknown) => string | undefined) | undefined)?.(value);
    if (problem) problems.push(`${row.field}: ${problem}${raw !== undefined ? ` (from ${origin} = "${raw}")` : ""}`);
    values[row.field] = value;
  }
  if (problems.length > 0) throw new CoordinatorConfigError(problems);
  const config = values as unknown as CoordinatorConfig;
  if (config.deathTimeoutMs < 2 * config.heartbeatIntervalMs) problems.push("deathTimeoutMs: must be at least two heartbeat intervals, or a slow heartbeat kills a healthy node");
  if (config.leaseTtlMs <= config.heartbeatIntervalMs) problems.push("leaseTtlMs: must be longer than the heartbeat interval, which renews it");
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
  const tokenGenerated = config.adminToken === "";
  return {
    config: { ...config, nodeId: config.nodeId || defaultNodeId(), adminToken: tokenGenerated ? generateToken() : config.adminToken },
    rules,
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

/** The usage text: one line per field with its flag, env var, default and description. */
export function coordinatorUsage(): string {
  const rows = COORDINATOR_FIELDS.map((f) => {
    const format = f.format as (v: unknown) => string;
    return `  ${`${f.flag} VALUE`.padEnd(32)} ${f.description} (default ${format(f.default) || '""'}; env ${f.env})`;
  });
  return ["usage: coordinator [options]", "", "Runs the cluster coordinator: membership, ring, gRPC API and admin HTTP API.", "", "options (flag > env > default):", ...rows, ""].join("\n");
}

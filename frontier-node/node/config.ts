/**
 * The frontier node's configuration in one table: for each field its default, env var, flag, description
 * and parser/checker, plus every crawl-policy knob of core/config (same flags and env vars as `crawl`).
 * `resolveFrontierNodeConfig` layers flags over env over defaults and collects every bad value into one
 * FrontierNodeConfigError (fatal: the node does not start). Env vars share the `CRAWL_` prefix with the
 * other roles, so one environment can configure a local cluster; partitions, region rules and the NATS URL
 * must be equal on every node (the partition count is read from the ring when one exists).
 */
import { hostname } from "node:os";
import { checkToken, parseRegionRules, type RegionRules } from "../../core/cluster/index.ts";
import {
  formatDuration,
  parseDuration,
  parseInteger,
  POLICY_FIELDS,
  resolvePolicy,
  type PolicyConfig,
} from "../../core/config/index.ts";
import { checkPartitionCount } from "../../core/ring/index.ts";

export interface FrontierNodeConfig {
  /** Empty: the id saved in the data dir by an earlier run, else `frontier-<hostname>-<random>`. */
  nodeId: string;
  region: string;
  defaultRegion: string;
  regionRules: string;
  natsUrls: readonly string[];
  /** Empty: no Redis, a local Bloom filter saved under the data dir (single-node development). */
  redisUrl: string;
  dataDir: string;
  grpcListen: string;
  /** Address other nodes dial for this node's gRPC API; empty: the bound listen address. */
  grpcAdvertise: string;
  /** Empty: no HTTP endpoint. */
  httpListen: string;
  partitions: number;
  credit: number;
  heartbeatIntervalMs: number;
  maxQueued: number;
  confirmAllSeen: boolean;
  stopGraceMs: number;
  lostSweepIntervalMs: number;
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

type Specs = { [K in keyof FrontierNodeConfig]: FieldSpec<FrontierNodeConfig[K]> };

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

const text = (check?: (v: string) => string | undefined) => ({ parse: (raw: string) => raw.trim(), format: (v: string) => v || '""', check });

const boolean = {
  parse(raw: string): boolean {
    const v = raw.trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(v)) return true;
    if (["0", "false", "no", "off"].includes(v)) return false;
    throw new Error(`expected true or false, got "${raw}"`);
  },
  format: (v: boolean) => String(v),
};

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

const SPECS: Specs = {
  nodeId: {
    default: "",
    env: "CRAWL_NODE_ID",
    flag: "--node-id",
    description: "This node's id (a-z, 0-9, -); empty: the id saved in --data-dir, else frontier-<hostname>-<random>. Restart with the same id and data dir to resume",
    ...text((v) => (v === "" ? undefined : tokenProblem("node id")(v))),
  },
  region: {
    default: "default",
    env: "CRAWL_REGION",
    flag: "--region",
    description: "Region this node serves (its partitions, fetch subject and Redis)",
    ...text(tokenProblem("region")),
  },
  defaultRegion: {
    default: "default",
    env: "CRAWL_DEFAULT_REGION",
    flag: "--default-region",
    description: "Region of every host no region rule matches (as on the coordinator)",
    ...text(tokenProblem("region")),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffixes per region, e.g. "eu=.de,.fr;apac=.jp" (as on the coordinator)',
    ...text(),
  },
  natsUrls: {
    default: ["nats://127.0.0.1:4222"],
    env: "CRAWL_NATS_URL",
    flag: "--nats-url",
    description: "NATS server URL(s) of this region, comma-separated",
    parse: (raw) => raw.split(",").map((s) => s.trim()).filter(Boolean),
    format: (v) => v.join(","),
    check: (v) => (v.length === 0 ? "must name at least one server" : v.find((u) => !/^(nats|tls|wss?):\/\/[^\s]+$|^[^\s:/]+:\d+$/.test(u)) ? "must be nats://host:port URLs" : undefined),
  },
  redisUrl: {
    default: "",
    env: "CRAWL_REDIS_URL",
    flag: "--redis-url",
    description: "Redis of this region for the seen-set (redis://host:port); empty: a local Bloom filter in --data-dir (one node only)",
    ...text((v) => (v === "" || /^rediss?:\/\/\S+$/.test(v) ? undefined : `must be a redis:// URL, got "${v}"`)),
  },
  dataDir: {
    default: "frontier-data",
    env: "CRAWL_DATA_DIR",
    flag: "--data-dir",
    description: "Directory of the node's state (SQLite frontier store, local seen-set); keep it to resume",
    ...text((v) => (v === "" ? "must not be empty" : undefined)),
  },
  grpcListen: {
    default: "127.0.0.1:0",
    env: "CRAWL_FRONTIER_GRPC_LISTEN",
    flag: "--grpc-listen",
    description: "host:port of the FrontierService gRPC API (port 0 picks a free one; the node record carries the bound one)",
    ...text(checkListen),
  },
  grpcAdvertise: {
    default: "",
    env: "CRAWL_FRONTIER_GRPC_ADVERTISE",
    flag: "--grpc-advertise",
    description: "host:port other nodes dial for this node's gRPC API; empty: the bound listen address",
    ...text((v) => (v === "" ? undefined : checkListen(v))),
  },
  httpListen: {
    default: "127.0.0.1:0",
    env: "CRAWL_FRONTIER_HTTP_LISTEN",
    flag: "--http-listen",
    description: "host:port of /healthz, /readyz and /metrics; empty: none",
    ...text((v) => (v === "" ? undefined : checkListen(v))),
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P; the ring's count wins when a ring exists (giving another one explicitly is an error)",
    ...integer(1, 4096),
  },
  credit: {
    default: 512,
    env: "CRAWL_CREDIT",
    flag: "--credit",
    description: "Most fetch tasks this node has in flight at once (one per host), so the fetch stream never floods",
    ...integer(1, 1_000_000),
  },
  heartbeatIntervalMs: {
    default: 2 * SECOND,
    env: "CRAWL_HEARTBEAT_INTERVAL",
    flag: "--heartbeat-interval",
    description: "How often the node rewrites its record (liveness, counters, partitions)",
    ...duration(50, 60 * SECOND),
  },
  maxQueued: {
    default: 50_000_000,
    env: "CRAWL_MAX_QUEUED",
    flag: "--max-queued",
    description: "Frontier size limit of this node; beyond it the lowest-priority URLs are dropped",
    ...integer(1, 10_000_000_000),
  },
  confirmAllSeen: {
    default: false,
    env: "CRAWL_CONFIRM_ALL_SEEN",
    flag: "--confirm-all-seen",
    description: "Confirm every Bloom 'maybe seen' in the exact store, not only seeds and home pages",
    ...boolean,
  },
  stopGraceMs: {
    default: 10 * SECOND,
    env: "CRAWL_STOP_GRACE",
    flag: "--stop-grace",
    description: "On SIGINT/SIGTERM, how long to wait for results of tasks in flight before giving them back",
    ...duration(0, 10 * 60 * SECOND),
  },
  lostSweepIntervalMs: {
    default: 5 * SECOND,
    env: "CRAWL_LOST_SWEEP_INTERVAL",
    flag: "--lost-sweep-interval",
    description: "How often hosts in flight longer than the fetch lease (--fetch-lease) are released",
    ...duration(10, 10 * 60 * SECOND),
  },
};

export type ConfigField = { [K in keyof FrontierNodeConfig]: FieldSpec<FrontierNodeConfig[K]> & { field: K } }[keyof FrontierNodeConfig];

export const FRONTIER_NODE_FIELDS: readonly ConfigField[] = (Object.keys(SPECS) as Array<keyof FrontierNodeConfig>).map(
  (field) => ({ field, ...SPECS[field] }) as ConfigField,
);

/** The node cannot start with this configuration (fatal): fix the listed values. */
export class FrontierNodeConfigError extends Error {
  override name = "FrontierNodeConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid frontier node configuration:\n  - ${problems.join("\n  - ")}`);
  }
}

export interface ResolvedFrontierNodeConfig {
  config: FrontierNodeConfig;
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
export function resolveFrontierNodeConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ResolvedFrontierNodeConfig {
  const problems: string[] = [];
  const flags = new Map<string, string>();
  const policyFlags: Record<string, string> = {};
  const policyFlagNames = new Set(POLICY_FIELDS.map((f) => f.flag));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const own = FRONTIER_NODE_FIELDS.find((f) => f.flag === name);
    if (!own && !policyFlagNames.has(name)) {
      problems.push(`unknown argument "${arg}" (see --help)`);
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (own && typeof own.default === "boolean" && (argv[i + 1] === undefined || argv[i + 1]!.startsWith("--"))) value = "true";
    else value = argv[++i];
    if (value === undefined) problems.push(`${name} needs a value`);
    else if (own) flags.set(name, value);
    else policyFlags[name] = value;
  }
  const values: Record<string, unknown> = {};
  for (const row of FRONTIER_NODE_FIELDS) {
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
  let policy: PolicyConfig | undefined;
  try {
    policy = resolvePolicy(policyFlags, env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const config = values as unknown as FrontierNodeConfig;
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
  const partitionsGiven = flags.has("--partitions") || (env["CRAWL_PARTITIONS"] ?? "").trim() !== "";
  return { config, policy, rules, partitionsGiven };
}

/** A fresh node id: `frontier-<hostname>-<6 random base-36 digits>`, valid for checkToken. */
export function generateNodeId(host: string = hostname(), random: () => number = Math.random): string {
  const name = host.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "local";
  const suffix = Math.floor(random() * 36 ** 6).toString(36).padStart(6, "0");
  return checkToken("node id", `frontier-${name}-${suffix}`);
}

/** The usage text: one line per field with its flag, env var, default and description, then the policy. */
export function frontierNodeUsage(): string {
  const rows = FRONTIER_NODE_FIELDS.map((f) => {
    const format = f.format as (v: unknown) => string;
    return `  ${`${f.flag} VALUE`.padEnd(32)} ${f.description} (default ${format(f.default)}; env ${f.env})`;
  });
  const policy = POLICY_FIELDS.map((f) => `  ${`${f.flag} VALUE`.padEnd(32)} ${f.description} (default ${f.format(f.default as never)}; env ${f.env})`);
  return [
    "usage: bun frontier-node/main.ts [options]",
    "",
    "Runs one frontier node: serves the partitions of its region that the ring gives it, publishes fetch",
    "tasks, applies results, and hands partitions over when the ring moves them.",
    "",
    "options (flag > env > default):",
    ...rows,
    "",
    "crawl policy (flag > env > default):",
    ...policy,
    "",
  ].join("\n");
}

/**
 * The fetch node's configuration: one table of settings (field, default, env var, flag, description),
 * layered flag > env > default like the crawl policy of core/config, which this resolves too (the fetch
 * node takes every policy flag so a fleet can pass one set to every role; it uses the fetch slice).
 * Bad input is fatal at start-up: every problem is collected into one FetchNodeConfigError, nothing is
 * started. Region rules and the partition count must be the coordinator's: they decide where each
 * discovered link is published.
 */
import { checkToken, parseRegionRules, regionsOf, type RegionRules } from "../core/cluster/index.ts";
import { durationKind, integerKind, type ValueKind } from "../core/config/field-kinds.ts";
import { POLICY_FIELDS, PolicyConfigError, resolvePolicy, type PolicyConfig } from "../core/config/index.ts";

export interface FetchNodeConfig {
  nodeId: string;
  region: string;
  natsServers: string[];
  /** Absent: a MemoryContentIndex (duplicates are then found per node, not per region). */
  redisUrl?: string;
  warcDir: string;
  http: { hostname: string; port: number };
  concurrency: number;
  proxyUrl?: string;
  allowPrivateAddresses: boolean;
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

interface Row<T> {
  flag: string;
  env: string;
  /** Help text for the default (derived defaults are described, not computed). */
  defaultText: string;
  description: string;
  kind: ValueKind<T>;
  /** A switch takes no value on the command line (`--allow-private-addresses`). */
  isSwitch?: boolean;
}

const token = (what: "region" | "node id"): ValueKind<string> => ({
  kind: what === "region" ? "region" : "id",
  parse: (raw) => raw.trim(),
  format: (v) => v,
  check: (v) => {
    try {
      checkToken(what, v);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  },
});

/** Comma-separated URLs with one of `schemes`; `bareHostPort` also accepts `host:port` (NATS clients do). */
const urls = (schemes: string[], bareHostPort = false): ValueKind<string[]> => ({
  kind: "urls",
  parse: (raw) => raw.split(",").map((s) => s.trim()).filter(Boolean),
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

const dir: ValueKind<string> = {
  kind: "dir",
  parse: (raw) => raw.trim(),
  format: (v) => v,
  check: (v) => (v === "" ? "must not be empty" : undefined),
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

const bool: ValueKind<boolean> = {
  kind: "switch",
  parse(raw) {
    const v = raw.trim().toLowerCase();
    if (["1", "true", "yes", "on"].includes(v)) return true;
    if (["0", "false", "no", "off"].includes(v)) return false;
    throw new Error(`expected true or false, got "${raw}"`);
  },
  format: String,
  check: () => undefined,
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

/** Every setting, in help order. Settings with a derived default are resolved in `loadFetchNodeConfig`. */
export const FETCH_NODE_SETTINGS = {
  nodeId: { flag: "--node-id", env: "CRAWL_NODE_ID", defaultText: "fetch-<random>", kind: token("node id"), description: "This node's id in the cluster (a-z, 0-9, -)" },
  region: { flag: "--region", env: "CRAWL_REGION", defaultText: "the default region", kind: token("region"), description: "Region whose fetch tasks this node pulls (crawl.fetch.<region>)" },
  nats: { flag: "--nats-url", env: "CRAWL_NATS_URL", defaultText: "nats://127.0.0.1:4222", kind: urls(["nats", "tls"], true), description: "NATS server(s) of the region, comma-separated" },
  redis: { flag: "--redis-url", env: "CRAWL_REDIS_URL", defaultText: "none: an in-memory content index", kind: url(["redis", "rediss"]), description: "The region's Redis, shared content index (fingerprints, SimHash)" },
  warcDir: { flag: "--warc-dir", env: "CRAWL_WARC_DIR", defaultText: "warc/<node id>", kind: dir, description: "Directory for this node's WARC files and index.cdxj" },
  http: { flag: "--http-listen", env: "CRAWL_FETCH_HTTP_LISTEN", defaultText: "127.0.0.1:0", kind: listen, description: "host:port for /healthz, /readyz and /metrics (port 0: any free port, published in the node record)" },
  concurrency: { flag: "--concurrency", env: "CRAWL_FETCH_CONCURRENCY", defaultText: "256", kind: integerKind({ min: 1, max: 10_000 }), description: "Tasks fetched at once (each to a different host: the frontier sends one per host)" },
  proxy: { flag: "--proxy", env: "CRAWL_PROXY", defaultText: "HTTP_PROXY / HTTPS_PROXY, else none", kind: url(["http", "https"]), description: "HTTP forward proxy for every request" },
  allowPrivateAddresses: { flag: "--allow-private-addresses", env: "CRAWL_ALLOW_PRIVATE_ADDRESSES", defaultText: "false", kind: bool, isSwitch: true, description: "Allow hosts that resolve to loopback, private or link-local addresses (tests, intranets)" },
  heartbeat: { flag: "--heartbeat-interval", env: "CRAWL_HEARTBEAT_INTERVAL", defaultText: "2s", kind: durationKind({ min: 100, max: 60_000 }), description: "How often the node record (with counters) is written to the cluster state" },
  stopGrace: { flag: "--stop-grace", env: "CRAWL_STOP_GRACE", defaultText: "25s", kind: durationKind({ min: 0, max: 600_000 }), description: "On SIGINT/SIGTERM, how long tasks in flight may finish before they are abandoned (and redelivered)" },
  nakDelay: { flag: "--nak-delay", env: "CRAWL_FETCH_NAK_DELAY", defaultText: "2s", kind: durationKind({ min: 0, max: 600_000 }), description: "Delay before a task that failed here is redelivered; doubles per delivery, at most 64x" },
  regionRules: { flag: "--region-rules", env: "CRAWL_REGION_RULES", defaultText: "none", kind: regionRulesText, description: "Host suffix to region, e.g. \"eu=.de,.fr;apac=.jp\" (must equal the coordinator's)" },
  defaultRegion: { flag: "--default-region", env: "CRAWL_DEFAULT_REGION", defaultText: "default", kind: token("region"), description: "Region of hosts no rule matches (must equal the coordinator's)" },
  partitions: { flag: "--partitions", env: "CRAWL_PARTITIONS", defaultText: "64", kind: integerKind({ min: 1, max: 4096 }), description: "Partition count P of the cluster (must equal the coordinator's)" },
} satisfies Record<string, Row<unknown>>;

type Settings = typeof FETCH_NODE_SETTINGS;
type Values = { [K in keyof Settings]?: Settings[K] extends Row<infer T> ? T : never };

const BY_FLAG = new Map<string, keyof Settings>(Object.entries(FETCH_NODE_SETTINGS).map(([k, r]) => [r.flag, k as keyof Settings]));
const POLICY_FLAGS = new Set(POLICY_FIELDS.map((f) => f.flag));

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
  env: Readonly<Record<string, string | undefined>>,
  newId: () => string = () => `fetch-${randomSuffix()}`,
): FetchNodeConfig {
  const problems: string[] = [];
  const flags = new Map<keyof Settings, string>();
  const policyFlags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const key = BY_FLAG.get(name);
    if (!key && !POLICY_FLAGS.has(name)) {
      problems.push(`unknown option ${name} (see --help)`);
      continue;
    }
    const isSwitch = key !== undefined && "isSwitch" in FETCH_NODE_SETTINGS[key];
    const value = eq > 0 && name !== arg ? arg.slice(eq + 1) : isSwitch ? "true" : argv[++i];
    if (value === undefined) {
      problems.push(`${name} needs a value`);
      continue;
    }
    if (key) flags.set(key, value);
    else policyFlags[name] = value;
  }

  const values: Values = {};
  for (const [key, row] of Object.entries(FETCH_NODE_SETTINGS) as Array<[keyof Settings, Row<unknown>]>) {
    const fromFlag = flags.get(key);
    const fromEnv = env[row.env];
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : undefined);
    if (raw === undefined) continue;
    const origin = fromFlag !== undefined ? `flag ${row.flag}` : `env ${row.env}`;
    try {
      const value = row.kind.parse(raw);
      const problem = row.kind.check(value);
      if (problem) problems.push(`${key}: ${problem} (from ${origin} = "${raw}")`);
      else (values as Record<string, unknown>)[key] = value;
    } catch (error) {
      problems.push(`${key}: ${(error as Error).message} (from ${origin})`);
    }
  }

  let policy: PolicyConfig | undefined;
  try {
    policy = resolvePolicy(policyFlags, env);
  } catch (error) {
    if (error instanceof PolicyConfigError) problems.push(...error.problems);
    else throw error;
  }

  const defaultRegion = values.defaultRegion ?? "default";
  let regionRules: RegionRules | undefined;
  try {
    regionRules = parseRegionRules(values.regionRules, defaultRegion);
  } catch (error) {
    problems.push(`regionRules: ${(error as Error).message}`);
  }
  const region = values.region ?? defaultRegion;
  if (regionRules && !regionsOf(regionRules).includes(region)) {
    problems.push(`region: "${region}" is neither the default region nor named by the region rules, so no host is ever crawled there`);
  }
  if (problems.length > 0 || !policy || !regionRules) throw new FetchNodeConfigError(problems);

  const nodeId = values.nodeId ?? newId();
  return {
    nodeId,
    region,
    natsServers: values.nats ?? ["nats://127.0.0.1:4222"],
    redisUrl: values.redis,
    warcDir: values.warcDir ?? `warc/${nodeId}`,
    http: values.http ?? { hostname: "127.0.0.1", port: 0 },
    concurrency: values.concurrency ?? 256,
    proxyUrl: values.proxy ?? env["HTTP_PROXY"] ?? env["http_proxy"] ?? env["HTTPS_PROXY"] ?? env["https_proxy"] ?? undefined,
    allowPrivateAddresses: values.allowPrivateAddresses ?? false,
    heartbeatMs: values.heartbeat ?? 2_000,
    stopGraceMs: values.stopGrace ?? 25_000,
    nakDelayMs: values.nakDelay ?? 2_000,
    regionRules,
    partitions: values.partitions ?? 64,
    policy,
  };
}

/** `--help` text: the node's own settings, then the policy knobs it uses. */
export function fetchNodeUsage(): string {
  const own = Object.values(FETCH_NODE_SETTINGS).map(
    (r: Row<unknown>) => `  ${`${r.flag}${r.isSwitch ? "" : ` ${r.kind.kind.toUpperCase()}`}`.padEnd(32)} ${r.description} (default ${r.defaultText}; env ${r.env})`,
  );
  const used = new Set(["userAgent", "connectTimeoutMs", "responseTimeoutMs", "maxBodyBytes"]);
  const policy = POLICY_FIELDS.filter((f) => used.has(f.field)).map(
    (f) => `  ${`${f.flag} VALUE`.padEnd(32)} ${f.description} (default ${f.format(f.default as never)}; env ${f.env})`,
  );
  return [
    "usage: fetch-node/main.ts [options]",
    "",
    "Pulls fetch tasks of one region from NATS JetStream, fetches them, writes WARC, and publishes the",
    "discovered links and the result; runs on Bun and Deno. Flags override env vars, which override defaults.",
    "",
    "options:",
    ...own,
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
    http: listen.format(c.http),
    concurrency: String(c.concurrency),
    proxy: c.proxyUrl ? mask(c.proxyUrl) : "(none)",
    allowPrivateAddresses: String(c.allowPrivateAddresses),
    partitions: String(c.partitions),
    defaultRegion: c.regionRules.defaultRegion,
  };
}

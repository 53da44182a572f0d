/**
 * The flags every cluster command shares, as a configuration table like every process's: where the
 * coordinator is (`--coordinator ADDR[,ADDR...]` or CRAWLCTL_COORDINATOR: a leader and its standbys, in any
 * order; the one holding the lease answers), its token (`--token` or CRAWLCTL_TOKEN), the CA of its
 * certificate when its gRPC is TLS (`--tls-ca-file` or CRAWLCTL_TLS_CA_FILE),
 * `--json` for scripts, `--watch` and `--interval` for a live view, and `--file` and `--limit` where a
 * command takes them (seed add; url captures). The other arguments (hosts, URLs, node ids) come back in `rest`.
 */
import {
  decimalKind,
  integerKind,
  readConfig,
  stringKind,
  switchKind,
  tableRows,
  type Env,
  type FieldSpecs,
} from "../../core/config/index.ts";
import { parseHostPort } from "../../core/net/index.ts";
import { readPemFile } from "../../kit/tls/index.ts";
import { UsageError } from "../io.ts";

export interface ClusterFlags {
  coordinator: string;
  token: string;
  tlsCaFile: string;
  json: boolean;
  watch: boolean;
  intervalSeconds: number;
  file: string;
  feeds: string;
  maxPages: string;
  maxDuration: string;
  weight: string;
  scope: string;
  maxDepth: string;
  allowHosts: string;
  allowUrls: string;
  denyUrls: string;
  limit: number;
}

export interface ClusterOptions {
  /** host:port of each coordinator, as given. */
  coordinators: string[];
  token?: string;
  /** PEM of the CA of the coordinator's certificate: the link is TLS. */
  tlsCa?: string;
  json: boolean;
  watch: boolean;
  /** Seconds between refreshes with --watch. */
  intervalS: number;
  rest: string[];
  /** Values of the command's own flags (e.g. --file). */
  flags: Map<string, string>;
}

const SPECS: FieldSpecs<ClusterFlags> = {
  coordinator: {
    default: "",
    env: "CRAWLCTL_COORDINATOR",
    flag: "--coordinator",
    description: "host:port of the coordinator's gRPC API, or several comma-separated (a leader and its standbys; cluster up prints them)",
    ...stringKind("host:port[,host:port...]", (value) => {
      const bad = splitAddresses(value).filter((a) => !parseHostPort(a));
      return bad.length > 0 ? `not host:port: ${bad.join(", ")}` : undefined;
    }),
  },
  token: {
    default: "",
    env: "CRAWLCTL_TOKEN",
    flag: "--token",
    description: "The coordinator's admin token",
    ...stringKind("token"),
  },
  tlsCaFile: {
    default: "",
    defaultText: "none: plain-text gRPC",
    env: "CRAWLCTL_TLS_CA_FILE",
    flag: "--tls-ca-file",
    description: "PEM file of the CA of the coordinator's certificate, when its gRPC is TLS (cluster up --secure prints it)",
    ...stringKind("file"),
  },
  json: {
    default: false,
    env: "",
    flag: "--json",
    description: "Print JSON instead of a table",
    ...switchKind(),
  },
  watch: {
    default: false,
    env: "",
    flag: "--watch",
    description: "Keep refreshing (status)",
    ...switchKind(),
  },
  intervalSeconds: {
    default: 2,
    env: "",
    flag: "--interval",
    description: "Seconds between refreshes with --watch",
    ...decimalKind(),
    check: (value) => (value > 0 ? undefined : "must be a positive number of seconds"),
  },
  file: {
    default: "",
    env: "",
    flag: "--file",
    description: "A file of seed URLs, one per line (seed add)",
    ...stringKind("file"),
  },
  feeds: {
    default: "",
    env: "",
    flag: "--feeds",
    description:
      "A file of feed URLs (RSS 2.0, Atom 1.0), one per line, each read as a feed (seed add; job create and job seed: the job's feeds)",
    ...stringKind("file"),
  },
  // A job's settings (job create); the coordinator checks them as the admin API does.
  maxPages: {
    default: "",
    env: "",
    flag: "--max-pages",
    description: "Page results after which the job ends (job create; 0: none)",
    ...stringKind("N"),
  },
  maxDuration: {
    default: "",
    env: "",
    flag: "--max-duration",
    description: "Time after which the job ends, as 2h (job create)",
    ...stringKind("duration"),
  },
  weight: {
    default: "",
    env: "",
    flag: "--weight",
    description: "The job's share of the turns on a shared host, 1-1000 (job create)",
    ...stringKind("N"),
  },
  scope: {
    default: "",
    env: "",
    flag: "--scope",
    description: "host, domain or any: where the job's links may lead (job create)",
    ...stringKind("scope"),
  },
  maxDepth: {
    default: "",
    env: "",
    flag: "--max-depth",
    description: "Most links followed from the job's seeds (job create)",
    ...stringKind("N"),
  },
  allowHosts: {
    default: "",
    env: "",
    flag: "--allow-hosts",
    description: "Only these hosts, comma-separated (job create)",
    ...stringKind("hosts"),
  },
  allowUrls: {
    default: "",
    env: "",
    flag: "--allow-urls",
    description: "Only URLs matching these patterns, blank-separated (job create)",
    ...stringKind("patterns"),
  },
  denyUrls: {
    default: "",
    env: "",
    flag: "--deny-urls",
    description: "Never URLs matching these patterns, blank-separated (job create)",
    ...stringKind("patterns"),
  },
  limit: {
    // The largest limit a lookup takes (core/captures MAX_CAPTURES_LIMIT): more than a URL ever keeps.
    default: 1000,
    defaultText: "every capture kept",
    env: "",
    flag: "--limit",
    description: "At most this many, newest first (url captures)",
    ...integerKind({ min: 1, max: 1000 }),
  },
};

/** Flags of the table only some commands take (each command names its own in `own.valued`). */
const OWN_FIELDS: ReadonlySet<string> = new Set([
  "file",
  "feeds",
  "limit",
  "maxPages",
  "maxDuration",
  "weight",
  "scope",
  "maxDepth",
  "allowHosts",
  "allowUrls",
  "denyUrls",
]);

export const CLUSTER_FIELDS = tableRows(SPECS);

/** Reads a cluster command's arguments; `own.valued` names the command's own flags of the table (`--file`). */
export function parseClusterOptions(argv: readonly string[], env: Env, own: { valued?: string[] } = {}): ClusterOptions {
  const rows = CLUSTER_FIELDS.filter((row) => !OWN_FIELDS.has(row.field) || own.valued?.includes(row.flag));
  const read = readConfig(argv, env, rows, { positionals: true, unknown: (_arg, name) => `unknown option ${name}` });
  if (read.problems.length > 0) throw new UsageError(read.problems.join("; "), read.problems);
  const { values } = read;
  const coordinators = splitAddresses(values.coordinator);
  if (coordinators.length === 0) throw new UsageError("no coordinator address: give --coordinator HOST:PORT or set CRAWLCTL_COORDINATOR");
  const flags = new Map<string, string>();
  for (const row of rows) {
    const value = values[row.field];
    if (OWN_FIELDS.has(row.field) && typeof value === "string" && value !== "") flags.set(row.flag, value);
  }
  if (own.valued?.includes("--limit")) flags.set("--limit", String(values.limit));
  let tlsCa: string | undefined;
  if (values.tlsCaFile) {
    try {
      tlsCa = readPemFile("CRAWLCTL_TLS_CA_FILE", values.tlsCaFile);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  return {
    coordinators,
    token: values.token || undefined,
    tlsCa,
    json: values.json,
    watch: values.watch,
    intervalS: values.intervalSeconds,
    rest: read.positionals,
    flags,
  };
}

/** `a:1, b:2` as `["a:1", "b:2"]`: a comma-separated list, blanks dropped. */
function splitAddresses(value: string): string[] {
  return value
    .split(",")
    .map((a) => a.trim())
    .filter(Boolean);
}

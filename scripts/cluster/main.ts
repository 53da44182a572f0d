/**
 * `bun run cluster up`: a whole cluster on this machine, in the foreground, kept running like a process
 * manager keeps its services. Per region a nats-server with JetStream (one JetStream cluster per region,
 * joined by gateways, when there are several) and a redis-server with an append-only file; one
 * coordinator or more (`--coordinators 2`: a leader and a standby, by lease); N frontier nodes; M fetch
 * nodes (the first on Deno when Deno is installed). Every process has fixed ports, chosen once and kept
 * in DIR/layout.json with the token, and its data under DIR, so a process that dies is started again by
 * the supervisor (supervisor.ts) with the same id, data and ports, and a later `cluster up` on the same
 * DIR resumes the same cluster. When every process is up and registered (readiness.ts) it prints where
 * the APIs are and writes DIR/cluster.json (cluster-file.ts), kept current as processes restart. Only the
 * operator stops it: Ctrl-C or SIGTERM stops the frontier nodes, then the fetch nodes, then the
 * coordinators, then NATS and Redis. Each process logs to DIR/logs/<id>.log. With `--secure` every link
 * is TLS and every client authenticates (secure.ts: a CA and certificates in DIR/tls, passwords in
 * DIR/secrets.json); the ready text and cluster.json name the CA file clients need.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { AdminClient } from "../../adapters/http/index.ts";
import { parseRegionRules, regionsOf } from "../../core/cluster/index.ts";
import {
  between,
  ConfigError,
  dirKind,
  integerKind,
  policyFieldSpec,
  readConfig,
  stringKind,
  switchKind,
  tableRows,
  usageText,
  type Env,
  type FieldSpecs,
} from "../../core/config/index.ts";
import { LOG_FORMAT_FIELD, type LogFormat } from "../../kit/log/index.ts";
import { PROXY_URL_FIELD } from "../../kit/net/index.ts";
import { runMain, startStep, StartupError, type ProcessContext, type ProcessSpec } from "../../kit/main/index.ts";
import { lockDir } from "../../kit/fs/index.ts";
import { clusterFile, removeClusterFile, writeClusterFile, type Endpoints } from "./cluster-file.ts";
import { assignPorts, LayoutError, portsInUse, readLayout, writeLayout } from "./layout.ts";
import { clusterPartitions, MIN_NEW_PARTITIONS, PARTITIONS_PER_FRONTIER } from "./partition-count.ts";
import { coordinatorAddresses, planProcesses, portNames, START_ORDER, STOP_ORDER, type ProcessPlan } from "./plan.ts";
import { waitForProbe } from "./probes.ts";
import { checkReady } from "./readiness.ts";
import { prepareSecurity, securePlans, type SecureMaterial } from "./secure.ts";
import { Supervisor } from "./supervisor.ts";

/**
 * Between two looks at readiness (readiness.ts). A look costs the coordinator about 2 ms of CPU (four
 * admin API calls, two of them reading every node record; measured on a 2-core box); every 50 ms that is
 * a few per cent of a core for the second or two the start takes, and the cluster is declared ready a mean
 * 25 ms after it is, instead of 125 ms at the 250 ms it was.
 */
const READY_POLL_MS = 50;

/** The `cluster up` table; the flags it shares with the nodes (`--partitions`, `--proxy`...) share their env vars too. */
export interface UpSettings {
  coordinators: number;
  frontiers: number;
  fetchers: number;
  regions: number;
  proxyUrl: string | undefined;
  dir: string;
  /** Absent: the DIR's own, or a new DIR's default (partition-count.ts). */
  partitions: number | undefined;
  regionRules: string;
  allowPrivateAddresses: boolean;
  hostsFile: string;
  noDeno: boolean;
  readyTimeoutSeconds: number;
  secure: boolean;
  logFormat: LogFormat | undefined;
}

/** The settings and the frontier-node flags given after `--`. */
export interface UpOptions extends UpSettings {
  frontierArgs: string[];
}

const SPECS: FieldSpecs<UpSettings> = {
  coordinators: {
    default: 1,
    env: "CRAWL_CLUSTER_COORDINATORS",
    flag: "--coordinators",
    description: "Coordinators: the one holding the lease serves, the others stand by and take over when it dies",
    ...integerKind(between(1, 9)),
  },
  frontiers: {
    default: 2,
    env: "CRAWL_CLUSTER_FRONTIERS",
    flag: "--frontiers",
    description: "Frontier nodes, spread over the regions",
    ...integerKind({ min: 1 }),
  },
  fetchers: {
    default: 2,
    env: "CRAWL_CLUSTER_FETCHERS",
    flag: "--fetchers",
    description: "Fetch nodes, spread over the regions (the first on Deno when deno is on PATH)",
    ...integerKind({ min: 1 }),
  },
  regions: {
    default: 1,
    env: "CRAWL_CLUSTER_REGIONS",
    flag: "--regions",
    description: "Regions, named region-1 ... region-R, each with its own nats-server (joined by gateways) and redis-server",
    ...integerKind({ min: 1 }),
  },
  proxyUrl: {
    ...PROXY_URL_FIELD,
    defaultText: "none (each fetch node falls back to HTTP_PROXY / HTTPS_PROXY)",
    description: "HTTP forward proxy every fetch node sends every request through",
  },
  dir: {
    default: ".cluster",
    env: "CRAWL_CLUSTER_DIR",
    flag: "--dir",
    description:
      "Data of every process, fixed ports and token (layout.json), logs (DIR/logs/<id>.log); cluster.json is written there once ready. The same DIR resumes the same cluster",
    ...dirKind(),
  },
  partitions: {
    default: undefined,
    defaultText: `for a new DIR ${PARTITIONS_PER_FRONTIER} per frontier node, at least ${MIN_NEW_PARTITIONS}; then the DIR's own (layout.json)`,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P of the cluster, fixed for its life",
    ...integerKind(between(1, 4096)),
  },
  regionRules: {
    default: "",
    env: "CRAWL_REGION_RULES",
    flag: "--region-rules",
    description: 'Host suffixes per region, e.g. "region-2=.de,.fr" (needed with more than one region)',
    ...stringKind("rules"),
  },
  allowPrivateAddresses: {
    ...policyFieldSpec("allowPrivateAddresses"),
    description:
      "Let every role (seeds, admission, fetch) take loopback, private and link-local addresses and local names (tests, intranets)",
  },
  hostsFile: {
    ...policyFieldSpec("hostsFile"),
    description:
      "Names the fetch nodes (and the frontier nodes' `url explain`) resolve from this file before the system resolver, in the /etc/hosts format; its addresses still pass the address rules. Not used through a proxy",
  },
  noDeno: {
    default: false,
    env: "CRAWL_CLUSTER_NO_DENO",
    flag: "--no-deno",
    description: "Run every fetch node on Bun, even when deno is on PATH",
    ...switchKind(),
  },
  readyTimeoutSeconds: {
    default: 60,
    env: "CRAWL_CLUSTER_READY_TIMEOUT",
    flag: "--ready-timeout",
    description:
      "Seconds the cluster has to become ready (servers up, a coordinator leading, every node joined and serving its partitions)",
    ...integerKind({ min: 1 }),
  },
  secure: {
    default: false,
    env: "CRAWL_CLUSTER_SECURE",
    flag: "--secure",
    description:
      "TLS and authentication on every link: a CA and one certificate per process in DIR/tls, NATS per-role users, Redis's ACL user over TLS, gRPC mutual TLS, HTTPS (passwords in DIR/secrets.json)",
    ...switchKind(),
  },
  logFormat: LOG_FORMAT_FIELD,
};

export const CLUSTER_UP_FIELDS = tableRows(SPECS);

function clusterUsage(): string {
  return usageText(
    ["usage: bun run cluster up [options] [-- FRONTIER-NODE FLAGS...]"],
    [
      "Starts nats-server and redis-server per region, the coordinators, the frontier nodes and the fetch nodes,",
      "restarts any of them that dies (same id, data and ports), prints the admin URL, gRPC address and token",
      "and writes them with every process to DIR/cluster.json, and stops everything on Ctrl-C or SIGTERM.",
      'Flags after "--" go to every frontier node (policy flags such as --min-gap 200ms).',
    ],
    [{ title: "options (flag > env > default)", rows: CLUSTER_UP_FIELDS }],
  );
}

/** `up` and its options, or the help (`bun run cluster` alone). */
type Invocation = { help: true } | { help?: false; options: UpOptions };

class UpConfigError extends ConfigError.titled("invalid cluster up options") {}

/** Reads `up [options] [-- frontier flags]`; throws ConfigError listing every problem. */
export function parseUp(argv: readonly string[], env: Env = {}): UpOptions {
  const read = readConfig(argv, env, CLUSTER_UP_FIELDS, { rest: true, unknown: (_arg, name) => `unknown option ${name}` });
  const { values, problems } = read;
  if (problems.length === 0 && values.frontiers < values.regions)
    problems.push(`--frontiers must be at least --regions (${values.regions}): every region needs a frontier node`);
  if (problems.length === 0 && values.fetchers < values.regions)
    problems.push(`--fetchers must be at least --regions (${values.regions}): every region needs a fetch node`);
  if (problems.length === 0) for (const p of regionRuleProblems(values.regionRules, values.regions)) problems.push(p);
  for (const item of frontierFlagProblems(read.rest)) problems.push(item);
  if (problems.length > 0) throw new UpConfigError(problems);
  return { ...values, frontierArgs: read.rest };
}

/**
 * Frontier-node flags that cannot work on the servers `cluster up` runs: one nats-server per region keeps
 * one copy of a stream, so streams, the cluster-state bucket or replicated partition state asked to keep
 * more (`--nats-replicas`) could never be set up, and the frontier nodes would be restarted in vain.
 */
function frontierFlagProblems(args: readonly string[]): string[] {
  const replicas = args.flatMap((a, i) =>
    a === "--nats-replicas" ? [args[i + 1] ?? ""] : a.startsWith("--nats-replicas=") ? [a.slice("--nats-replicas=".length)] : [],
  );
  return replicas
    .filter((n) => n !== "1")
    .map((n) => `--nats-replicas ${n} after "--": cluster up runs one nats-server per region, which keeps one copy; leave it at 1`);
}

/** Every region but the first needs a rule (or no host would ever be crawled there), and rules name only regions that run. */
function regionRuleProblems(text: string, regions: number): string[] {
  const names = regionNames(regions);
  let named: string[];
  try {
    named = regionsOf(parseRegionRules(text, names[0]!));
  } catch (error) {
    return [`--region-rules: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  const unknown = named.filter((r) => !names.includes(r));
  if (unknown.length > 0) problems.push(`--region-rules names ${unknown.join(", ")}, but the regions are ${names.join(", ")}`);
  const idle = names.slice(1).filter((r) => !named.includes(r));
  if (idle.length > 0) problems.push(`--region-rules gives no host suffix to ${idle.join(", ")}: e.g. --region-rules "${idle[0]}=.de,.fr"`);
  return problems;
}

/** `region-1` ... `region-R`: the first is the default region. */
function regionNames(regions: number): string[] {
  return Array.from({ length: regions }, (_, i) => `region-${i + 1}`);
}

function resolveInvocation(argv: readonly string[], env: Env): Invocation {
  const [command, ...rest] = argv;
  if (command === undefined) return { help: true };
  if (command !== "up") throw new ConfigError(`unknown command '${command}' (the one command is up)`);
  return { options: parseUp(rest, env) };
}

export const clusterProcess: ProcessSpec<Invocation> = {
  name: "cluster",
  usage: clusterUsage,
  configure: resolveInvocation,
  logFormat: (invocation) => (invocation.help ? undefined : invocation.options.logFormat),
  stopNote: () => "stopping every process it started: frontier nodes, fetch nodes, coordinators, then NATS and Redis",
  abruptStopCost:
    "every process it started is killed at once (kill -9): frontier nodes resume from their stores at the next cluster up, tasks in flight are redelivered",
  async run(ctx) {
    if (ctx.config.help) {
      ctx.out(clusterUsage());
      return 0;
    }
    return up(ctx, ctx.config.options);
  },
};

async function up(ctx: ProcessContext<Invocation>, o: UpOptions): Promise<number> {
  const { log } = ctx;
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  const lock = lockDir(dir);
  if (!lock.ok) throw new StartupError(`another cluster up (pid ${lock.holder}) runs on ${dir}; stop it first, or give another --dir`);
  ctx.onClose("lock", () => lock.release());
  removeClusterFile(dir); // a previous run's, if it was killed: it points at nothing yet
  const regions = regionNames(o.regions);

  // Fixed ports and the token: the layout's when this DIR has run before, new ones for what it has not.
  const wanted = portNames({ regions, coordinators: o.coordinators, frontiers: o.frontiers, fetchers: o.fetchers });
  let stored;
  try {
    stored = readLayout(dir);
  } catch (error) {
    if (error instanceof LayoutError) throw new StartupError(error.message);
    throw error;
  }
  const count = clusterPartitions({ given: o.partitions, layout: stored, frontiers: o.frontiers });
  if ("problem" in count) throw new StartupError(count.problem);
  const { partitions } = count;
  const layout = await assignPorts({ ...(stored ?? { token: randomToken(), ports: {} }), partitions }, wanted);
  writeLayout(dir, layout);
  const ours = Object.fromEntries(Object.keys(wanted).map((id) => [id, layout.ports[id]!]));
  const busy = await portsInUse(ours);
  if (busy.length > 0) {
    throw new StartupError(
      `ports of this cluster are in use: ${busy.map((b) => `${b.port} (${b.name} of ${b.id})`).join(", ")}. ` +
        `Another program holds them; a cluster up killed with kill -9 leaves its processes running (their pids are in the old ` +
        `logs and cluster.json): stop them, or delete ${join(dir, "layout.json")} to choose new ports (and a new token)`,
    );
  }

  const deno = !o.noDeno && spawnSync("deno", ["--version"], { stdio: "ignore" }).status === 0;
  const plain = planProcesses({
    dir,
    regions,
    coordinators: o.coordinators,
    frontiers: o.frontiers,
    fetchers: o.fetchers,
    partitions,
    regionRules: o.regionRules,
    proxyUrl: o.proxyUrl,
    allowPrivateAddresses: o.allowPrivateAddresses,
    // Absolute: the nodes run from the repository's root, not from where cluster up was started.
    hostsFile: o.hostsFile ? resolve(o.hostsFile) : "",
    deno,
    token: layout.token,
    frontierArgs: o.frontierArgs,
    ports: layout.ports,
  });
  let security: SecureMaterial | undefined;
  if (o.secure) {
    try {
      security = await prepareSecurity(dir, plain);
    } catch (error) {
      throw new StartupError(`cannot prepare the TLS files and passwords in ${dir}: ${(error as Error).message}`);
    }
  }
  const plans = security ? securePlans(plain, security, { regions, ports: layout.ports, token: layout.token }) : plain;
  const coordinators = coordinatorAddresses(layout.ports, o.coordinators);
  const scheme = security ? "https" : "http";
  const endpoints: Endpoints = {
    adminUrls: coordinators.map((p) => `${scheme}://127.0.0.1:${p["http"]}`),
    grpcAddresses: coordinators.map((p) => `127.0.0.1:${p["grpc"]}`),
    token: layout.token,
    regions,
    tlsCaFile: security?.caFile,
  };
  const logDir = join(dir, "logs");

  // Before the cluster is ready, a process exiting 2 has a configuration error (a bad flag after --):
  // restarting it cannot help, so cluster up stops and says which.
  let ready = false;
  let fatal: string | undefined;
  const supervisor = new Supervisor({
    logDir,
    log: log.child("supervisor"),
    onChange: () => {
      if (ready) writeClusterFile(dir, clusterFile(endpoints, supervisor.status(), logDir));
    },
    onExit: (status, exit) => {
      if (!ready && exit.code === 2)
        fatal = `${status.plan.id} refused its configuration (exit 2); see ${join(logDir, `${status.plan.id}.log`)}`;
    },
  });
  // Close steps run last registered first: the processes (in order), then cluster.json, then the word.
  ctx.onClose("report", () => log.info("stopped"));
  ctx.onClose("cluster.json", () => removeClusterFile(dir));
  ctx.onClose("processes", () => supervisor.stop(STOP_ORDER));

  const deadline = Date.now() + o.readyTimeoutSeconds * 1000;
  const abandoned = () => fatal ?? (ctx.stopSignal.aborted ? "stopped by the operator" : undefined);
  for (const roles of START_ORDER) {
    const group = plans.filter((p) => roles.includes(p.role));
    for (const plan of group) supervisor.start(plan);
    await startStep(
      `start ${group.map((p) => p.id).join(", ")}`,
      `see their logs in ${logDir}${roles.includes("nats") ? " (nats-server and redis-server must be installed: apt-get install nats-server redis-server)" : ""}`,
      () => Promise.all(group.filter((p) => p.probe).map((p) => waitForProbe(p.id, p.probe!, { deadline, abandoned }))),
    ).catch((error: unknown) => {
      if (ctx.stopSignal.aborted) return;
      throw error;
    });
    if (ctx.stopSignal.aborted) return 0;
  }

  const admin = new AdminClient(endpoints.adminUrls, { token: layout.token, failoverMs: 0, timeoutMs: 5_000, ca: security?.caPem });
  let why = "not asked yet";
  while (!ready) {
    if (ctx.stopSignal.aborted) return 0;
    if (fatal) throw new StartupError(fatal);
    if (Date.now() > deadline) {
      throw new StartupError(`the cluster was not ready after ${o.readyTimeoutSeconds}s: ${why}; see the logs in ${logDir}`);
    }
    const look = await checkReady(admin, plans).catch((error: unknown) => ({ ready: false as const, why: (error as Error).message }));
    if (look.ready) ready = true;
    else {
      why = look.why;
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
  }
  writeClusterFile(dir, clusterFile(endpoints, supervisor.status(), logDir));
  ctx.out(readyText(o, plans, endpoints, deno, dir));
  log.info("ready", { dir, adminUrl: endpoints.adminUrls.join(","), grpcAddress: endpoints.grpcAddresses.join(",") });
  // Until Ctrl-C or SIGTERM; whatever dies meanwhile is started again.
  await ctx.stopRequested;
  return 0;
}

function readyText(o: UpOptions, plans: readonly ProcessPlan[], e: Endpoints, deno: boolean, dir: string): string {
  const grpc = e.grpcAddresses.join(",");
  const count = (role: ProcessPlan["role"]) => plans.filter((p) => p.role === role).length;
  const ca = e.tlsCaFile ? ` CRAWLCTL_TLS_CA_FILE=${e.tlsCaFile}` : "";
  return (
    `cluster ready: ${count("coordinator")} coordinator(s), ${count("frontier")} frontier node(s), ${count("fetch")} fetch node(s)` +
    `${deno ? " (fetch-1 on Deno)" : ""}, ${o.regions} region(s)${e.tlsCaFile ? ", TLS and authentication on every link" : ""}\n` +
    `  admin API     ${e.adminUrls.join(",")}  (Authorization: Bearer ${e.token})\n` +
    `  gRPC          ${grpc}\n` +
    `  token         ${e.token}\n` +
    (e.tlsCaFile ? `  CA            ${e.tlsCaFile}  (curl --cacert ${e.tlsCaFile} ...)\n` : "") +
    `  crawlctl      CRAWLCTL_COORDINATOR=${grpc} CRAWLCTL_TOKEN=${e.token}${ca} bun run crawlctl status\n` +
    `  processes     ${join(dir, "cluster.json")} (pids, ports, data), logs in ${join(dir, "logs")}\n` +
    "A process that dies is started again; Ctrl-C stops the cluster.\n"
  );
}

/** 32 random bytes as base64url: a token that fits the bearer-token syntax. */
function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Buffer.from(bytes).toString("base64url");
}

if (import.meta.main) await runMain(clusterProcess);

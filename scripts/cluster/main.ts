/**
 * `bun run cluster up`: a whole cluster on this machine, in the foreground. Per region a nats-server with
 * JetStream (joined by gateways when there are several regions) and a redis-server; one coordinator; N
 * frontier nodes; M fetch nodes (the first on Deno when Deno is installed). When the cluster is ready it
 * prints the admin URL, the gRPC address and the token, and writes them to DIR/cluster.json; Ctrl-C or
 * SIGTERM stops everything. Each process logs to DIR/logs/<name>.log.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
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
import { startNats, startNatsSupercluster, type NatsServer } from "../../tests/support/nats.ts";
import { startRedis, type RedisServer } from "../../tests/support/redis.ts";
import { Children } from "./children.ts";

/** The `cluster up` table; the flags it shares with the nodes (`--partitions`, `--proxy`...) share their env vars too. */
export interface UpSettings {
  frontiers: number;
  fetchers: number;
  regions: number;
  proxyUrl: string | undefined;
  dir: string;
  partitions: number;
  regionRules: string;
  allowPrivateAddresses: boolean;
  noDeno: boolean;
  readyTimeoutSeconds: number;
  logFormat: LogFormat | undefined;
}

/** The settings and the frontier-node flags given after `--`. */
export interface UpOptions extends UpSettings {
  frontierArgs: string[];
}

const SPECS: FieldSpecs<UpSettings> = {
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
    description: "State, WARC files and logs (DIR/logs/<process>.log); cluster.json is written there once ready",
    ...dirKind(),
  },
  partitions: {
    default: 64,
    env: "CRAWL_PARTITIONS",
    flag: "--partitions",
    description: "Partition count P of the cluster",
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
    description: "Seconds the cluster has to become ready (coordinator ready, every node joined)",
    ...integerKind({ min: 1 }),
  },
  logFormat: LOG_FORMAT_FIELD,
};

export const CLUSTER_UP_FIELDS = tableRows(SPECS);

function clusterUsage(): string {
  return usageText(
    ["usage: bun run cluster up [options] [-- FRONTIER-NODE FLAGS...]"],
    [
      "Starts nats-server and redis-server per region, a coordinator, the frontier nodes and the fetch nodes,",
      "prints the admin URL, gRPC address and token, writes them to DIR/cluster.json, and stops everything on",
      'Ctrl-C or SIGTERM. Flags after "--" go to every frontier node (policy flags such as --min-gap 200ms).',
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
  if (problems.length > 0) throw new UpConfigError(problems);
  return { ...values, frontierArgs: read.rest };
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
  stopNote: () => "stopping every process it started, frontier nodes first",
  abruptStopCost: "processes it started that did not get the signal too keep running; stop them by hand",
  async run(ctx) {
    if (ctx.config.help) {
      ctx.out(clusterUsage());
      return 0;
    }
    return up(ctx, ctx.config.options);
  },
};

async function up(ctx: ProcessContext<Invocation>, o: UpOptions): Promise<number> {
  const say = (text: string) => ctx.runtime.stderr(`cluster: ${text}\n`);
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, "cluster.json"), { force: true });
  const regions = Array.from({ length: o.regions }, (_, i) => `region-${i + 1}`);
  const token = crypto.randomUUID().replace(/-/g, "");
  const nats: Record<string, NatsServer> = {};
  const redis: Record<string, RedisServer> = {};
  // Close steps run last registered first: the processes, then the services, then cluster.json, then the word.
  ctx.onClose("report", () => say("stopped"));
  ctx.onClose("cluster.json", () => rmSync(join(dir, "cluster.json"), { force: true }));
  ctx.onClose("services", async () => {
    for (const r of Object.values(redis)) await r.stop();
    for (const n of Object.values(nats)) await n.stop();
  });
  let childFailed!: () => void;
  const failed = new Promise<void>((resolveFailed) => (childFailed = resolveFailed));
  let hasFailed = false;
  const children = new Children(join(dir, "logs"), (child, code) => {
    hasFailed = true;
    say(`${child.name} exited unexpectedly (code ${code}); see ${join(dir, "logs", `${child.name}.log`)}`);
    childFailed();
  });
  ctx.onClose("processes", async () => {
    say("stopping...");
    await children.stopAll(15_000);
  });

  await startStep(
    "start nats-server and redis-server",
    "check that both are installed (apt-get install nats-server redis-server)",
    async () => {
      if (regions.length === 1) nats[regions[0]!] = await startNats({ jetstream: true, storeDir: join(dir, "nats") });
      else Object.assign(nats, (await startNatsSupercluster(regions)).regions);
      for (const r of regions) redis[r] = await startRedis();
    },
  );

  /** A node's id, region and that region's servers. */
  const nodeArgs = (id: string, region: string) => [
    "--node-id",
    id,
    "--region",
    region,
    "--nats-url",
    nats[region]!.url,
    "--redis-url",
    redis[region]!.url,
  ];
  const common = [
    "--partitions",
    String(o.partitions),
    "--default-region",
    regions[0]!,
    ...(o.regionRules ? ["--region-rules", o.regionRules] : []),
    // Every role applies the address policy (seeds, admission, fetch), so every role gets the switch.
    ...(o.allowPrivateAddresses ? ["--allow-private-addresses"] : []),
  ];
  const grpcPort = await freePort();
  const httpPort = await freePort();
  children.start("coordinator", "bun", [
    "coordinator/main.ts",
    "--node-id",
    "coordinator-1",
    "--nats-url",
    Object.values(nats)
      .map((n) => n.url)
      .join(","),
    "--grpc-listen",
    `127.0.0.1:${grpcPort}`,
    "--http-listen",
    `127.0.0.1:${httpPort}`,
    "--admin-token",
    token,
    ...common,
  ]);
  const hasDeno = !o.noDeno && spawnSync("deno", ["--version"], { stdio: "ignore" }).status === 0;
  for (let i = 0; i < o.fetchers; i++) {
    const region = regions[i % regions.length]!;
    const warc = join(dir, `fetch-${i + 1}`, "warc");
    mkdirSync(warc, { recursive: true });
    const args = [
      "fetch-node/main.ts",
      ...nodeArgs(`fetch-${i + 1}`, region),
      "--warc-dir",
      warc,
      ...common,
      ...(o.proxyUrl ? ["--proxy", o.proxyUrl] : []),
    ];
    if (i === 0 && hasDeno) {
      children.start(`fetch-${i + 1}`, "deno", [
        "run",
        "--node-modules-dir=manual",
        "--no-lock",
        "--allow-net",
        "--allow-env",
        `--allow-read=${warc}`,
        `--allow-write=${warc}`,
        ...args,
      ]);
    } else {
      children.start(`fetch-${i + 1}`, "bun", args);
    }
  }

  // Frontier nodes start last so they stop first (children stop in reverse): a frontier node stopping
  // waits for the results of its tasks in flight, which need the fetch nodes still running.
  for (let i = 0; i < o.frontiers; i++) {
    const region = regions[i % regions.length]!;
    children.start(`frontier-${i + 1}`, "bun", [
      "frontier-node/main.ts",
      ...nodeArgs(`frontier-${i + 1}`, region),
      "--data-dir",
      join(dir, `frontier-${i + 1}`),
      ...common,
      ...o.frontierArgs,
    ]);
  }
  const adminUrl = `http://127.0.0.1:${httpPort}`;
  const ready = await waitReady(adminUrl, token, o, () => hasFailed || ctx.stopSignal.aborted);
  if (ctx.stopSignal.aborted) return 0;
  if (hasFailed) return 1;
  if (!ready.ok) {
    throw new StartupError(`the cluster was not ready after ${o.readyTimeoutSeconds}s: ${ready.why}; see the logs in ${join(dir, "logs")}`);
  }
  const info = { adminUrl, grpcAddress: `127.0.0.1:${grpcPort}`, token };
  writeFileSync(join(dir, "cluster.json"), `${JSON.stringify(info, null, 2)}\n`);
  ctx.out(
    `cluster ready: ${o.frontiers} frontier node(s), ${o.fetchers} fetch node(s)${hasDeno ? " (fetch-1 on Deno)" : ""}, ${regions.length} region(s)\n` +
      `  admin API     ${adminUrl}  (Authorization: Bearer ${token})\n` +
      `  gRPC          ${info.grpcAddress}\n` +
      `  token         ${token}\n` +
      `  crawlctl      CRAWLCTL_COORDINATOR=${info.grpcAddress} CRAWLCTL_TOKEN=${token} bun run crawlctl status\n` +
      `  state, logs   ${dir}\n` +
      "Ctrl-C stops the cluster.\n",
  );
  // Until Ctrl-C or SIGTERM (exit 0), or until a process dies (exit 1); the close steps stop the rest.
  return Promise.race([ctx.stopRequested.then(() => 0), failed.then(() => 1)]);
}

/**
 * Ready when the coordinator is ready, every node has joined, and the coordinator's totals (what
 * `crawlctl status` and /v1/stats show, refreshed every heartbeat) count every node too.
 */
async function waitReady(
  adminUrl: string,
  token: string,
  o: UpOptions,
  failed: () => boolean,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const deadline = Date.now() + o.readyTimeoutSeconds * 1000;
  const get = async <T>(path: string) =>
    (await (await fetch(`${adminUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })).json()) as T;
  let why = "coordinator not answering";
  while (Date.now() < deadline) {
    if (failed()) return { ok: false, why: "a process exited or the launcher was stopped" };
    try {
      const readyz = await fetch(`${adminUrl}/readyz`);
      if (readyz.ok) {
        const nodes = (await get<{ nodes?: Array<{ role: string; state?: string }> }>("/v1/nodes")).nodes ?? [];
        const live = nodes.filter((n) => n.state !== "dead");
        const frontiers = live.filter((n) => n.role === "frontier").length;
        const fetchers = live.filter((n) => n.role === "fetcher").length;
        why = `${frontiers}/${o.frontiers} frontier and ${fetchers}/${o.fetchers} fetch nodes joined`;
        if (frontiers >= o.frontiers && fetchers >= o.fetchers) {
          const totals = await get<{ frontierNodes: number; fetchNodes: number }>("/v1/stats");
          why = `the coordinator's totals count ${totals.frontierNodes}/${o.frontiers} frontier and ${totals.fetchNodes}/${o.fetchers} fetch nodes`;
          if (totals.frontierNodes >= o.frontiers && totals.fetchNodes >= o.fetchers) return { ok: true };
        }
      } else why = `coordinator /readyz answered ${readyz.status}`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ok: false, why };
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolvePort(port));
    });
  });
}

if (import.meta.main) await runMain(clusterProcess);

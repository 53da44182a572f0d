/**
 * What a local cluster runs, as data: one ProcessPlan per process (role, id, region, command line,
 * environment, ports, data directory, files written before each start, how to tell it is up), built from
 * the `cluster up` options and the layout's fixed ports. The supervisor runs plans without knowing roles;
 * a step that needs more per role (TLS files and credentials: secure.ts) maps over the plans and adds arguments,
 * environment or files before they are started.
 *
 * Ids: `nats-<region>`, `redis-<region>`, `coordinator-<i>`, `frontier-<i>`, `fetch-<i>`; frontier and
 * fetch nodes are spread over the regions in turn (node i in region ((i-1) mod R) + 1). Data lives under
 * DIR/<id>; the fetch nodes' WARC files in DIR/fetch-<i>/warc.
 */
import { allocatorEnv, envDefaults } from "../../kit/allocator-env.ts";
import { existsSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { PortMap } from "./layout.ts";
import { natsServerConfig, redisServerConfig } from "./server-configs.ts";

/** The repository root: the crawler's processes run from here, as `bun run` would run them. */
export const REPO_ROOT = resolve(import.meta.dir, "../..");

export type Role = "nats" | "redis" | "coordinator" | "frontier" | "fetch";

/**
 * How the supervisor tells, at start, that a process serves; with `ca` (PEM) the link is TLS checked
 * against it, and a secure Redis is asked as the crawler's user.
 */
export type Probe =
  | { kind: "http"; url: string; ca?: string }
  | { kind: "redis"; port: number; secure?: { ca: string; user: string; password: string } };

export interface ProcessPlan {
  role: Role;
  id: string;
  region: string;
  command: string;
  args: string[];
  /** Working directory: the repository root for the crawler's processes (their scripts are relative to it). */
  cwd: string;
  /** Added to the environment `cluster up` runs in. */
  env: Record<string, string>;
  ports: PortMap;
  /** Where the process keeps its state; null for the coordinator, which keeps none. */
  dataDir: string | null;
  /** Created before every start (the data directory, a WARC directory Deno is allowed to write). */
  dirs: string[];
  /** Written before every start (a server's configuration file). */
  files: Array<{ path: string; text: string; mode?: number }>;
  /** Waited for before the next group of roles starts; absent for nodes (cluster readiness covers them). */
  probe?: Probe;
  /** SIGTERM to SIGKILL on stop: the process's own stop grace and some margin. */
  stopGraceMs: number;
}

/**
 * Added to every crawler process's environment: one nats-server per region keeps one copy of each stream,
 * of the cluster-state bucket and of the replicated partition state, whatever the shell says
 * (CRAWL_NATS_REPLICAS > 1 could never be set up there, and the processes would be restarted in vain).
 */
const ONE_COPY: Readonly<Record<string, string>> = { CRAWL_NATS_REPLICAS: "1" };

/** What every crawler process starts with besides ONE_COPY: the allocator's settings (kit/allocator-env.ts). */
function crawlerEnv(): Record<string, string> {
  return { ...allocatorEnv(process.env), ...ONE_COPY };
}

/**
 * nats-server's environment: every process of `cluster up` shares one box, and Go's scheduler, given a
 * thread per core, spins threads looking for work between the short bursts each message brings; on a box
 * whose cores the crawler's other processes keep busy that spinning is CPU taken from them. One thread is
 * plenty for a local cluster's message rate: in the crawl benchmark (2 + 2 nodes, 2 cores) nats-server used
 * 9.3-9.7 CPU s instead of 12.2 for the same 45 s crawl, and the cluster fetched as much or more. A
 * GOMAXPROCS of the operator's own is kept.
 */
export function natsServerEnv(outer: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  return envDefaults({ GOMAXPROCS: "1" }, outer);
}

/**
 * The order processes start in, group by group. The roles start together once their servers answer: each
 * sets up the streams and buckets it needs, frontier nodes wait for the coordinator's first ring, and the
 * coordinator waits for the frontier nodes it expects; waiting for the coordinator's health first added its
 * start-up to the cluster's (cluster.json 1.30-1.34 s after the command instead of 1.38-1.47 s, 2-core box).
 */
export const START_ORDER: readonly (readonly Role[])[] = [
  ["nats", "redis"],
  ["coordinator", "fetch", "frontier"],
];
/** The order they stop in: frontier nodes first (they stop dispatching), then fetch nodes, coordinators, servers. */
export const STOP_ORDER: readonly (readonly Role[])[] = [["frontier"], ["fetch"], ["coordinator"], ["nats", "redis"]];

export interface PlanInput {
  dir: string;
  regions: readonly string[];
  coordinators: number;
  frontiers: number;
  fetchers: number;
  partitions: number;
  regionRules: string;
  proxyUrl: string | undefined;
  allowPrivateAddresses: boolean;
  /** `--hosts-file` (absolute) for the roles that resolve names: fetch and frontier nodes; "" for none. */
  hostsFile: string;
  /** Run fetch-1 on Deno. */
  deno: boolean;
  token: string;
  /** Flags after `--`, for every frontier node. */
  frontierArgs: readonly string[];
  /** Ports by process id (portNames says which each needs). */
  ports: Record<string, PortMap>;
}

/** Process ids and the names of the ports each needs. */
export function portNames(input: Pick<PlanInput, "regions" | "coordinators" | "frontiers" | "fetchers">): Record<string, string[]> {
  const names: Record<string, string[]> = {};
  const multi = input.regions.length > 1;
  for (const region of input.regions) {
    names[`nats-${region}`] = multi ? ["client", "monitor", "route", "gateway"] : ["client", "monitor"];
    names[`redis-${region}`] = ["redis"];
  }
  for (let i = 1; i <= input.coordinators; i++) names[`coordinator-${i}`] = ["grpc", "http"];
  for (let i = 1; i <= input.fetchers; i++) names[`fetch-${i}`] = ["http"];
  for (let i = 1; i <= input.frontiers; i++) names[`frontier-${i}`] = ["grpc", "http"];
  return names;
}

/** The region of the i-th (1-based) frontier or fetch node. */
export function regionOfNode(regions: readonly string[], i: number): string {
  return regions[(i - 1) % regions.length]!;
}

export const natsUrl = (ports: Record<string, PortMap>, region: string) => `nats://127.0.0.1:${ports[`nats-${region}`]!["client"]}`;
export const redisUrl = (ports: Record<string, PortMap>, region: string) => `redis://127.0.0.1:${ports[`redis-${region}`]!["redis"]}`;
export const coordinatorAddresses = (ports: Record<string, PortMap>, coordinators: number) =>
  Array.from({ length: coordinators }, (_, i) => ports[`coordinator-${i + 1}`]!);

export function planProcesses(input: PlanInput): ProcessPlan[] {
  const { dir, regions, ports } = input;
  const bun = process.execPath;
  const defaultRegion = regions[0]!;
  const shared = [
    "--partitions",
    String(input.partitions),
    "--default-region",
    defaultRegion,
    ...(input.regionRules ? ["--region-rules", input.regionRules] : []),
    // Every role applies the address policy (seeds, admission, fetch), so every role gets the switch.
    ...(input.allowPrivateAddresses ? ["--allow-private-addresses"] : []),
  ];
  // Fetch nodes dial the names it gives; frontier nodes find a URL's server with it (`url explain`). The
  // coordinator resolves no names.
  const resolving = input.hostsFile ? ["--hosts-file", input.hostsFile] : [];
  const plans: ProcessPlan[] = [];
  const gatewayPorts = Object.fromEntries(regions.map((r) => [r, ports[`nats-${r}`]!["gateway"] ?? 0]));

  for (const region of regions) {
    const id = `nats-${region}`;
    const p = ports[id]!;
    const dataDir = join(dir, id);
    const conf = join(dir, `${id}.conf`);
    plans.push({
      role: "nats",
      id,
      region,
      command: natsServerBinary(),
      args: ["-c", conf],
      cwd: dir,
      env: natsServerEnv(),
      ports: p,
      dataDir,
      dirs: [dataDir],
      files: [
        {
          path: conf,
          text: natsServerConfig({
            region,
            regions,
            storeDir: dataDir,
            ports: { client: p["client"]!, monitor: p["monitor"]!, route: p["route"], gateway: p["gateway"] },
            gatewayPorts,
          }),
        },
      ],
      probe: { kind: "http", url: `http://127.0.0.1:${p["monitor"]}/healthz` },
      stopGraceMs: 10_000,
    });
  }
  for (const region of regions) {
    const id = `redis-${region}`;
    const p = ports[id]!;
    const dataDir = join(dir, id);
    const conf = join(dir, `${id}.conf`);
    plans.push({
      role: "redis",
      id,
      region,
      command: redisServerBinary(),
      args: [conf],
      cwd: dir,
      env: {},
      ports: p,
      dataDir,
      dirs: [dataDir],
      files: [{ path: conf, text: redisServerConfig({ port: p["redis"]!, dataDir }) }],
      probe: { kind: "redis", port: p["redis"]! },
      stopGraceMs: 10_000,
    });
  }

  for (let i = 1; i <= input.coordinators; i++) {
    const id = `coordinator-${i}`;
    const p = ports[id]!;
    plans.push({
      role: "coordinator",
      id,
      region: defaultRegion,
      command: bun,
      args: [
        "coordinator/main.ts",
        "--node-id",
        id,
        // The default region's server only: the cluster-state bucket is created there (by the first
        // coordinator), so losing another region's server never takes membership and the ring with it.
        "--nats-url",
        natsUrl(ports, defaultRegion),
        "--grpc-listen",
        `127.0.0.1:${p["grpc"]}`,
        "--http-listen",
        `127.0.0.1:${p["http"]}`,
        "--admin-token",
        input.token,
        // The frontier nodes start together: the first ring gives each its share (no start-up handoffs).
        "--expect-frontiers",
        String(input.frontiers),
        ...shared,
      ],
      cwd: REPO_ROOT,
      env: crawlerEnv(),
      ports: p,
      dataDir: null,
      dirs: [],
      files: [],
      probe: { kind: "http", url: `http://127.0.0.1:${p["http"]}/healthz` },
      stopGraceMs: 10_000,
    });
  }

  for (let i = 1; i <= input.fetchers; i++) {
    const id = `fetch-${i}`;
    const region = regionOfNode(regions, i);
    const p = ports[id]!;
    const dataDir = join(dir, id);
    const warc = join(dataDir, "warc");
    const args = [
      "fetch-node/main.ts",
      ...nodeIdentity(id, region, ports),
      "--warc-dir",
      warc,
      "--http-listen",
      `127.0.0.1:${p["http"]}`,
      ...shared,
      ...resolving,
      ...(input.proxyUrl ? ["--proxy", input.proxyUrl] : []),
    ];
    const onDeno = i === 1 && input.deno;
    plans.push({
      role: "fetch",
      id,
      region,
      command: onDeno ? "deno" : bun,
      args: onDeno
        ? [
            "run",
            "--node-modules-dir=manual",
            "--no-lock",
            "--allow-net",
            "--allow-env",
            `--allow-read=${[warc, ...(input.hostsFile ? [input.hostsFile] : [])].join(",")}`,
            `--allow-write=${warc}`,
            ...args,
          ]
        : args,
      cwd: REPO_ROOT,
      env: crawlerEnv(),
      ports: p,
      dataDir,
      // The WARC directory must exist before Deno is given it in --allow-read and --allow-write.
      dirs: [dataDir, warc],
      files: [],
      stopGraceMs: 35_000,
    });
  }

  for (let i = 1; i <= input.frontiers; i++) {
    const id = `frontier-${i}`;
    const region = regionOfNode(regions, i);
    const p = ports[id]!;
    const dataDir = join(dir, id);
    plans.push({
      role: "frontier",
      id,
      region,
      command: bun,
      args: [
        "frontier-node/main.ts",
        ...nodeIdentity(id, region, ports),
        "--data-dir",
        dataDir,
        "--grpc-listen",
        `127.0.0.1:${p["grpc"]}`,
        "--http-listen",
        `127.0.0.1:${p["http"]}`,
        ...shared,
        ...resolving,
        ...input.frontierArgs,
      ],
      cwd: REPO_ROOT,
      env: crawlerEnv(),
      ports: p,
      dataDir,
      dirs: [dataDir],
      files: [],
      stopGraceMs: 30_000,
    });
  }
  return plans;
}

function nodeIdentity(id: string, region: string, ports: Record<string, PortMap>): string[] {
  return ["--node-id", id, "--region", region, "--nats-url", natsUrl(ports, region), "--redis-url", redisUrl(ports, region)];
}

/** nats-server: $NATS_SERVER, else the first on PATH, else Debian's /usr/sbin one. */
export function natsServerBinary(): string {
  return findBinary("nats-server", process.env["NATS_SERVER"]);
}

/** redis-server: $REDIS_SERVER, else the first on PATH, else /usr/bin. */
export function redisServerBinary(): string {
  return findBinary("redis-server", process.env["REDIS_SERVER"]);
}

function findBinary(name: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const dirs = (process.env["PATH"] ?? "").split(delimiter).filter(Boolean);
  for (const d of [...dirs, "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]) {
    const candidate = join(d, name);
    if (existsSync(candidate)) return candidate;
  }
  return name;
}

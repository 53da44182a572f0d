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
import { startNats, startNatsSupercluster, type NatsServer } from "../../tests/support/nats.ts";
import { startRedis, type RedisServer } from "../../tests/support/redis.ts";
import { Children } from "./children.ts";

interface UpOptions {
  frontiers: number;
  fetchers: number;
  regions: number;
  proxy?: string;
  dir: string;
  partitions: number;
  regionRules?: string;
  allowPrivate: boolean;
  deno: "auto" | "never";
  frontierArgs: string[];
  readyTimeoutMs: number;
}

const USAGE = `usage: bun run cluster up [--frontiers N] [--fetchers M] [--regions R] [--proxy URL] [--dir DIR]
                          [--partitions P] [--region-rules RULES] [--allow-private-addresses]
                          [--no-deno] [-- FRONTIER-NODE FLAGS...]

Starts nats-server and redis-server per region, a coordinator, N frontier nodes (default 2) and M fetch
nodes (default 2, the first on Deno when deno is on PATH), prints the admin URL, gRPC address and token,
writes them to DIR/cluster.json (default DIR .cluster), and stops everything on Ctrl-C or SIGTERM.
Regions are named region-1 ... region-R; with R > 1 give --region-rules ("region-2=.de,.fr").
Flags after "--" go to every frontier node (policy flags such as --min-gap 200ms).
`;

export function parseUp(argv: string[]): UpOptions {
  const o: UpOptions = {
    frontiers: 2,
    fetchers: 2,
    regions: 1,
    dir: ".cluster",
    partitions: 64,
    allowPrivate: false,
    deno: "auto",
    frontierArgs: [],
    readyTimeoutMs: 60_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = (min: number) => {
      const v = val();
      if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${a} must be a whole number >= ${min}`);
      return Number(v);
    };
    if (a === "--") {
      o.frontierArgs = argv.slice(i + 1);
      break;
    } else if (a === "--frontiers") o.frontiers = int(1);
    else if (a === "--fetchers") o.fetchers = int(1);
    else if (a === "--regions") o.regions = int(1);
    else if (a === "--partitions") o.partitions = int(1);
    else if (a === "--proxy") o.proxy = val();
    else if (a === "--dir") o.dir = val();
    else if (a === "--region-rules") o.regionRules = val();
    else if (a === "--allow-private-addresses") o.allowPrivate = true;
    else if (a === "--no-deno") o.deno = "never";
    else if (a === "--ready-timeout") o.readyTimeoutMs = int(1) * 1000;
    else throw new Error(`unknown option ${a}`);
  }
  if (o.frontiers < o.regions) throw new Error(`--frontiers must be at least --regions (${o.regions}): every region needs a frontier node`);
  if (o.fetchers < o.regions) throw new Error(`--fetchers must be at least --regions (${o.regions}): every region needs a fetch node`);
  return o;
}

async function up(o: UpOptions): Promise<number> {
  const dir = resolve(o.dir);
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, "cluster.json"), { force: true });
  const regions = Array.from({ length: o.regions }, (_, i) => `region-${i + 1}`);
  const token = crypto.randomUUID().replace(/-/g, "");
  const nats: Record<string, NatsServer> = {};
  const redis: Record<string, RedisServer> = {};
  let stopServices = async () => {};
  let failed = false;
  const children = new Children(join(dir, "logs"), (child, code) => {
    failed = true;
    process.stderr.write(`cluster: ${child.name} exited unexpectedly (code ${code}); see ${join(dir, "logs", `${child.name}.log`)}\n`);
    void shutdown(1);
  });
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (code: number) =>
    (shuttingDown ??= (async () => {
      process.stderr.write("cluster: stopping...\n");
      await children.stopAll(15_000);
      await stopServices();
      rmSync(join(dir, "cluster.json"), { force: true });
      process.stderr.write("cluster: stopped\n");
      process.exit(code);
    })());
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));

  try {
    if (regions.length === 1) nats[regions[0]!] = await startNats({ jetstream: true, storeDir: join(dir, "nats") });
    else Object.assign(nats, (await startNatsSupercluster(regions)).regions);
    for (const r of regions) redis[r] = await startRedis();
    stopServices = async () => {
      for (const r of Object.values(redis)) await r.stop();
      for (const n of Object.values(nats)) await n.stop();
    };
  } catch (error) {
    process.stderr.write(`cluster: could not start nats-server / redis-server: ${(error as Error).message}\n`);
    await stopServices();
    return 1;
  }

  const common = [
    "--partitions",
    String(o.partitions),
    "--default-region",
    regions[0]!,
    ...(o.regionRules ? ["--region-rules", o.regionRules] : []),
    // Every role applies the address policy (seeds, admission, fetch), so every role gets the switch.
    ...(o.allowPrivate ? ["--allow-private-addresses"] : []),
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
  const hasDeno = o.deno === "auto" && spawnSync("deno", ["--version"], { stdio: "ignore" }).status === 0;
  for (let i = 0; i < o.fetchers; i++) {
    const region = regions[i % regions.length]!;
    const warc = join(dir, `fetch-${i + 1}`, "warc");
    mkdirSync(warc, { recursive: true });
    const args = [
      "fetch-node/main.ts",
      "--node-id",
      `fetch-${i + 1}`,
      "--region",
      region,
      "--nats-url",
      nats[region]!.url,
      "--redis-url",
      redis[region]!.url,
      "--warc-dir",
      warc,
      ...common,
      ...(o.proxy ? ["--proxy", o.proxy] : []),
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
      "--node-id",
      `frontier-${i + 1}`,
      "--region",
      region,
      "--nats-url",
      nats[region]!.url,
      "--redis-url",
      redis[region]!.url,
      "--data-dir",
      join(dir, `frontier-${i + 1}`),
      ...common,
      ...o.frontierArgs,
    ]);
  }
  const adminUrl = `http://127.0.0.1:${httpPort}`;
  const ready = await waitReady(adminUrl, token, o, () => failed);
  if (!ready.ok) {
    process.stderr.write(`cluster: not ready after ${o.readyTimeoutMs / 1000}s: ${ready.why}; logs in ${join(dir, "logs")}\n`);
    await shutdown(1);
    return 1;
  }
  const info = { adminUrl, grpcAddress: `127.0.0.1:${grpcPort}`, token };
  writeFileSync(join(dir, "cluster.json"), `${JSON.stringify(info, null, 2)}\n`);
  process.stdout.write(
    `cluster ready: ${o.frontiers} frontier node(s), ${o.fetchers} fetch node(s)${hasDeno ? " (fetch-1 on Deno)" : ""}, ${regions.length} region(s)\n` +
      `  admin API     ${adminUrl}  (Authorization: Bearer ${token})\n` +
      `  gRPC          ${info.grpcAddress}\n` +
      `  token         ${token}\n` +
      `  crawlctl      CRAWLCTL_COORDINATOR=${info.grpcAddress} CRAWLCTL_TOKEN=${token} bun run crawlctl status\n` +
      `  state, logs   ${dir}\n` +
      "Ctrl-C stops the cluster.\n",
  );
  await new Promise(() => {});
  return 0;
}

/** Ready when the coordinator is ready and every node has joined. */
async function waitReady(
  adminUrl: string,
  token: string,
  o: UpOptions,
  failed: () => boolean,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const deadline = Date.now() + o.readyTimeoutMs;
  let why = "coordinator not answering";
  while (Date.now() < deadline) {
    if (failed()) return { ok: false, why: "a process exited" };
    try {
      const readyz = await fetch(`${adminUrl}/readyz`);
      if (readyz.ok) {
        const res = await fetch(`${adminUrl}/v1/nodes`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { nodes?: Array<{ role: string; state?: string; status?: string }> };
        const nodes = body.nodes ?? [];
        const live = nodes.filter((n) => n.state !== "dead");
        const frontiers = live.filter((n) => n.role === "frontier").length;
        const fetchers = live.filter((n) => n.role === "fetcher").length;
        why = `${frontiers}/${o.frontiers} frontier and ${fetchers}/${o.fetchers} fetch nodes joined`;
        if (frontiers >= o.frontiers && fetchers >= o.fetchers) return { ok: true };
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

if (import.meta.main) {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd !== "up" || rest.includes("--help")) {
    process.stdout.write(USAGE);
    process.exit(cmd === "up" || cmd === "--help" || cmd === undefined ? 0 : 2);
  }
  let opts: UpOptions;
  try {
    opts = parseUp(rest);
  } catch (error) {
    process.stderr.write(`cluster: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  process.exitCode = await up(opts);
}

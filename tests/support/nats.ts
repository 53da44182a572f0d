/**
 * Real nats-server processes for tests, the way nats.js tests its own client: each server listens on
 * 127.0.0.1 on a port the server picks itself (`-p -1`, so there is no race between choosing a free port
 * and binding it), keeps its JetStream store in a fresh temporary directory, and is ready when its log
 * says so (never after a fixed sleep). `stop()` kills it and removes the directory; a server still running
 * when the test process exits is killed too.
 *
 *   const nats = await startNats({ jetstream: true });
 *   try { ... connectNats([nats.url], "test") ... } finally { await nats.stop(); }
 *
 * `startNatsSupercluster(["us", "eu"])` starts one server per region, each its own cluster (named after
 * the region), joined by gateways, so a message published in one region reaches a subscriber in the other.
 * JetStream then runs as one supercluster-wide meta group; because the clusters are named after the
 * regions, a JetStreamBus keeps its own region's streams in its own cluster, and one given every region
 * (the coordinator's) places each region's streams in that region's cluster (adapters/nats/jetstream-bus.ts).
 * `startNatsCluster()` starts one region's cluster of 3 servers joined by routes (streams with 3 replicas
 * survive losing one); `kill(i)` and `restart(i)` stop a member as a crash would and bring it back with
 * its ports and store directory.
 *
 * Starting one takes about 10 s: nats-server 2.9 waits for routes before it elects a meta leader, and
 * JetStream in a supercluster needs a configured route even for a one-server cluster (we give it a
 * route to itself). Per-region JetStream domains would be the other design; 2.9 never elects a meta
 * leader with them here.
 *
 * Uses node:child_process and nats.js only, so the helper also runs under Deno.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { unusedPort } from "../../kit/net/index.ts";

export interface NatsServer {
  /** nats://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** The -sd directory; removed by stop() unless the caller passed it in. */
  readonly storeDir: string;
  readonly pid: number;
  /** Everything the server logged so far. */
  log(): string;
  /** Stops the server (SIGTERM, then SIGKILL after a grace period) and removes what it created. Idempotent. */
  stop(): Promise<void>;
  /** Kills the server at once (SIGKILL), as a crash would; the store directory stays until stop(). */
  kill(): Promise<void>;
}

export interface StartNatsOptions {
  /** Enables JetStream (`-js`). Default true. */
  jetstream?: boolean;
  /** A fixed port, e.g. to restart a server where it was; default: the server picks a free one. */
  port?: number;
  /** Reuse this store directory (it is then the caller's and never removed); default: a fresh temp dir. */
  storeDir?: string;
  /** How long to wait for "Server is ready". Default 10 s. */
  startupTimeoutMs?: number;
  /** Extra command-line arguments. */
  args?: string[];
  /**
   * The address to listen on, default 127.0.0.1; `url` names it. Another one (a network lab's server
   * address, tests/support/netns.ts) lets processes in network namespaces reach the server.
   */
  host?: string;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Starts one nats-server on 127.0.0.1 (or `host`) and resolves when it accepts clients. */
export async function startNats(opts: StartNatsOptions = {}): Promise<NatsServer> {
  const ownsDir = opts.storeDir === undefined;
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), "nats-test-"));
  const args = ["-a", opts.host ?? "127.0.0.1", "-p", String(opts.port ?? -1), "-sd", storeDir];
  if (opts.jetstream ?? true) args.unshift("-js");
  for (const item of opts.args ?? []) args.push(item);
  try {
    return await launch(args, storeDir, ownsDir, opts.startupTimeoutMs ?? 10_000);
  } catch (err) {
    if (ownsDir) rmSync(storeDir, { recursive: true, force: true });
    throw err;
  }
}

export interface Supercluster {
  /** One server per region, in the order given. */
  readonly regions: Record<string, NatsServer>;
  stop(): Promise<void>;
}

/**
 * Starts one JetStream server per region, each a cluster of its own named after the region, joined by
 * gateways. Resolves once every gateway link is up (each server logs an outbound gateway connection to
 * every other region), so a publish in one region is routed to subscribers in the others.
 */
export interface SuperclusterOptions {
  startupTimeoutMs?: number;
  /**
   * Per region, the address its server listens on for clients, its route and its gateway (default
   * 127.0.0.1): e.g. a network lab's server address, or a namespace's own address.
   */
  listenOn?: Readonly<Record<string, string>>;
  /** Per region, how its server's command is run: e.g. inside a network namespace (`Netns.exec`). */
  execIn?: Readonly<Record<string, (cmd: string[]) => string[]>>;
}

export async function startNatsSupercluster(regions: readonly string[], opts: SuperclusterOptions = {}): Promise<Supercluster> {
  if (regions.length < 2) throw new Error("a supercluster needs at least two regions");
  const timeout = opts.startupTimeoutMs ?? 30_000;
  // Each region's route port is picked free and bound by nats-server a moment later; under a busy suite
  // another test's server can take it in between, and that start fails. Try again on new ports.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startSuperclusterOnce(regions, timeout, opts);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startSuperclusterOnce(regions: readonly string[], timeout: number, opts: SuperclusterOptions): Promise<Supercluster> {
  const hostOf = (region: string) => opts.listenOn?.[region] ?? "127.0.0.1";
  const started: Record<string, NatsServer> = {};
  const gatewayPorts: Record<string, number> = {};
  try {
    // The first region listens for gateways on a port it picks; the others point at it, and gateway gossip
    // tells every server about every other one.
    const seed = regions[0]!;
    const secret = randomBytes(12).toString("hex");
    for (const region of regions) {
      const dir = mkdtempSync(join(tmpdir(), `nats-${region}-`));
      const seedGateway = region === seed ? [] : [{ name: seed, url: `nats://gateway:${secret}@${hostOf(seed)}:${gatewayPorts[seed]}` }];
      const conf = join(dir, "server.conf");
      writeFileSync(conf, superclusterConfig(region, dir, hostOf(region), await unusedPort(), seedGateway, secret));
      const server = await launch(["-c", conf], dir, true, timeout, opts.execIn?.[region]);
      started[region] = server;
      const gw = new RegExp(`Listening for gateways? connections on ${hostOf(region).replaceAll(".", "\\.")}:(\\d+)`).exec(server.log());
      if (!gw) throw new Error(`nats-server of ${region} did not report its gateway port:\n${server.log()}`);
      gatewayPorts[region] = Number(gw[1]);
    }
    const gatewaysUp = (region: string) => (log: string) =>
      regions.every((other) => other === region || new RegExp(`Outbound gateway connection to "${other}"[^\\n]*registered`).test(log));
    const metaLeader = (log: string) =>
      /(Self is new JetStream cluster metadata leader|JetStream cluster new (remote )?metadata leader)/.test(log);
    await Promise.all(
      regions.map((region) =>
        waitForLog(started[region]!, (log) => gatewaysUp(region)(log) && metaLeader(log), timeout, `gateways and JetStream of ${region}`),
      ),
    );
  } catch (err) {
    await Promise.all(Object.values(started).map((s) => s.stop()));
    throw err;
  }
  return {
    regions: started,
    stop: async () => {
      await Promise.all(Object.values(started).map((s) => s.stop()));
    },
  };
}

export interface NatsCluster {
  /** The servers, in order; a restarted one replaces its entry. */
  readonly servers: readonly NatsServer[];
  /** Every server's client URL, as a node's --nats-url lists them. */
  readonly urls: readonly string[];
  /** Kills server `i` at once (SIGKILL), as a crash would; its store directory and ports stay. */
  kill(i: number): Promise<void>;
  /**
   * Starts server `i` again with its configuration, ports and store directory, and resolves once it is
   * ready and routed to every other server that runs (it then catches up on its streams by itself).
   */
  restart(i: number): Promise<NatsServer>;
  stop(): Promise<void>;
}

/**
 * Starts a JetStream cluster of `size` servers (default 3) named `name`, joined by routes, each with its
 * own client port and store directory: the shape of one region's NATS in a fleet, where streams keep 3
 * replicas and losing one server loses nothing. Resolves once every server is ready, routed to all the
 * others, the cluster has elected its JetStream meta leader, and it can place a stream with `size` replicas. Route ports are chosen free beforehand
 * (a JetStream cluster needs its routes configured up front); a start that loses one of them to another
 * process is tried again on new ones.
 */
export async function startNatsCluster(opts: { size?: number; name?: string; startupTimeoutMs?: number } = {}): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const name = opts.name ?? "region";
  const timeout = opts.startupTimeoutMs ?? 30_000;
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const taken = new Set<number>();
    const routePorts: number[] = [];
    for (let i = 0; i < size; i++) routePorts.push(await unusedPort(taken));
    // Routes need this cluster's own secret, so a server of another test that dials a reused port cannot join (superclusterConfig).
    const secret = randomBytes(12).toString("hex");
    const dirs = Array.from({ length: size }, (_, i) => mkdtempSync(join(tmpdir(), `nats-${name}-${i + 1}-`)));
    const clientPorts: (number | undefined)[] = Array.from({ length: size }, () => undefined);
    const servers: NatsServer[] = [];
    const configFor = (i: number) => {
      const conf = join(dirs[i]!, "server.conf");
      writeFileSync(conf, clusterMemberConfig(name, i, dirs[i]!, clientPorts[i], routePorts, secret));
      return conf;
    };
    const routed = (i: number) => (log: string) => (log.match(/Route connection created/g)?.length ?? 0) >= size - 1;
    const metaLeader = (log: string) => /(Self is new JetStream cluster metadata leader|JetStream cluster new metadata leader)/.test(log);
    try {
      for (let i = 0; i < size; i++) {
        const server = await launch(["-c", configFor(i)], dirs[i]!, false, timeout);
        servers.push(server);
        clientPorts[i] = server.port;
      }
      await Promise.all(servers.map((server, i) => waitForLog(server, routed(i), timeout, `routes of ${name} server ${i + 1}`)));
      await Promise.race(servers.map((server) => waitForLog(server, metaLeader, timeout, `the JetStream meta leader of ${name}`)));
      await waitForReplicaPlacement(
        servers.map((server) => server.url),
        size,
        timeout,
      );
    } catch (err) {
      lastError = err;
      await Promise.all(servers.map((server) => server.stop()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      continue;
    }
    const down = new Set<number>();
    const cluster: NatsCluster = {
      servers,
      get urls() {
        return servers.map((server) => server.url);
      },
      async kill(i) {
        down.add(i);
        await servers[i]!.kill();
      },
      async restart(i) {
        await servers[i]!.stop();
        const server = await launch(["-c", configFor(i)], dirs[i]!, false, timeout);
        servers[i] = server;
        down.delete(i);
        const running = size - 1 - down.size;
        await waitForLog(
          server,
          (log) => (log.match(/Route connection created/g)?.length ?? 0) >= running,
          timeout,
          `routes of restarted ${name} server ${i + 1}`,
        );
        return server;
      },
      async stop() {
        await Promise.all(servers.map((server) => server.stop()));
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      },
    };
    return cluster;
  }
  throw lastError;
}

/**
 * Waits until the cluster can place a stream with `replicas` copies. The meta leader is elected before it
 * has heard from every peer's JetStream, and meanwhile creating a replicated stream fails with "no suitable
 * peers for placement" (seen: the coordinator's cluster-state bucket refused at start). A probe stream is
 * created (in memory) and deleted.
 */
async function waitForReplicaPlacement(urls: string[], replicas: number, timeoutMs: number): Promise<void> {
  const nc = await connect({ servers: urls, name: "cluster-probe" });
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  try {
    const jsm = await jetstreamManager(nc);
    while (Date.now() < deadline) {
      try {
        await jsm.streams.add({ name: "CLUSTER_PROBE", subjects: ["cluster.probe"], num_replicas: replicas, storage: StorageType.Memory });
        await jsm.streams.delete("CLUSTER_PROBE");
        return;
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  } finally {
    await nc.close();
  }
  throw new Error(`the cluster could not place a stream with ${replicas} replicas within ${timeoutMs} ms: ${String(lastError)}`);
}

/** A member of a routed JetStream cluster: its client port fixed once known, routes to every member (itself included: ignored). */
function clusterMemberConfig(
  name: string,
  i: number,
  dir: string,
  clientPort: number | undefined,
  routePorts: number[],
  secret: string,
): string {
  const routes = routePorts.map((port) => `"nats://route:${secret}@127.0.0.1:${port}"`).join(", ");
  return [
    `server_name: "${name}-${i + 1}"`,
    `listen: "127.0.0.1:${clientPort ?? -1}"`,
    `jetstream { store_dir: "${dir}" }`,
    `cluster { name: "${name}", listen: "127.0.0.1:${routePorts[i]}", authorization { user: "route", password: "${secret}" }, routes: [${routes}] }`,
    "",
  ].join("\n");
}

function superclusterConfig(
  region: string,
  dir: string,
  host: string,
  routePort: number,
  gateways: { name: string; url: string }[],
  secret: string,
): string {
  const gatewayList = gateways.map((g) => `{ name: "${g.name}", urls: ["${g.url}"] }`).join(", ");
  // Routes and gateways need this supercluster's secret: every test's supercluster names its clusters and
  // servers alike (us, eu-1...), and a server of another test that dials a port this one reuses (its old
  // route or gateway peer, say) would otherwise join it, and a stream placed "in eu" could land on that
  // stranger (seen: a publish to a frozen region was stored and confirmed).
  return [
    `server_name: "${region}-1"`,
    `listen: "${host}:-1"`,
    `jetstream { store_dir: "${dir}" }`,
    `cluster { name: "${region}", listen: "${host}:${routePort}", authorization { user: "route", password: "${secret}" }, routes: ["nats://route:${secret}@${host}:${routePort}"] }`,
    `gateway { name: "${region}", listen: "${host}:-1", authorization { user: "gateway", password: "${secret}" }, gateways: [${gatewayList}] }`,
    "",
  ].join("\n");
}

/** The nats-server binary: $NATS_SERVER, else the first on PATH, else Debian's /usr/sbin one. */
export function natsServerBinary(): string {
  const fromEnv = process.env["NATS_SERVER"];
  if (fromEnv) return fromEnv;
  const dirs = (process.env["PATH"] ?? "").split(delimiter).filter(Boolean);
  for (const dir of [...dirs, "/usr/sbin", "/usr/local/sbin", "/usr/local/bin"]) {
    const candidate = join(dir, "nats-server");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error("nats-server not found: install it (apt-get install nats-server) or set NATS_SERVER");
}

async function launch(
  args: string[],
  storeDir: string,
  ownsDir: boolean,
  timeoutMs: number,
  execIn: (cmd: string[]) => string[] = (cmd) => cmd,
): Promise<NatsServer> {
  // `ip netns exec` execs the command: the pid stays the server's own (a freeze or kill reaches it).
  const [command, ...rest] = execIn([natsServerBinary(), ...args]);
  const child = spawn(command!, rest, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  installExitHook();
  let log = "";
  const append = (chunk: Buffer) => {
    log += chunk.toString("utf8");
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      live.delete(child);
      resolve();
    });
    child.once("error", (err) => {
      log += `\n[spawn error] ${err.message}`;
      live.delete(child);
      resolve();
    });
  });

  let stopped = false;
  const server: NatsServer = {
    url: "",
    port: 0,
    storeDir,
    pid: child.pid ?? -1,
    log: () => log,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const grace = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(grace);
      }
      if (ownsDir) rmSync(storeDir, { recursive: true, force: true });
    },
  };

  try {
    const ready = await waitForLog(server, (text) => /Server is ready/.test(text), timeoutMs, "nats-server start", exited);
    const listening = /Listening for client connections on (\d+\.\d+\.\d+\.\d+):(\d+)/.exec(ready);
    if (!listening) throw new Error(`nats-server is ready but did not report its client port:\n${ready}`);
    const port = Number(listening[2]);
    return Object.assign(server, { port, url: `nats://${listening[1]}:${port}` });
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/**
 * Waits until the server's log satisfies `done`, checking on every chunk of output. Fails with the log
 * when the timeout passes or the process exits first.
 */
function waitForLog(
  server: NatsServer,
  done: (log: string) => boolean,
  timeoutMs: number,
  what: string,
  exited?: Promise<void>,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      if (err) reject(err);
      else resolve(server.log());
    };
    const check = () => {
      if (done(server.log())) finish();
    };
    const timer = setTimeout(() => finish(new Error(`${what}: not ready after ${timeoutMs} ms; server log:\n${server.log()}`)), timeoutMs);
    // Output arrives in chunks; a short poll of the accumulated log is simpler than threading listeners
    // through and costs nothing next to a process start.
    const poll = setInterval(check, 10);
    exited?.then(() => {
      check();
      finish(new Error(`${what}: nats-server exited before it was ready; server log:\n${server.log()}`));
    });
    check();
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

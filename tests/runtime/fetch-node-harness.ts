/**
 * Runs the fetch node as a real child process on a given runtime (Bun, or Deno with the permission flags
 * documented in fetch-node/README.md) against a real nats-server and redis-server on loopback, and drives
 * it the way a frontier node would: publishes fetch tasks on the JetStream bus and collects the results
 * and the discovered links from their consumers. Every wait is on a condition (the node record appearing,
 * a message arriving, the process exiting), bounded by a timeout that names what it waited for, and the
 * child's output is attached to any failure.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { lookup } from "node:dns/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectNats, JetStreamBus, NatsKvClusterState, type NatsConnection } from "../../adapters/nats/index.ts";
import type { NodeRecord } from "../../core/cluster/index.ts";
import type { Delivery, Subscription } from "../../core/ports/index.ts";
import type { DiscoveredUrl, FetchResult, FetchTask } from "../../core/model/index.ts";
import { partitionOf } from "../../core/ring/index.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { startRedis, type RedisServer } from "../support/redis.ts";

export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const PARTITIONS = 8;
/** Given to the node through CRAWL_FETCH_CONCURRENCY; it shows up as the `concurrency` gauge of its record. */
export const NODE_CONCURRENCY = 3;
/** Region rules the node and the test share: .de hosts are crawled in eu, everything else in us. */
export const REGION_RULES = "eu=.de";

export type Runtime = "bun" | "deno";

export { requireDeno } from "../support/deno.ts";

/**
 * The command line that starts the fetch node, exactly as fetch-node/README.md documents it, with the
 * network narrowed to loopback: NATS, Redis and the test web listen on 127.0.0.1; the page task names
 * `localhost`, which the node resolves and then dials by address (127.0.0.1, or ::1 where that comes first).
 */
export function nodeCommand(runtime: Runtime, warcDir: string, flags: string[]): string[] {
  if (runtime === "bun") return ["bun", "fetch-node/main.ts", ...flags];
  return [
    "deno",
    "run",
    "--node-modules-dir=manual",
    "--no-lock",
    "--allow-net=127.0.0.1,[::1],localhost",
    "--allow-env",
    `--allow-read=${warcDir}`,
    `--allow-write=${warcDir}`,
    "fetch-node/main.ts",
    ...flags,
  ];
}

/** Env vars that would change the child's behaviour behind the test's back. */
const HERMETIC_DROP = /^(https?_proxy|no_proxy|all_proxy|CRAWL_.*|AWS_.*)$/i;

export interface Rig {
  nats: NatsServer;
  redis: RedisServer;
  web: Web;
  nc: NatsConnection;
  bus: JetStreamBus;
  state: NatsKvClusterState;
  warcDir: string;
  close(): Promise<void>;
}

/** Starts nats-server, redis-server and the test web, and a bus and cluster state for the test's side. */
export async function startRig(): Promise<Rig> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    const warcDir = mkdtempSync(join(tmpdir(), "fetch-node-runtime-"));
    cleanups.push(async () => rmSync(warcDir, { recursive: true, force: true }));
    const nats = await startNats({ jetstream: true });
    cleanups.push(() => nats.stop());
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const web = await startWeb();
    cleanups.push(() => Promise.all(web.servers.map((srv) => new Promise((r) => srv.close(r)))));
    const nc = await connectNats([nats.url], "runtime-test");
    cleanups.push(() => nc.close());
    const bus = new JetStreamBus(nc, { onError: () => {} });
    cleanups.push(() => bus.close());
    const state = await NatsKvClusterState.open(nc, { onError: () => {} });
    cleanups.push(() => state.close());
    // The coordinator creates every region's streams; here the test stands in for it.
    await bus.ensureRegion("us", PARTITIONS);
    await bus.ensureRegion("eu", PARTITIONS);
    return { nats, redis, web, nc, bus, state, warcDir, close };
  } catch (error) {
    await close();
    throw error;
  }
}

interface Web {
  servers: Server[];
  /** `http://127.0.0.1:<port>`: robots.txt is fetched here (an IP literal, no DNS). */
  origin: string;
  host: string;
  /** Where the page task points: `http://localhost:<port>` when the name can be served (see startWeb). */
  pageOrigin: string;
  pageHost: string;
  /** `host:port/path` of every request, as the Host header named it. */
  requests: string[];
}

/**
 * A page linking to itself (`/next`), to the server's IP literal, and to a .de host. The page is fetched
 * by the name `localhost`, so the node resolves a name through its DNS cache (and, on Deno, under
 * `--allow-net=...,localhost`). The node connects to the first address the name resolves to, which may
 * be ::1, so the server also listens on every other address of `localhost` on the same port; where one of
 * them cannot be bound the page is fetched by IP literal instead, and the DNS leg is not exercised.
 */
async function startWeb(): Promise<Web> {
  const requests: string[] = [];
  let port = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.headers.host}${req.url}`);
    if (req.url === "/robots.txt") {
      res.setHeader("content-type", "text/plain");
      res.end("User-agent: *\nDisallow: /private\n");
      return;
    }
    if (req.url === "/sitemap.xml.gz") {
      // A gzip file (read as a stream on every runtime): one entry it may list, one on another host it may not.
      res.setHeader("content-type", "application/x-gzip");
      res.end(
        gzipSync(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://127.0.0.1:${port}/from-sitemap</loc><priority>0.9</priority></url><url><loc>http://elsewhere.example/x</loc></url></urlset>`,
        ),
      );
      return;
    }
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><title>runtime test</title><p>The same fetch node code on every runtime.</p>
      <a href="/next">next</a> <a href="http://127.0.0.1:${port}/other">other</a>
      <a href="http://shop.example.de/x">de</a>`);
  };
  const listen = (address: string, at: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer(handler);
      server.once("error", reject);
      server.listen(at, address, () => resolve(server));
    });
  const main = await listen("127.0.0.1", 0);
  port = (main.address() as AddressInfo).port;
  const servers = [main];
  let byName = true;
  for (const { address } of await lookup("localhost", { all: true }).catch(() => [])) {
    if (address === "127.0.0.1") continue;
    try {
      servers.push(await listen(address, port));
    } catch {
      byName = false;
    }
  }
  if (!byName) console.warn("fetch-node runtime test: an address of localhost cannot be served here; fetching by IP literal only");
  const host = `127.0.0.1:${port}`;
  const pageHost = byName ? `localhost:${port}` : host;
  return { servers, origin: `http://${host}`, host, pageOrigin: `http://${pageHost}`, pageHost, requests };
}

export interface NodeProcess {
  readonly child: ChildProcess;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  output(): string;
  /** Waits for the node record with this id to appear in the cluster state. */
  record(): Promise<NodeRecord>;
  /** Sends SIGTERM and resolves with the exit code once the process has ended. */
  stop(): Promise<number | null>;
}

/**
 * Starts the fetch node on `runtime`. `editCommand` may change the command line first (the permission
 * test drops one Deno flag at a time).
 */
export function startNode(
  rig: Rig,
  runtime: Runtime,
  nodeId: string,
  editCommand: (cmd: string[]) => string[] = (c) => c,
  extraEnv: Record<string, string> = {},
): NodeProcess {
  const flags = [
    "--node-id",
    nodeId,
    "--region",
    "us",
    "--default-region",
    "us",
    "--region-rules",
    REGION_RULES,
    "--partitions",
    String(PARTITIONS),
    "--nats-url",
    rig.nats.url,
    "--redis-url",
    rig.redis.url,
    "--warc-dir",
    rig.warcDir,
    "--http-listen",
    "127.0.0.1:0",
    "--allow-private-addresses",
    "--heartbeat-interval",
    "200ms",
    "--stop-grace",
    "5s",
  ];
  const [cmd, ...args] = editCommand(nodeCommand(runtime, rig.warcDir, flags));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !HERMETIC_DROP.test(k)));
  // One setting through the environment, so the test also shows env is read on this runtime.
  env["CRAWL_FETCH_CONCURRENCY"] = String(NODE_CONCURRENCY);
  Object.assign(env, extraEnv);
  const child = spawn(cmd!, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return {
    child,
    exited,
    output: () => out,
    record: () =>
      waitUntil(
        async () => (await rig.state.listNodes()).find((n) => n.id === nodeId),
        30_000,
        `node record of ${nodeId}`,
        () => out,
        exited,
      ),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** A robots or sitemap task for the IP-literal host, or a page task for the page host (by name where possible). */
export function pageTask(rig: Rig, id: string, kind: FetchTask["kind"] = "page"): FetchTask {
  const host = kind === "page" ? rig.web.pageHost : rig.web.host;
  const urls: Record<FetchTask["kind"], string> = {
    robots: `${rig.web.origin}/robots.txt`,
    sitemap: `${rig.web.origin}/sitemap.xml.gz`,
    page: `${rig.web.pageOrigin}/`,
    media: `${rig.web.pageOrigin}/`,
  };
  return {
    ...(kind === "sitemap" ? { sitemap: { grants: [] } } : {}),
    taskId: id,
    kind,
    url: urls[kind],
    host,
    partition: partitionOf(host, PARTITIONS),
    depth: 0,
    redirectHops: 0,
    hostGapMs: 0,
    issuedAt: Date.now(),
  };
}

/** Acks and collects everything that arrives on a consumer, as the owning frontier node would. */
export function collect<T>(consume: (h: (d: Delivery<T>) => Promise<void>) => Subscription): { got: T[]; sub: Subscription } {
  const got: T[] = [];
  const sub = consume(async (d) => {
    got.push(d.data);
    await d.ack();
  });
  return { got, sub };
}

export function collectResults(rig: Rig, partition: number) {
  return collect<FetchResult>((h) => rig.bus.consumeResults("us", partition, h));
}

export function collectUrls(rig: Rig, region: string, partition: number) {
  return collect<DiscoveredUrl[]>((h) => rig.bus.consumeUrls(region, partition, h));
}

/** Polls `check` until it returns a value; fails after `timeoutMs` (or when `exited` settles first) with the output. */
export async function waitUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  output: () => string = () => "",
  exited?: Promise<unknown>,
): Promise<T> {
  let gone = false;
  void exited?.then(() => (gone = true));
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (gone) throw new Error(`${what}: the fetch node exited first; its output:\n${output()}`);
    if (Date.now() > until) throw new Error(`${what}: not seen within ${timeoutMs} ms; fetch node output:\n${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** WARC files the node wrote (its own prefix) and whether the CDXJ index exists. */
export function warcFiles(rig: Rig, nodeId: string): { warcs: string[]; index: boolean } {
  return {
    warcs: readdirSync(rig.warcDir).filter((f) => f.startsWith(nodeId) && f.endsWith(".warc.gz")),
    index: existsSync(join(rig.warcDir, "index.cdxj")),
  };
}

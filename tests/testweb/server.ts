/**
 * The test web's server: one `node:http` listener on loopback that serves every virtual host, both as an
 * origin (Host header) and as an HTTP forward proxy (absolute-form target), records every request, and
 * answers the questions tests ask of the log. Unknown hosts get 502, as a real proxy whose DNS lookup
 * failed would answer. `close()` drops open connections, which also stops the drip and slow timers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { expectedPages, type ExpectedOptions, type ExpectedPages } from "./expected.ts";
import { faultBehaviour, faultyHosts, type FaultKind } from "./faults.ts";
import { record } from "./recorder.ts";
import { siteHost, siteIndex } from "./site.ts";
import { siteBehaviour } from "./site-host.ts";
import { specialHosts } from "./special/index.ts";
import { send } from "./special/respond.ts";
import { parseTarget } from "./target.ts";
import { prosePool } from "./text.ts";
import type { HostBehaviour, PolitenessPolicy, RequestRecord, ServeContext, SiteShape, TestWebOptions, Violation } from "./types.ts";
import { findViolations } from "./violations.ts";

/** The path a crawler asks of a host whose robots.txt names no sitemap (the probe); answered 404 unless the host serves one. */
export const SITEMAP_PROBE_PATH = "/sitemap.xml";

export interface TestWeb {
  port: number;
  /** The loopback address it listens on (127.0.0.1 unless `hostname` was given; the first of `addresses`). */
  hostname: string;
  /** `http://<hostname>:port`, for the crawler's proxy setting. */
  proxyUrl: string;
  /** The generator inputs, defaults filled in. */
  shape: SiteShape;
  /** Every host served: normal, special (if enabled) and extra. */
  hosts: string[];
  /** The normal hosts that misbehave (`faults` option), by kind. */
  faulty: ReadonlyMap<string, FaultKind>;
  /** `http://host/path` (path defaults to `/`); `http://host:port/path` with `portInLinks`. */
  url(host: string, path?: string): string;
  /** The live request log, in arrival order. */
  requests: RequestRecord[];
  /** TCP connections accepted so far, whether or not a request followed (a CONNECT, a bad head...). */
  readonly connections: number;
  requestsTo(host: string): RequestRecord[];
  /** Empties the log (e.g. after a warm-up). */
  clearRequests(): void;
  behaviour(host: string): HostBehaviour | undefined;
  violations(policy: PolitenessPolicy): Violation[];
  /** The pages a correct crawler fetches from `seeds` (default: `http://site0.test/`). */
  expectedPages(seeds?: readonly string[], opts?: ExpectedOptions): ExpectedPages;
  close(): Promise<void>;
}

export function resolveShape(opts: TestWebOptions = {}): SiteShape {
  return {
    hosts: opts.hosts ?? 10,
    pagesPerHost: opts.pagesPerHost ?? 20,
    linksPerPage: opts.linksPerPage ?? 24,
    pageBytes: opts.pageBytes ?? 25_000,
    seed: opts.seed ?? 1,
  };
}

export function webUrl(host: string, path = "/", port?: number): string {
  return `http://${host}${port === undefined ? "" : `:${port}`}${path.startsWith("/") ? path : `/${path}`}`;
}

export async function startTestWeb(opts: TestWebOptions = {}): Promise<TestWeb> {
  const shape = resolveShape(opts);
  const site = siteBehaviour(shape, prosePool(shape.seed));
  const named = new Map<string, HostBehaviour>(
    Object.entries({ ...(opts.special ? specialHosts(shape.seed) : {}), ...(opts.extraHosts ?? {}) }),
  );
  const faults = faultyHosts(shape, opts.faults ?? {});
  const faultKinds = new Map<FaultKind, HostBehaviour>();
  for (const kind of new Set(faults.values())) faultKinds.set(kind, faultBehaviour(kind, site, shape, opts.faults ?? {}));
  const normalHost = (host: string): HostBehaviour | undefined => {
    if (siteIndex(shape, host) < 0) return undefined;
    const kind = faults.get(host);
    return kind ? faultKinds.get(kind) : site;
  };
  const lookup = (host: string): HostBehaviour | undefined => named.get(host) ?? normalHost(host);
  const log: RequestRecord[] = [];
  const url = (host: string, path?: string): string => webUrl(host, path, shape.port);
  /** Each accepted socket's number (1, 2, ...), so a record says which connection carried it. */
  const connectionIds = new WeakMap<Socket, number>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const target = parseTarget(req.url ?? "/", req.headers.host);
    if (!target) {
      send(res, 400, "bad request target\n", "text/plain");
      return;
    }
    const rec = record(log, req, res, target);
    rec.connection = connectionIds.get(req.socket);
    rec.clientPort = req.socket.remotePort;
    rec.localAddress = req.socket.localAddress;
    const behaviour = lookup(target.host);
    if (!behaviour) {
      send(res, 502, `testweb: no such host ${target.host}\n`, "text/plain");
      return;
    }
    const robots = behaviour.robots;
    if (target.path === "/robots.txt" && robots.kind === "rules" && !behaviour.servesRobots) {
      send(res, 200, robots.text, "text/plain; charset=utf-8");
      return;
    }
    if (target.path === SITEMAP_PROBE_PATH && !behaviour.servesSitemap) {
      send(res, 404, "no sitemap here\n", "text/plain");
      return;
    }
    const ctx: ServeContext = { host: target.host, path: target.path, seed: shape.seed, url };
    try {
      behaviour.serve(req, res, ctx);
    } catch (err) {
      // A bug in a behaviour should fail the test that meets it, not take the server down.
      console.error(`testweb: ${target.host}${target.path}:`, err);
      if (!res.headersSent) send(res, 500, "testweb behaviour failed\n", "text/plain");
      else res.destroy();
    }
  };

  let connections = 0;
  const newServer = () => {
    const server = createServer(handle);
    server.on("connection", (socket: Socket) => connectionIds.set(socket, ++connections));
    // Crawlers keep connections to their proxy open between fetches; do not cut them short.
    server.keepAliveTimeout = 65_000;
    server.on("clientError", (_err: Error, socket: Socket) => socket.destroy());
    // HTTPS through the proxy (CONNECT) is not part of the test web.
    server.on("connect", (_req: IncomingMessage, socket: Socket) => {
      socket.end("HTTP/1.1 501 Not Implemented\r\ncontent-length: 0\r\n\r\n");
    });
    return server;
  };
  const addresses = opts.addresses ?? [opts.hostname ?? "127.0.0.1"];
  const servers = await listenAll(newServer, addresses, opts.port ?? 0);
  const port = (servers[0]!.address() as AddressInfo).port;
  // Known only now; read by the generator per request, none of which can have come yet.
  if (opts.portInLinks) shape.port = port;

  let closing: Promise<void> | undefined;
  const hosts = [...Array.from({ length: shape.hosts }, (_, i) => siteHost(i)), ...named.keys()];
  return {
    port,
    hostname: addresses[0]!,
    proxyUrl: `http://${addresses[0]!}:${port}`,
    shape,
    hosts,
    faulty: faults,
    url,
    requests: log,
    get connections() {
      return connections;
    },
    requestsTo: (host) => log.filter((r) => r.host === host),
    clearRequests: () => {
      log.length = 0;
    },
    behaviour: lookup,
    violations: (policy) => findViolations(log, (h) => lookup(h)?.robots, policy),
    expectedPages: (seeds = [url(siteHost(0))], eopts) => expectedPages(shape, seeds, eopts),
    close() {
      closing ??= Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      ).then(() => {});
      return closing;
    },
  };
}

/**
 * One listener per address, all on one port (a port found free on the first address may be taken on another:
 * then all start again on a new one, a few times; a fixed port gets one try).
 */
async function listenAll(newServer: () => Server, addresses: readonly string[], wantedPort: number): Promise<Server[]> {
  let lastError: unknown;
  for (let attempt = 0; attempt < (wantedPort === 0 ? 5 : 1); attempt++) {
    const servers: Server[] = [];
    try {
      let port = wantedPort;
      for (const address of addresses) {
        const server = newServer();
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen(port, address, () => resolve());
        });
        servers.push(server);
        port = (server.address() as AddressInfo).port;
      }
      return servers;
    } catch (error) {
      lastError = error;
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  }
  throw lastError;
}

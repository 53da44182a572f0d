/**
 * A real S3-protocol server for tests, run the way tests/support/nats.ts runs nats-server: a child process
 * (s3rver under Node, tests/support/s3-server.mjs, which says why not Bun) on 127.0.0.1, objects kept in a fresh temporary
 * directory, ready when it says so. `kill()` takes it down at once (SIGKILL, as a crash or an outage
 * would) and `restart()` brings it back on the same port with the same objects, so a client configured
 * with its endpoint sees an outage and then the same store again. `stop()` ends it and removes the
 * directory; a server still running when the test process exits is killed too.
 *
 * `startFaultProxy(target)` puts a small HTTP proxy in front of it that can answer the next requests
 * with a 500 or a 403, hold them without answering (the client's timeout must fire), or cut the connection, and
 * logs every request it forwards: what the store was asked, seen from outside the uploader.
 *
 * s3rver does not check SigV4 signatures (only v2 ones); adapters/s3/sigv4.test.ts checks ours against
 * the S3 documentation's worked examples.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { S3Client } from "../../adapters/s3/index.ts";

export const TEST_BUCKET = "crawl-test";
/** Credentials the test server accepts (s3rver's built-in account). */
export const TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
export const TEST_REGION = "us-east-1";

const SERVER_SCRIPT = resolve(import.meta.dir, "s3-server.mjs");
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export interface S3Server {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  /** A client for the test's own checks (list, get), straight to the server. */
  readonly client: S3Client;
  /** Everything the server printed. */
  log(): string;
  /** SIGKILL: the store is down until restart(). */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (after kill()). */
  restart(): Promise<void>;
  /** Ends it and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

export async function startS3(opts: { bucket?: string } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? TEST_BUCKET;
  const dir = mkdtempSync(join(tmpdir(), "s3-test-"));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = "";
  let port = 0;

  const launch = async (atPort: number) => {
    const proc = spawn(nodeBinary(), [SERVER_SCRIPT, "--port", String(atPort), "--dir", dir, "--bucket", bucket], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = proc;
    live.add(proc);
    installExitHook();
    exited = new Promise<void>((done) => {
      proc.once("exit", () => (live.delete(proc), done()));
      proc.once("error", (error) => {
        output += `\n[spawn error] ${error.message} (the S3 test server runs under Node: install it or set NODE)`;
        live.delete(proc);
        done();
      });
    });
    const ready = new Promise<number>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`s3 server not ready after 15 s:\n${output}`)), 15_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const m = /s3 ready 127\.0\.0\.1:(\d+)/.exec(output.slice(output.lastIndexOf("s3 ready")));
        if (m) {
          clearTimeout(timer);
          done(Number(m[1]));
        }
      };
      proc.stdout!.on("data", onData);
      proc.stderr!.on("data", (c: Buffer) => (output += c.toString("utf8")));
      void exited.then(() => {
        clearTimeout(timer);
        fail(new Error(`s3 server exited before it was ready:\n${output}`));
      });
    });
    return ready;
  };

  const killNow = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };

  try {
    port = await launch(0);
  } catch (error) {
    await killNow();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;
  return {
    endpoint,
    port,
    bucket,
    client: new S3Client({ bucket, region: TEST_REGION, credentials: TEST_CREDENTIALS, endpoint, requestTimeoutMs: 30_000 }),
    log: () => output,
    kill: killNow,
    async restart() {
      await killNow();
      // The port was ours a moment ago; a listener in TIME_WAIT does not block a new bind on Linux.
      await launch(port);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await killNow();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the fault proxy does with the next request. */
export type Fault = "error500" | "denied403" | "hang" | "reset";

export interface FaultProxy {
  /** http://127.0.0.1:<port>: give this to the client instead of the server's endpoint. */
  readonly endpoint: string;
  /** `METHOD path?query` of every request that reached the proxy, with what it did (`forward`, or the fault). */
  readonly requests: Array<{ line: string; action: "forward" | Fault }>;
  /**
   * The next `count` requests (optionally only those whose line matches `match`, or for which `match`
   * returns true given the line and the requests so far) meet `fault`.
   */
  inject(fault: Fault, count: number, match?: RegExp | ((line: string, before: FaultProxy["requests"]) => boolean)): void;
  /** Drops every fault not yet used: requests are forwarded again. */
  clearFaults(): void;
  close(): Promise<void>;
}

/** An HTTP proxy in front of `target` (an S3 endpoint) that injects faults on demand. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const to = new URL(target);
  const plan: Array<{ fault: Fault; left: number; match?: RegExp | ((line: string, before: FaultProxy["requests"]) => boolean) }> = [];
  const requests: FaultProxy["requests"] = [];
  const sockets = new Set<Socket>();
  const held: ServerResponse[] = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const line = `${req.method} ${req.url}`;
    const matches = (m: (typeof plan)[number]["match"]) => !m || (m instanceof RegExp ? m.test(line) : m(line, requests));
    const step = plan.find((p) => p.left > 0 && matches(p.match));
    if (step) {
      step.left--;
      requests.push({ line, action: step.fault });
      if (step.fault === "error500" || step.fault === "denied403") {
        const [status, code] = step.fault === "error500" ? [500, "InternalError"] : [403, "AccessDenied"];
        req.resume();
        req.once("end", () => {
          res.writeHead(status, { "content-type": "application/xml" });
          res.end(
            req.method === "HEAD"
              ? undefined
              : `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected by the test</Message></Error>`,
          );
        });
      } else if (step.fault === "hang") {
        req.resume();
        held.push(res);
      } else {
        req.socket.destroy();
      }
      return;
    }
    requests.push({ line, action: "forward" });
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      // A store killed mid-answer resets the connection, as the network would: without this the client
      // would wait out its own request timeout on a response that never ends.
      up.once("close", () => {
        if (!up.complete) req.socket.destroy();
      });
    });
    upstream.once("error", () => req.socket.destroy());
    req.pipe(upstream);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    inject(fault, count, match) {
      plan.push({ fault, left: count, match });
    },
    clearFaults() {
      plan.length = 0;
    },
    async close() {
      for (const res of held) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** The whole object as bytes, or undefined (tests compare objects with local files). */
export async function readObject(client: S3Client, key: string): Promise<Uint8Array | undefined> {
  const body = await client.getObject(key);
  if (!body) return undefined;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** Node, which CI's machines have (it installs Bun): $NODE, else `node` on PATH. */
function nodeBinary(): string {
  return process.env["NODE"] ?? "node";
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

/**
 * A real redis-server for tests and benches: a free loopback port, no persistence (or AOF, fsync every
 * second, as a fleet runs it), a fresh temporary working directory, ready once it answers PING (never a
 * sleep). `stop()` shuts it down and removes the directory; `kill()` ends it as a crash would (SIGKILL),
 * leaving the directory, so `startRedis({ port, dir })` can bring it back where it was: empty without
 * persistence, with its data with AOF. Readiness and shutdown talk RESP over a bare socket, so this helper
 * needs no Redis client and runs on Bun and Deno alike (node: built-ins only).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unusedPort } from "../../kit/net/index.ts";

export interface RedisServer {
  url: string;
  port: number;
  /** Its working directory (the AOF lives here). */
  dir: string;
  pid: number;
  /** Sends one inline command (e.g. `CLIENT KILL TYPE normal`) and resolves with the raw reply. */
  command(line: string): Promise<string>;
  /** Shuts it down without saving; removes its directory unless the caller passed it in. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash; the directory stays (a restart with `{ port, dir }` finds its AOF there). */
  kill(): Promise<void>;
  /** Everything it printed so far. */
  output(): string;
}

export interface StartRedisOptions {
  /** Path of the server binary (default $REDIS_SERVER or /usr/bin/redis-server). */
  binary?: string;
  /** How long to wait for PING to answer (default 10 s). */
  readyTimeoutMs?: number;
  /** Persistence: AOF with fsync every second (default false: none, a restart comes back empty). */
  appendOnly?: boolean;
  /** This port (to restart a server where it was); default a free one. */
  port?: number;
  /** This working directory (then the caller's: never removed); default a fresh temporary one. */
  dir?: string;
  /**
   * Listen on this address too, beside 127.0.0.1, and name it in `url`: a network lab's server address
   * (tests/support/netns.ts), so processes in network namespaces reach the server. Default: loopback only.
   */
  host?: string;
}

export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = options.binary ?? process.env.REDIS_SERVER ?? "/usr/bin/redis-server";
  const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
  const persistence = options.appendOnly
    ? ["--appendonly", "yes", "--appendfsync", "everysec", "--aof-use-rdb-preamble", "yes"]
    : ["--appendonly", "no"];
  // A port found free can be taken before the server binds it; a second try picks another (a fixed port
  // gets one try).
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port === undefined ? 3 : 1); attempt++) {
    const port = options.port ?? (await unusedPort());
    const ownsDir = options.dir === undefined;
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), "crawler-redis-"));
    // Protected mode refuses every address but loopback when no password is set; the lab address is as private.
    const bind = options.host ? ["127.0.0.1", options.host, "--protected-mode", "no"] : ["127.0.0.1"];
    const child = spawn(binary, ["--port", String(port), "--bind", ...bind, "--save", "", ...persistence, "--dir", dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitReady(port, child, readyTimeoutMs, () => output);
      return {
        url: `redis://${options.host ?? "127.0.0.1"}:${port}`,
        port,
        dir,
        pid: child.pid ?? -1,
        command: (line) => sendInline(port, line),
        stop: () => stop(child, port, ownsDir ? dir : undefined),
        kill: () => kill(child),
        output: () => output,
      };
    } catch (error) {
      lastError = error;
      child.kill("SIGKILL");
      if (ownsDir) rmSync(dir, { recursive: true, force: true });
    }
  }
  throw lastError;
}

async function waitReady(port: number, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once("exit", () => (exited = true));
  child.once("error", () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`redis-server exited before it was ready:\n${output()}`);
    try {
      // Its own log must say it listens: a PONG alone could come from another test's server that took the
      // port first while this one is failing to bind it.
      if (/Ready to accept connections/.test(output()) && (await sendInline(port, "PING")).startsWith("+PONG")) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} not ready after ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function stop(child: ChildProcess, port: number, dir: string | undefined): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // SHUTDOWN closes the connection instead of replying; a failed send falls back to a signal.
    await sendInline(port, "SHUTDOWN NOSAVE").catch(() => child.kill("SIGTERM"));
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}

/** One inline command on a fresh connection; resolves with whatever arrived when the server closes or replies. */
export function sendInline(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let reply = "";
    const done = (error?: Error) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(reply);
    };
    socket.setTimeout(2_000, () => done(new Error(`no reply to ${line} from port ${port}`)));
    socket.on("connect", () => socket.write(`${line}\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.endsWith("\r\n")) done();
    });
    socket.on("end", () => done());
    socket.on("error", (error) => done(error));
  });
}

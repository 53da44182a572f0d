/**
 * Whether a freshly started server serves yet: an HTTP endpoint that answers 200 (nats-server's
 * monitoring `/healthz`, which waits for JetStream's meta leader; a coordinator's `/healthz`), or a
 * redis-server that answers PING with PONG (not LOADING: it has replayed its append-only file).
 * `waitForProbe` polls one until it holds, the deadline passes, or the caller gives up. Under
 * `cluster up --secure` both speak TLS, checking the server against the cluster's CA, and Redis is asked
 * as the crawler's user (AUTH, then PING).
 */
import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import type { Probe } from "./plan.ts";

export async function probeOnce(probe: Probe): Promise<boolean> {
  try {
    if (probe.kind === "http") {
      const tls = probe.ca ? { tls: { ca: probe.ca } } : {};
      return (await fetch(probe.url, { signal: AbortSignal.timeout(2_000), ...tls })).ok;
    }
    const reply = await redisPing(probe);
    return probe.secure ? reply.startsWith("+OK\r\n+PONG") : reply.startsWith("+PONG");
  } catch {
    return false;
  }
}

/**
 * Between two attempts of a probe. A failed attempt is a refused connection or a 503, next to nothing, and
 * each step of the start waits for its slowest probe: at 200 ms, the step after NATS and the one after the
 * coordinator each started a mean 100 ms after the server was up.
 */
const PROBE_INTERVAL_MS = 25;

export interface ProbeWait {
  deadline: number;
  /** Checked between attempts: a reason to stop waiting (the operator stopped, a fatal exit). */
  abandoned: () => string | undefined;
}

/** Resolves once the probe holds; rejects with why not (timed out, abandoned). */
export async function waitForProbe(what: string, probe: Probe, w: ProbeWait): Promise<void> {
  for (;;) {
    const reason = w.abandoned();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (await probeOnce(probe)) return;
    if (Date.now() > w.deadline) throw new Error(`${what} did not answer ${describe(probe)} in time`);
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
  }
}

function describe(probe: Probe): string {
  return probe.kind === "http" ? `${probe.url} with 200` : `PING on port ${probe.port} with PONG`;
}

/** One inline PING (after AUTH when secure) on a fresh connection; resolves with the raw reply. */
function redisPing(probe: Extract<Probe, { kind: "redis" }>): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port, secure } = probe;
    const socket: Socket = secure
      ? connectTls({ host: "127.0.0.1", port, ca: secure.ca, servername: "localhost" })
      : connect({ host: "127.0.0.1", port });
    const ask = secure ? `AUTH ${secure.user} ${secure.password}\r\nPING\r\n` : "PING\r\n";
    const lines = secure ? 2 : 1;
    let reply = "";
    const done = (error?: Error) => {
      socket.destroy();
      if (error) reject(error);
      else resolve(reply);
    };
    socket.setTimeout(2_000, () => done(new Error("no reply")));
    socket.on(secure ? "secureConnect" : "connect", () => socket.write(ask));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.endsWith("\r\n") && (reply.split("\r\n").length > lines || reply.startsWith("-"))) done();
    });
    socket.on("error", (error) => done(error));
    socket.on("end", () => done());
  });
}

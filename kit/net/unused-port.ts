/**
 * Ports for the few servers that cannot pick their own: `cluster up` writes every process's ports into
 * its layout before starting it, and the tests start redis-server (whose `--port 0` turns TCP off), NATS
 * routes (which must be known before the server starts) and rendered fleets the same way. Everything
 * else binds port 0 and reads back what the OS chose.
 *
 * "Find a free port, bind it later" races with every other socket on the machine: the OS hands out
 * ephemeral ports (its `ip_local_port_range`) to port-0 listeners and to outgoing connections (a crawl
 * opens thousands), and any of them can take the port in between. So a port is drawn
 * at random from below that range, where the OS never hands one out by itself, and checked by binding it.
 * What remains is two programs drawing the same port within moments, which callers cover by trying
 * again on another port when their server fails to bind.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

const LOWEST = 10_000;

/** A port below the ephemeral range, free on 127.0.0.1 right now, not in `taken` (which it joins). */
export async function unusedPort(taken: Set<number> = new Set()): Promise<number> {
  const highest = ephemeralLow() - 1;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
    if (taken.has(port) || !(await bindable(port))) continue;
    taken.add(port);
    return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${highest} in 100 draws`);
}

/** The bottom of the OS's ephemeral range (Linux default 32768). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch {
    // Not Linux: assume its default.
  }
  return 32_768;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * What a local cluster keeps across restarts of `cluster up` in DIR/layout.json: the admin token and the
 * ports of every process, chosen once. A second `cluster up --dir DIR` reads them back, so nats-server
 * and redis-server come back on the same addresses over the same data, the nodes rejoin under the same
 * ids and addresses, and a script holding the token or a port keeps working. A process the layout does
 * not know yet (`--frontiers 3` after 2) gets new free ports, appended; ports of processes no longer
 * started stay reserved in the file, so a later run that starts them again reuses them too.
 *
 * The file holds the token, so it is written with mode 0600, atomically (temp file + rename).
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { unusedPort } from "../../kit/net/index.ts";
import { writeFileAtomic } from "./atomic-file.ts";

/** Named ports of one process, e.g. `{ client: 4222, monitor: 8222 }`. */
export type PortMap = Record<string, number>;

export interface Layout {
  token: string;
  /** Process id to its ports. */
  ports: Record<string, PortMap>;
  /** The cluster's partition count P, fixed for its life (partition-count.ts); absent in files written before it was kept. */
  partitions?: number;
}

export const LAYOUT_FILE = "layout.json";

/** A layout file that cannot be read back: say which file and what to do, never start on half of it. */
export class LayoutError extends Error {
  override name = "LayoutError";
}

/** The layout stored in `dir`, or undefined when `dir` has not run a cluster before. */
export function readLayout(dir: string): Layout | undefined {
  const path = join(dir, LAYOUT_FILE);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new LayoutError(`${path} is not JSON (${(error as Error).message}); fix it or delete it (new ports and a new token are chosen)`);
  }
  const problem = layoutProblem(parsed);
  if (problem) throw new LayoutError(`${path}: ${problem}; fix it or delete it (new ports and a new token are chosen)`);
  return parsed as Layout;
}

export function writeLayout(dir: string, layout: Layout): void {
  writeFileAtomic(join(dir, LAYOUT_FILE), `${JSON.stringify(layout, null, 2)}\n`, 0o600);
}

function layoutProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "not an object";
  const { token, ports, partitions } = value as Partial<Layout>;
  if (typeof token !== "string" || token.length < 16) return "token missing or shorter than 16 characters";
  if (partitions !== undefined && (!Number.isInteger(partitions) || partitions < 1 || partitions > 4096))
    return `partitions is not a partition count (1-4096): ${JSON.stringify(partitions)}`;
  if (typeof ports !== "object" || ports === null) return "ports missing";
  for (const [id, map] of Object.entries(ports)) {
    if (typeof map !== "object" || map === null) return `ports of ${id} are not an object`;
    for (const [name, port] of Object.entries(map)) {
      if (!Number.isInteger(port) || port < 1 || port > 65535) return `port ${name} of ${id} is not a port number: ${JSON.stringify(port)}`;
    }
  }
  return undefined;
}

/**
 * Gives every process in `wanted` (id to the names of the ports it needs) its ports: the layout's when it
 * has them, otherwise new free ones, drawn from below the OS's ephemeral range (kit/net's unusedPort), so
 * the outgoing connections and port-0 listeners of other programs cannot take one before its process binds
 * it; another program drawing the same port at the same moment still could (the process then fails to
 * start and says so in its log).
 */
export async function assignPorts(layout: Layout, wanted: Record<string, readonly string[]>): Promise<Layout> {
  const ports: Record<string, PortMap> = structuredClone(layout.ports);
  const taken = new Set(Object.values(ports).flatMap((m) => Object.values(m)));
  for (const [id, names] of Object.entries(wanted)) {
    const map = (ports[id] ??= {});
    for (const name of names) map[name] ??= await unusedPort(taken);
  }
  return { ...layout, ports };
}

/** The ports in `ports` that something else listens on now (each probed by binding it). */
export async function portsInUse(ports: Record<string, PortMap>): Promise<Array<{ id: string; name: string; port: number }>> {
  const busy: Array<{ id: string; name: string; port: number }> = [];
  for (const [id, map] of Object.entries(ports)) {
    for (const [name, port] of Object.entries(map)) {
      const server = await listenOn(port).catch(() => undefined);
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
      else busy.push({ id, name, port });
    }
  }
  return busy;
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => resolve(server));
  });
}

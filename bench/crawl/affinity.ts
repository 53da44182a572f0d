/**
 * Which process sent each request (issue 26: host affinity). Through the test web as a proxy, a crawler's
 * connections go to the proxy and are shared by every host, so connections per host say little; the process
 * that sent a host's requests says whether a host stays with one fetcher. A request's connection carries the
 * client's port (`RequestRecord.clientPort`); /proc/net/tcp (and tcp6) give the socket inode of each client
 * port talking to the test web, and /proc/<pid>/fd of the crawler's processes which process holds that inode.
 * Read while the crawler runs (at the window's end): connections closed before then cannot be placed, and
 * the result says how many requests were. Linux only.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Client port -> socket inode, for sockets whose remote end is `serverPort` on this box. */
export function clientSockets(serverPort: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = Number.parseInt(f[1]!.split(":")[1]!, 16);
      const remote = Number.parseInt(f[2]!.split(":")[1]!, 16);
      if (remote === serverPort && f[9] !== "0") out.set(local, f[9]!);
    }
  }
  return out;
}

/** Socket inode -> pid, over the given processes' open files. */
export function socketOwners(pids: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.set(m[1]!, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return out;
}

/** Client port -> pid of the crawler process that holds it, for every live connection to the test web. */
export function portOwners(serverPort: number, pids: readonly number[]): Map<number, number> {
  const owners = socketOwners(pids);
  const out = new Map<number, number>();
  for (const [port, inode] of clientSockets(serverPort)) {
    const pid = owners.get(inode);
    if (pid !== undefined) out.set(port, pid);
  }
  return out;
}

export interface HostAffinity {
  /** Per host, the distinct processes its requests in the window came from, averaged over hosts with any placed. */
  processesPerHost: number;
  /** Share of the window's requests whose connection could be placed (still open at the window's end). */
  placedShare: number;
}

export function hostAffinity(
  requests: readonly { host: string; startedAt: number; clientPort?: number }[],
  from: number,
  to: number,
  owners: ReadonlyMap<number, number>,
): HostAffinity {
  const byHost = new Map<string, Set<number>>();
  let all = 0;
  let placed = 0;
  for (const r of requests) {
    if (r.startedAt < from || r.startedAt >= to) continue;
    all++;
    const pid = r.clientPort === undefined ? undefined : owners.get(r.clientPort);
    if (pid === undefined) continue;
    placed++;
    let set = byHost.get(r.host);
    if (!set) byHost.set(r.host, (set = new Set()));
    set.add(pid);
  }
  let sum = 0;
  for (const s of byHost.values()) sum += s.size;
  return { processesPerHost: byHost.size > 0 ? sum / byHost.size : 0, placedShare: all > 0 ? placed / all : 0 };
}

/**
 * Real network partitions for tests, with `ip` (iproute2) as root and nothing else: a *lab* is a set of
 * server addresses on the host and of network namespaces, each joined to the host by its own veth pair.
 *
 *   - `lab.serverAddress()`: a fresh address (a /32 on `lo`) for one server to listen on (nats-server,
 *     redis-server, the test web). The host's processes reach it as any local address; every namespace
 *     reaches it through its veth (its default route goes to the host). One address per server, so a
 *     namespace can be cut from one server and not another.
 *   - `lab.namespace()`: a network namespace with its end of a veth pair (a private /30: the host end
 *     `hostAddress`, the namespace's end `address`) and loopback up. `exec(cmd)` is the command run inside
 *     it (`ip netns exec NAME ...`; the pid stays the command's own). A server inside listens on `address`
 *     for the host's processes to reach it. Namespaces reach each other too, through the host: it forwards
 *     what arrives on a lab's veths (forwarding is switched on for those interfaces alone, the host's own
 *     `ip_forward` is left as it is), so a server in one namespace can dial a server in another and a cut
 *     inside one (by the other's address) parts them both ways.
 *   - `ns.cut(addresses)` then `ns.restore()`: from inside the namespace, packets to those addresses (every
 *     address: `ns.cut()`) are routed to a gateway that does not exist, with a fixed neighbour entry, so
 *     they leave on the veth with a hardware address nobody has and the host drops them. Nothing is told to
 *     anyone: a connection open across the cut hangs (its segments and their retransmissions vanish), a new
 *     one gets no answer to its SYN, and both carry on once the routes are removed, as TCP does across a
 *     real partition. The kernel here has no netem and no tc actions, and iptables may be absent, so routes
 *     are the one tool. (Taking the link down instead would tell the namespace at once: ENETUNREACH.)
 *
 * Names carry the owning process's pid (base 36) and a counter, so labs of tests running side by side never
 * collide: namespaces `crawler-test-<pid>-<n>`, veth ends `cth<pid>-<n>` and `ctn<pid>-<n>` (15 characters
 * at most), `lo` addresses labelled `lo:ct<pid>-<n>`. Addresses come from 10.213.0.0/16, a /24 per lab,
 * chosen from the pid and skipped while any address of it is in use. `close()` removes everything (each
 * step on its own, so one failure does not leave the rest); a lab not closed (a crashed run) is removed by
 * the next lab's sweep, which takes whatever carries the prefixes and a pid that no longer runs; the test
 * process's exit closes its own labs as a last resort.
 *
 * Needs `ip` and root: `requireNetns()` says so plainly instead of skipping (CI installs iproute2).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const NS_PREFIX = "crawler-test-";
const HOST_IF_PREFIX = "cth";
const LO_LABEL_PREFIX = "lo:ct";
const NET_BASE = "10.213";
/** The gateway cut packets are sent to, on the link (`onlink`), and the hardware address nobody has. */
const NOWHERE_GATEWAY = "169.254.213.1";
const NOWHERE_MAC = "02:00:00:00:de:ad";
/** Namespaces a lab can hold: /30 blocks below the server addresses (.200 and up). */
const MAX_NAMESPACES = 48;
const FIRST_SERVER_HOST = 200;

export interface Netns {
  /** The namespace's name (`ip netns`). */
  readonly name: string;
  /** The namespace's own address, on its end of the veth: servers inside listen here. */
  readonly address: string;
  /** The host's end of the veth: the namespace's default gateway. */
  readonly hostAddress: string;
  /** `cmd` run inside the namespace. */
  exec(cmd: readonly string[]): string[];
  /** Drops, silently, every packet from inside to `addresses` (every address when omitted), on top of any cut already made. */
  cut(addresses?: readonly string[]): void;
  /** Undoes every cut. */
  restore(): void;
  /** The addresses cut now (`"*"` for everything). */
  readonly cuts: readonly string[];
}

export interface NetLab {
  /** A new address on the host for one server to listen on, reachable from every namespace of the lab. */
  serverAddress(): string;
  /** A new namespace joined to the host. */
  namespace(): Netns;
  /** Removes every namespace, veth and address of the lab. Idempotent; never throws (a failure is logged). */
  close(): void;
}

let labCounter = 0;
const openLabs = new Set<NetLab>();
let exitHookInstalled = false;

/** Throws, with what to do, unless `ip` is installed and this process may manage namespaces (root). */
export function requireNetns(): void {
  const ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].find((p) => existsSync(p)) ?? Bun.which("ip");
  if (!ip) throw new Error("network partition tests need `ip` (iproute2): apt-get install iproute2");
  if (process.getuid?.() !== 0) throw new Error("network partition tests run as root (ip netns add, veth pairs)");
}

/** Starts a lab: sweeps what crashed runs left, then picks a free /24 for this one. */
export function startNetLab(): NetLab {
  requireNetns();
  sweepLeftovers();
  const pid36 = process.pid.toString(36);
  const tag = `${pid36}-${(labCounter++).toString(36)}`;
  const subnet = freeSubnet(process.pid + labCounter * 7);
  const namespaces: Array<{ name: string; hostIf: string }> = [];
  const addresses: Array<{ address: string; label: string }> = [];
  let closed = false;

  const lab: NetLab = {
    serverAddress() {
      if (closed) throw new Error("the lab is closed");
      const host = FIRST_SERVER_HOST + addresses.length;
      if (host > 254) throw new Error("a lab holds at most 55 server addresses");
      const address = `${NET_BASE}.${subnet}.${host}`;
      // The label ties the address to this lab (and its pid) for the sweep; at most 15 characters.
      const label = `${LO_LABEL_PREFIX}${tag}${addresses.length.toString(36)}`.slice(0, 15);
      ip(["addr", "add", `${address}/32`, "dev", "lo", "label", label]);
      addresses.push({ address, label });
      return address;
    },
    namespace() {
      if (closed) throw new Error("the lab is closed");
      const n = namespaces.length;
      if (n >= MAX_NAMESPACES) throw new Error(`a lab holds at most ${MAX_NAMESPACES} namespaces`);
      const name = `${NS_PREFIX}${tag}-${n}`;
      const hostIf = `${HOST_IF_PREFIX}${tag}${n.toString(36)}`;
      const nsIf = `ctn${tag}${n.toString(36)}`;
      if (hostIf.length > 15) throw new Error(`interface name ${hostIf} is longer than 15 characters`);
      const hostAddress = `${NET_BASE}.${subnet}.${4 * n + 1}`;
      const address = `${NET_BASE}.${subnet}.${4 * n + 2}`;
      namespaces.push({ name, hostIf });
      ip(["netns", "add", name]);
      ip(["link", "add", hostIf, "type", "veth", "peer", "name", nsIf]);
      ip(["link", "set", nsIf, "netns", name]);
      ip(["addr", "add", `${hostAddress}/30`, "dev", hostIf]);
      ip(["link", "set", hostIf, "up"]);
      // The host forwards what this veth brings for another namespace of the lab (see the header).
      writeFileSync(`/proc/sys/net/ipv4/conf/${hostIf}/forwarding`, "1");
      ip(["-n", name, "link", "set", "lo", "up"]);
      ip(["-n", name, "addr", "add", `${address}/30`, "dev", nsIf]);
      ip(["-n", name, "link", "set", nsIf, "up"]);
      ip(["-n", name, "route", "add", "default", "via", hostAddress]);
      // The neighbour cut packets are sent to: a hardware address nobody has, so the host drops them.
      ip(["-n", name, "neigh", "replace", NOWHERE_GATEWAY, "lladdr", NOWHERE_MAC, "dev", nsIf, "nud", "permanent"]);
      const cuts = new Set<string>();
      // Everything: both halves of the address space (more specific than the default route) and the host's end.
      const prefixesOf = (a: string) => (a === "*" ? ["0.0.0.0/1", "128.0.0.0/1", `${hostAddress}/32`] : [`${a}/32`]);
      return {
        name,
        address,
        hostAddress,
        exec: (cmd) => ["ip", "netns", "exec", name, ...cmd],
        get cuts() {
          return [...cuts];
        },
        cut(to) {
          for (const a of to ?? ["*"]) {
            if (cuts.has(a)) continue;
            for (const prefix of prefixesOf(a)) ip(["-n", name, "route", "replace", prefix, "via", NOWHERE_GATEWAY, "dev", nsIf, "onlink"]);
            cuts.add(a);
          }
        },
        restore() {
          for (const a of cuts) for (const prefix of prefixesOf(a)) ip(["-n", name, "route", "del", prefix]);
          cuts.clear();
        },
      };
    },
    close() {
      if (closed) return;
      closed = true;
      openLabs.delete(lab);
      // Deleting the host's end removes the pair even if a process still holds the namespace open.
      for (const { name, hostIf } of namespaces) {
        tryIp(["link", "del", hostIf]);
        tryIp(["netns", "del", name]);
      }
      for (const { address } of addresses) tryIp(["addr", "del", `${address}/32`, "dev", "lo"]);
    },
  };
  openLabs.add(lab);
  installExitHook();
  return lab;
}

/**
 * Removes what labs of processes that no longer run left behind (a crashed or killed test): namespaces,
 * host veth ends and `lo` addresses whose name carries a dead pid. Another live process's lab is left alone.
 */
export function sweepLeftovers(): void {
  const dead = (pid36: string) => {
    const pid = Number.parseInt(pid36, 36);
    return !(Number.isFinite(pid) && existsSync(`/proc/${pid}`) && readProcStart(pid));
  };
  for (const line of ipOut(["netns", "list"]).split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const m = new RegExp(`^${NS_PREFIX}([0-9a-z]+)-`).exec(name);
    if (m && dead(m[1]!)) tryIp(["netns", "del", name]);
  }
  for (const line of ipOut(["-o", "link", "show"]).split("\n")) {
    const m = new RegExp(`^\\d+: (${HOST_IF_PREFIX}([0-9a-z]+)-[0-9a-z]+)[@:]`).exec(line);
    if (m && dead(m[2]!)) tryIp(["link", "del", m[1]!]);
  }
  for (const line of ipOut(["-o", "-4", "addr", "show", "dev", "lo"]).split("\n")) {
    const m = new RegExp(`inet (\\S+) .*\\b(${LO_LABEL_PREFIX.replace(":", "\\:")}([0-9a-z]+)-\\S*)`).exec(line);
    if (m && dead(m[3]!)) tryIp(["addr", "del", m[1]!, "dev", "lo"]);
  }
}

function readProcStart(pid: number): boolean {
  try {
    // A zombie is as good as gone.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(") ") + 2) !== "Z";
  } catch {
    return false;
  }
}

/** A /24 of 10.213.0.0/16 no address or route of this host uses, starting from `seed`. */
function freeSubnet(seed: number): number {
  const used = `${ipOut(["-o", "-4", "addr", "show"])}\n${ipOut(["-4", "route", "show", "table", "all"])}`;
  for (let i = 0; i < 256; i++) {
    const subnet = (seed + i) % 256;
    if (!used.includes(`${NET_BASE}.${subnet}.`)) return subnet;
  }
  throw new Error(`no free /24 left in ${NET_BASE}.0.0/16 for a network lab`);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort for a test process that exits without its teardown (spawnSync works in an exit handler).
  process.on("exit", () => {
    for (const lab of [...openLabs]) lab.close();
  });
}

function run(args: readonly string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync(["ip", ...args], { stdout: "pipe", stderr: "pipe" });
  return { ok: r.exitCode === 0, out: r.stdout.toString(), err: r.stderr.toString().trim() };
}

function ip(args: readonly string[]): void {
  const r = run(args);
  if (!r.ok) throw new Error(`ip ${args.join(" ")} failed: ${r.err || "no message"}`);
}

function tryIp(args: readonly string[]): void {
  const r = run(args);
  if (!r.ok && !/Cannot find device|No such file|does not exist|Cannot assign requested address|No such process/.test(r.err)) {
    console.error(`network lab cleanup: ip ${args.join(" ")}: ${r.err}`);
  }
}

function ipOut(args: readonly string[]): string {
  const r = run(args);
  return r.ok ? r.out : "";
}

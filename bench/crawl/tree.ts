/**
 * A process tree read from /proc, for crawlers that are many processes (the local cluster: a launcher,
 * nats-server, redis-server, a coordinator, frontier nodes, fetch nodes on Bun and Deno). Every sample
 * walks the descendants of the root and reads each one's own CPU (utime + stime of all its threads, not
 * the children it has waited for, so nothing is counted twice), resident memory and bytes written. A
 * process is known by pid and start time, so a reused pid is never mistaken for one that has gone.
 *
 * CPU in a window is, per process, its last reading minus its reading when the window opened (zero for a
 * process born inside it); a process that exits inside the window keeps its last sample (at most one
 * sampling interval lost). Linux only.
 */
import { readdirSync, readFileSync } from "node:fs";

export interface TreeProcess {
  pid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat): with the pid, the identity. */
  startTicks: number;
  /** Short label: the node id with its runtime (`frontier-1 (bun)`), else the program and its script. */
  name: string;
  command: string;
}

export interface ProcessUsage {
  pid: number;
  name: string;
  /** utime + stime inside the window, all threads. */
  cpuSeconds: number;
  /**
   * The same for the main thread alone (tid = pid): for Bun and Deno the JavaScript event loop, so near
   * the window's length means that process is bound by its one JS thread, whatever the box has free.
   */
  mainThreadCpuSeconds: number;
  /** VmHWM: the highest resident memory the process had (start-up included). */
  peakRssBytes: number;
  /** wchar inside the window. */
  writtenBytes: number;
  /** write_bytes inside the window: what the process sent to storage (its files, not its sockets). */
  diskWrittenBytes: number;
  /** utime + stime from the window's middle (`markMiddle`) to its end: the steady half. */
  steadyCpuSeconds: number;
  /** The main thread's share of it; the rest is the runtime's helper threads (JIT compilers, GC, I/O pools). */
  steadyMainThreadCpuSeconds: number;
  /**
   * Context switches of the main thread in the steady half (/proc/<pid>/status counts the thread group
   * leader's own). Voluntary: it blocked, so for an event loop one per wake-up, which a process that does
   * more per wake-up (bigger batches) has fewer of per page. Involuntary: the kernel took the core away
   * while it could run, which is the box being crowded, not our code.
   */
  steadyMainSwitches: { voluntary: number; involuntary: number };
}

interface Reading {
  cpuTicks: number;
  mainThreadTicks: number;
  peakRssBytes: number;
  rssBytes: number;
  written: number;
  diskWritten: number;
  voluntarySwitches: number;
  involuntarySwitches: number;
}

interface Known extends TreeProcess {
  first?: Reading;
  last?: Reading;
  /** Reading when the window opened (undefined: born later, counted from zero). */
  atStart?: Reading;
  /** Reading at the window's middle (undefined: born later, counted from zero). */
  atMid?: Reading;
  atEnd?: Reading;
  gone: boolean;
}

interface Stat {
  ppid: number;
  pgrp: number;
  startTicks: number;
  cpuTicks: number;
}

function readStat(pid: number): Stat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after `comm` (which may hold spaces or parentheses): rest[0] is field 3 (state).
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(rest[1]), pgrp: Number(rest[2]), cpuTicks: Number(rest[11]) + Number(rest[12]), startTicks: Number(rest[19]) };
}

/** utime + stime of the process's main thread alone. */
function readMainThreadTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

/** Memory, and the main thread's context switches (the status of a thread group is its leader's). */
function readStatus(pid: number): { rssBytes: number; peakRssBytes: number; voluntarySwitches: number; involuntarySwitches: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
    const count = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return {
      rssBytes: kb("VmRSS"),
      peakRssBytes: kb("VmHWM"),
      voluntarySwitches: count("voluntary_ctxt_switches"),
      involuntarySwitches: count("nonvoluntary_ctxt_switches"),
    };
  } catch {
    return { rssBytes: 0, peakRssBytes: 0, voluntarySwitches: 0, involuntarySwitches: 0 };
  }
}

function readWritten(pid: number): { written: number; diskWritten: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    return {
      written: Number(/^wchar:\s+(\d+)/m.exec(io)?.[1] ?? 0),
      diskWritten: Number(/^write_bytes:\s+(\d+)/m.exec(io)?.[1] ?? 0),
    };
  } catch {
    return { written: 0, diskWritten: 0 };
  }
}

function readCommand(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      .split("\0")
      .filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** `frontier-1 (bun)`, `fetch-1 (deno)`, `nats-server`, `bun run cluster`, `bun scripts/cluster/main.ts`. */
export function labelOf(argv: readonly string[]): string {
  // A program may rewrite its argv into one string (redis-server: "redis-server 127.0.0.1:PORT").
  const base = (s: string) =>
    s
      .slice(s.lastIndexOf("/") + 1)
      .split(" ")[0]!
      .replace(/\.exe$/, "");
  if (argv.length === 0) return "?";
  const prog = base(argv[0]!);
  const id = argv.indexOf("--node-id");
  if (id >= 0 && argv[id + 1]) return `${argv[id + 1]} (${prog})`;
  if (prog === "bun" || prog === "node" || prog === "deno") {
    if (argv[1] === "run" && argv[2] && !argv[2].startsWith("-")) return `${prog} run ${argv[2]}`;
    const script = argv.slice(1).find((a) => !a.startsWith("-"));
    return script ? `${prog} ${script}` : prog;
  }
  return prog;
}

/** Pids whose parent is `pid`, from every thread's `children` file (one read per thread, no /proc scan). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) if (c) out.push(Number(c));
    } catch {
      // thread gone
    }
  }
  return out;
}

/** Every live descendant of `root` (root included when it runs). */
export function descendantsOf(root: number): number[] {
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid) || readStat(pid) === undefined) continue;
    seen.add(pid);
    for (const item of childrenOf(pid)) stack.push(item);
  }
  return [...seen];
}

/**
 * Every live process in process group `pgid` (one scan of /proc). The kernel never hands out a pid that
 * is still some group's id, so while members remain the id is still the group's.
 */
export function groupMembers(pgid: number): TreeProcess[] {
  const out: TreeProcess[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const s = readStat(pid);
    if (s === undefined || s.pgrp !== pgid) continue;
    const p = { pid, startTicks: s.startTicks, name: "", command: "" };
    if (!isAlive(p)) continue;
    const argv = readCommand(pid);
    out.push({ ...p, name: labelOf(argv), command: argv.join(" ") });
  }
  return out;
}

/** True while `p` (by pid and start time) still runs; a zombie counts as gone. */
export function isAlive(p: Pick<TreeProcess, "pid" | "startTicks">): boolean {
  const s = readStat(p.pid);
  if (s === undefined || s.startTicks !== p.startTicks) return false;
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${p.pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

export class ProcessTree {
  private readonly known = new Map<string, Known>();
  private windowOpen = false;
  /** Start time of the root when first seen: once the root's pid runs something else, the tree is not walked. */
  private rootStartTicks: number | undefined;
  private windowClosed = false;
  /** Highest sum of VmRSS over the tree seen in one sample (memory actually held at once). */
  peakConcurrentRssBytes = 0;

  constructor(
    readonly rootPid: number,
    private readonly ticksPerSecond: number,
  ) {}

  /** Reads every live process of the tree once. */
  sample(): void {
    const live = new Set<string>();
    let rss = 0;
    const root = readStat(this.rootPid);
    this.rootStartTicks ??= root?.startTicks;
    const rootIsOurs = root !== undefined && root.startTicks === this.rootStartTicks;
    const descendants = new Set(rootIsOurs ? descendantsOf(this.rootPid) : []);
    // Known processes too: one whose parent has exited is an orphan, no longer a descendant, still ours.
    const pids = new Set(descendants);
    for (const k of this.known.values()) if (!k.gone) pids.add(k.pid);
    for (const pid of pids) {
      const stat = readStat(pid);
      if (stat === undefined) continue;
      const key = `${pid}@${stat.startTicks}`;
      if (!descendants.has(pid) && !this.known.has(key)) continue; // the pid now runs something else
      live.add(key);
      // Read every time: a process seen between fork and exec still shows its parent's command.
      const argv = readCommand(pid);
      let k = this.known.get(key);
      if (k === undefined) {
        k = { pid, startTicks: stat.startTicks, name: labelOf(argv), command: argv.join(" "), gone: false };
        this.known.set(key, k);
      } else if (argv.length > 0 && argv.join(" ") !== k.command) {
        k.name = labelOf(argv);
        k.command = argv.join(" ");
      }
      const mem = readStatus(pid);
      const reading: Reading = {
        cpuTicks: stat.cpuTicks,
        mainThreadTicks: readMainThreadTicks(pid),
        peakRssBytes: Math.max(mem.peakRssBytes, k.last?.peakRssBytes ?? 0),
        rssBytes: mem.rssBytes,
        voluntarySwitches: mem.voluntarySwitches,
        involuntarySwitches: mem.involuntarySwitches,
        ...readWritten(pid),
      };
      k.first ??= reading;
      k.last = reading;
      rss += mem.rssBytes;
    }
    for (const [key, k] of this.known) if (!live.has(key)) k.gone = true;
    this.peakConcurrentRssBytes = Math.max(this.peakConcurrentRssBytes, rss);
  }

  /** Samples, and takes that as every process's reading at the window's start. */
  openWindow(): void {
    this.sample();
    // Gone ones too: a process that ended before the window then counts zero, not its whole life.
    for (const k of this.known.values()) k.atStart = k.last;
    this.windowOpen = true;
  }

  /** Samples, and takes that as every process's reading at the window's middle (the steady half's start). */
  markMiddle(): void {
    this.sample();
    for (const k of this.known.values()) k.atMid = k.last;
  }

  /** Samples, and freezes every process's reading at the window's end. */
  closeWindow(): void {
    this.sample();
    for (const k of this.known.values()) if (this.windowOpen && (!k.gone || k.atEnd === undefined)) k.atEnd = k.last;
    this.windowClosed = true;
  }

  /** Samples, and sums the CPU every process of the tree has used since the window opened (born later: all of it). */
  cpuSecondsSoFar(): number {
    this.sample();
    let ticks = 0;
    for (const k of this.known.values()) ticks += (k.last?.cpuTicks ?? 0) - (k.atStart?.cpuTicks ?? 0);
    return ticks / this.ticksPerSecond;
  }

  /** Every process seen so far. */
  processes(): TreeProcess[] {
    return [...this.known.values()].map(({ pid, startTicks, name, command }) => ({ pid, startTicks, name, command }));
  }

  /** Per-process usage inside the window, in start order (the launcher first). */
  usage(): ProcessUsage[] {
    if (!this.windowClosed) throw new Error("ProcessTree.usage() before closeWindow()");
    const zero: Reading = {
      cpuTicks: 0,
      mainThreadTicks: 0,
      peakRssBytes: 0,
      rssBytes: 0,
      written: 0,
      diskWritten: 0,
      voluntarySwitches: 0,
      involuntarySwitches: 0,
    };
    return [...this.known.values()]
      .sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid)
      .map((k) => {
        const start = k.atStart ?? zero;
        const end = k.atEnd ?? k.atStart ?? zero; // born after the window: nothing inside it
        const mid = k.atMid ?? zero; // born after the middle: all of its CPU is the steady half's
        return {
          pid: k.pid,
          name: k.name,
          cpuSeconds: (end.cpuTicks - start.cpuTicks) / this.ticksPerSecond,
          mainThreadCpuSeconds: (end.mainThreadTicks - start.mainThreadTicks) / this.ticksPerSecond,
          peakRssBytes: k.last?.peakRssBytes ?? 0,
          writtenBytes: end.written - start.written,
          diskWrittenBytes: end.diskWritten - start.diskWritten,
          steadyCpuSeconds: Math.max(0, end.cpuTicks - mid.cpuTicks) / this.ticksPerSecond,
          steadyMainThreadCpuSeconds: Math.max(0, end.mainThreadTicks - mid.mainThreadTicks) / this.ticksPerSecond,
          steadyMainSwitches: {
            voluntary: Math.max(0, end.voluntarySwitches - mid.voluntarySwitches),
            involuntary: Math.max(0, end.involuntarySwitches - mid.involuntarySwitches),
          },
        };
      });
  }
}

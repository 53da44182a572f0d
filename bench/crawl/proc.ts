/**
 * What the kernel says about a crawler process: CPU time (user + sys, from `/proc/<pid>/stat`) and
 * resident memory (current and peak, from `/proc/<pid>/status`). Read from outside, so the same numbers
 * come out for a Bun process and a Node one, and nothing in the crawler has to cooperate. Linux only.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Kernel clock ticks per second, the unit of the CPU fields in /proc/<pid>/stat. */
export function clockTicksPerSecond(): number {
  try {
    const out = Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim();
    const n = Number(out);
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/**
 * CPU seconds (user + sys, plus those of children it has waited for) the process has used so far, or
 * undefined once it has gone. Fields are counted after the `comm` field, which may hold spaces.
 */
export function cpuSeconds(pid: number, ticksPerSecond: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); utime, stime, cutime, cstime are fields 14..17.
  const ticks = Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
  return ticks / ticksPerSecond;
}

/** CPU seconds (user + sys) of the process's main thread (tid = pid) so far, or undefined once it has gone. */
export function mainThreadCpuSeconds(pid: number, ticksPerSecond: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[11]) + Number(rest[12])) / ticksPerSecond;
}

/**
 * CPU seconds (user + sys) of the process's threads so far, summed by thread name (`comm`), the main thread
 * (tid = pid) as "main", or undefined once the process has gone. A Bun process names its `Worker` threads
 * (fetch threads and the frontier's checkpoint thread alike), JSC's compiler threads `JITWorker` and its GC
 * helper `HeapHelper`, so this tells the code's own CPU from compiling and collecting it. Threads that ended
 * before the read are not counted.
 */
export function threadCpuSeconds(pid: number, ticksPerSecond: number): Record<string, number> | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const out: Record<string, number> = {};
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // ended between the listing and the read
    }
    const name = tid === String(pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out[name] = (out[name] ?? 0) + (Number(rest[11]) + Number(rest[12])) / ticksPerSecond;
  }
  return out;
}

export interface MemorySample {
  /** VmRSS: resident now. */
  rssBytes: number;
  /** VmHWM: the highest VmRSS the process has had. */
  peakRssBytes: number;
}

/** Current and peak resident memory of the process, or undefined once it has gone. */
export function memory(pid: number): MemorySample | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

/**
 * Bytes the process has handed to write(2) and friends so far (`wchar` of /proc/<pid>/io: files, the WAL,
 * sockets alike), and bytes it caused to be sent to storage (`write_bytes`). Undefined once it has gone.
 */
export function ioBytes(pid: number): { written: number; toStorage: number } | undefined {
  let io: string;
  try {
    io = readFileSync(`/proc/${pid}/io`, "utf8");
  } catch {
    return undefined;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(io)?.[1] ?? 0);
  return { written: field("wchar"), toStorage: field("write_bytes") };
}

/**
 * CPU seconds all cores have spent running processes since boot (user, nice and system of /proc/stat's
 * `cpu` line; interrupt time is left out, since loopback traffic puts the crawl's own network work there,
 * charged to no process). The difference over a window, less the crawler's and the benchmark's own, is the load other
 * work put on the box meanwhile: a run disturbed by it shows up instead of passing for a slow crawler.
 */
export function machineBusySeconds(ticksPerSecond: number): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const [, ...fields] = line.trim().split(/\s+/);
  const n = fields.map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
  const busy = n[0]! + n[1]! + n[2]!;
  return busy / ticksPerSecond;
}

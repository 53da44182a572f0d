/**
 * What the kernel says about a crawler process: CPU time (user + sys, from `/proc/<pid>/stat`) and
 * resident memory (current and peak, from `/proc/<pid>/status`). Read from outside, so the same numbers
 * come out for a Bun process and a Node one, and nothing in the crawler has to cooperate. Linux only.
 */
import { readFileSync } from "node:fs";

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

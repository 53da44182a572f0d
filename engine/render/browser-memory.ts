/**
 * How much memory a Chromium uses: the proportional set size (PSS: each shared page divided among the
 * processes that share it, so the sum is what the browser really holds) of its browser process and every
 * process under it (renderers, GPU and utility processes), read from /proc; the resident set where PSS
 * cannot be read. Linux only; elsewhere it reads 0 and the memory cap never fires. Cost: one read of
 * /proc/<pid>/stat per process on the machine and one smaps_rollup per browser process, a few
 * milliseconds, done at most once every few seconds by the pool.
 */
import { readdirSync, readFileSync } from "node:fs";

const PAGE_BYTES = 4096;

/** Bytes resident in `rootPid` and its descendants. */
export function treeRssBytes(rootPid: number): number {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may hold spaces and parentheses: the fields start after its last ')'.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(name), Number(fields[1]));
      rss.set(Number(name), Number(fields[21]) * PAGE_BYTES);
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  for (const [pid, bytes] of rss) {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) {
      if (p === rootPid) {
        total += pssBytes(pid) ?? bytes;
        break;
      }
    }
  }
  return total;
}

/** The pid of the process whose command line holds `marker` (the pool's own flag), if any. */
export function pidWithArgument(marker: string): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      // The browser process itself: its children carry --type=renderer, --type=gpu-process...
      if (args.includes(marker) && !args.some((a) => a.startsWith("--type="))) return Number(name);
    } catch {
      // gone
    }
  }
  return undefined;
}

/** The process's PSS from /proc/<pid>/smaps_rollup, or undefined when it cannot be read. */
function pssBytes(pid: number): number | undefined {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

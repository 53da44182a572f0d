/**
 * Child processes for the cluster's end-to-end tests: spawned from the repository root with a hermetic
 * environment (no proxy or CRAWL_* variable of the developer's shell leaks in), their output kept for
 * failure messages, stopped with SIGTERM then SIGKILL; the process tree read from /proc, so a test can
 * find and check every process a launcher started; and `waitUntil`, the one bounded, named wait every
 * test uses instead of sleeping.
 */
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { BELOW_THE_JUDGE } from "../politeness.ts";

export const REPO_ROOT = resolve(import.meta.dir, "../../..");

/** Env vars that would change a child's behaviour behind the test's back (a proxy, a CRAWL_* default). */
const HERMETIC_DROP = /^(https?_proxy|no_proxy|all_proxy|CRAWL_.*|CRAWLCTL_.*)$/i;

export { requireDeno } from "../../support/deno.ts";

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** A child process with its output kept (the tail of it) for failure messages. */
export interface Proc {
  readonly name: string;
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  /** Undefined while it runs. */
  exit(): ExitInfo | undefined;
  output(): string;
  signal(sig: "SIGTERM" | "SIGINT" | "SIGKILL"): void;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /** Waits for the exit, at most `timeoutMs`, failing with the output. */
  waitExit(timeoutMs: number): Promise<ExitInfo>;
}

const OUTPUT_KEEP = 256 * 1024;

export function hermeticEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !HERMETIC_DROP.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export function spawnProc(name: string, cmd: readonly string[], opts: { env?: Record<string, string> } = {}): Proc {
  // Below the test web's priority, and so is everything it starts (see ../politeness.ts).
  const proc = Bun.spawn([...BELOW_THE_JUDGE, ...cmd], {
    cwd: REPO_ROOT,
    env: hermeticEnv(opts.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      out += decoder.decode(chunk, { stream: true });
      if (out.length > OUTPUT_KEEP * 2) out = out.slice(-OUTPUT_KEEP);
    }
  };
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)]);
  let info: ExitInfo | undefined;
  const exited = (async () => {
    await proc.exited;
    await drained.catch(() => {});
    info = { code: proc.signalCode ? null : proc.exitCode, signal: proc.signalCode ? String(proc.signalCode) : null };
    return info;
  })();
  const p: Proc = {
    name,
    pid: proc.pid,
    exited,
    exit: () => info,
    output: () => out,
    signal(sig) {
      if (!info) proc.kill(sig);
    },
    async stop(graceMs = 15_000) {
      if (info) return info;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async waitExit(timeoutMs) {
      return withTimeout(exited, timeoutMs, () => `${name} (pid ${proc.pid}) did not exit within ${timeoutMs} ms\n${describeProc(p)}`);
    },
  };
  return p;
}

export function describeProc(p: Proc): string {
  const o = p.output();
  const tail = o.length > 6000 ? `${o.slice(0, 1500)}\n…\n${o.slice(-4500)}` : o;
  return `--- ${p.name} (pid ${p.pid}, ${p.exit() ? `exited ${JSON.stringify(p.exit())}` : "running"}):\n${tail}`;
}

/** Every descendant of `pid` alive now (from /proc), children before grandchildren. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Field 4 is the ppid; the command name (field 2) may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** True while `pid` exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The command line of a live process, for messages. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "(gone)";
  }
}

// ---- waiting --------------------------------------------------------------------------------------------

export interface WaitOptions {
  timeoutMs: number;
  what: string;
  detail?: () => string | Promise<string>;
  intervalMs?: number;
  /** Fail at once if one of these exits first. */
  procs?: readonly Proc[];
}

/** Polls `cond` (sync or async; a throw counts as "not yet") until it holds, at most `timeoutMs`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await cond()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const dead = opts.procs?.find((p) => p.exit());
    const timedOut = Date.now() >= deadline;
    if (dead || timedOut) {
      const extra = opts.detail
        ? `\n${await Promise.resolve()
            .then(opts.detail)
            .catch((e: unknown) => `(no detail: ${String(e)})`)}`
        : "";
      const err = lastError ? `\nlast error: ${lastError instanceof Error ? lastError.message : String(lastError)}` : "";
      const why = dead
        ? `${dead.name} exited before ${opts.what}\n${describeProc(dead)}`
        : `timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`;
      throw new Error(`${why}${extra}${err}`);
    }
    await Bun.sleep(opts.intervalMs ?? 100);
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message())), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

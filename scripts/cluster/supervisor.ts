/**
 * The process manager of a local cluster: it starts each planned process (plan.ts) with its own log file
 * under DIR/logs, and when one exits without being asked to, starts it again with the same command (so
 * the same id, data directory and ports) after a backoff: 0.5 s, doubling with each exit in a row up to
 * 30 s, back to 0.5 s once a process has run for a minute. Only `stop()` ends a process for good: the
 * cluster stops when its operator says so, never because a part of it died.
 *
 * Children run in their own process group, so a Ctrl-C in the terminal reaches `cluster up` alone and it
 * stops them in order (frontier nodes, fetch nodes, coordinators, then the servers); if `cluster up`
 * itself exits without stopping them (a second Ctrl-C), the exit hook kills every group at once rather
 * than leaving orphans behind.
 *
 * `onChange` is called whenever a pid changes (start, exit, restart), for DIR/cluster.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, createWriteStream, existsSync, mkdirSync, writeFileSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import type { Log } from "../../kit/log/index.ts";
import type { ProcessPlan, Role } from "./plan.ts";

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A process that ran at least this long before exiting starts again after `initialMs`. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 30_000, stableMs: 60_000 };

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** How long that run lasted. */
  ranMs: number;
}

export interface ProcessStatus {
  plan: ProcessPlan;
  /** The running process, or null while it waits to be started again (or has stopped). */
  pid: number | null;
  /** Starts after the first. */
  restarts: number;
  state: "running" | "restarting" | "stopped";
  lastExit?: ExitInfo;
}

export interface SupervisorOptions {
  logDir: string;
  log: Log;
  backoff?: Backoff;
  /** A pid changed. */
  onChange?: () => void;
  /** A process exited unasked (before its restart is scheduled). */
  onExit?: (status: ProcessStatus, exit: ExitInfo) => void;
}

export class Supervisor {
  private readonly children = new Map<string, Supervised>();
  private readonly removeExitHook: () => void;

  constructor(private readonly opts: SupervisorOptions) {
    mkdirSync(opts.logDir, { recursive: true });
    const killAll = () => {
      for (const child of this.children.values()) child.killGroupNow();
    };
    process.on("exit", killAll);
    this.removeExitHook = () => process.off("exit", killAll);
  }

  /** Starts `plan`'s process and keeps it running until `stop`. */
  start(plan: ProcessPlan): void {
    if (this.children.has(plan.id)) throw new Error(`process ${plan.id} is already supervised`);
    const child = new Supervised(plan, this.opts);
    this.children.set(plan.id, child);
    child.start();
  }

  /** Every supervised process, in the order started. */
  status(): ProcessStatus[] {
    return [...this.children.values()].map((c) => c.status());
  }

  /** The running process of `id` (for tests and probes), if any. */
  pidOf(id: string): number | null {
    return this.children.get(id)?.status().pid ?? null;
  }

  /**
   * Stops every process for good, one group of roles after the other (each group at once): SIGTERM, then
   * SIGKILL after the process's own grace. Processes waiting for a restart are simply not restarted.
   */
  async stop(order: readonly (readonly Role[])[]): Promise<void> {
    const all = [...this.children.values()];
    for (const child of all) child.stopping = true;
    const groups = [...order.map((roles) => all.filter((c) => roles.includes(c.plan.role)))];
    groups.push(all.filter((c) => !order.some((roles) => roles.includes(c.plan.role))));
    for (const group of groups) await Promise.all(group.map((c) => c.stop()));
    this.removeExitHook();
  }
}

class Supervised {
  stopping = false;
  private proc: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private restarts = 0;
  private inARow = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastExit: ExitInfo | undefined;
  private stopped = false;

  constructor(
    readonly plan: ProcessPlan,
    private readonly opts: SupervisorOptions,
  ) {}

  status(): ProcessStatus {
    const running = this.proc !== undefined;
    return {
      plan: this.plan,
      pid: running ? (this.proc!.pid ?? null) : null,
      restarts: this.restarts,
      state: running ? "running" : this.stopped || this.stopping ? "stopped" : "restarting",
      ...(this.lastExit ? { lastExit: this.lastExit } : {}),
    };
  }

  start(): void {
    const { plan } = this;
    for (const d of plan.dirs) mkdirSync(d, { recursive: true });
    // writeFileSync keeps an existing file's mode: set it first, so a configuration that now holds
    // passwords (a DIR that ran without --secure before) is never readable by others.
    for (const file of plan.files) {
      const mode = file.mode ?? 0o644;
      if (existsSync(file.path)) chmodSync(file.path, mode);
      writeFileSync(file.path, file.text, { mode });
    }
    const logFile = createWriteStream(join(this.opts.logDir, `${plan.id}.log`), { flags: "a" });
    const startedAt = Date.now();
    const proc = spawn(plan.command, plan.args, {
      cwd: plan.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...plan.env },
      detached: true,
    });
    this.proc = proc;
    proc.stdout?.pipe(logFile, { end: false });
    proc.stderr?.pipe(logFile, { end: false });
    this.exited = new Promise<void>((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: string | null, spawnError?: Error) => {
        if (done) return;
        done = true;
        if (spawnError) logFile.write(`[cluster up] could not start ${plan.command}: ${spawnError.message}\n`);
        this.onExit(logFile, { code, signal, ranMs: Date.now() - startedAt });
        resolve();
      };
      proc.once("exit", (code, signal) => finish(code, signal));
      proc.once("error", (error) => finish(null, null, error));
    });
    this.opts.onChange?.();
  }

  private onExit(logFile: WriteStream, exit: ExitInfo): void {
    this.proc = undefined;
    this.lastExit = exit;
    logFile.end();
    if (this.stopping) {
      this.stopped = true;
      this.opts.onChange?.();
      return;
    }
    const backoff = this.opts.backoff ?? DEFAULT_BACKOFF;
    this.inARow = exit.ranMs >= backoff.stableMs ? 1 : this.inARow + 1;
    const delayMs = Math.min(backoff.maxMs, backoff.initialMs * 2 ** (this.inARow - 1));
    this.opts.onExit?.(this.status(), exit);
    this.opts.log.warn("process exited; starting it again", {
      id: this.plan.id,
      code: exit.code,
      signal: exit.signal,
      ranMs: exit.ranMs,
      restartInMs: delayMs,
      log: join(this.opts.logDir, `${this.plan.id}.log`),
    });
    this.opts.onChange?.();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) return;
      this.restarts++;
      this.start();
      this.opts.log.info("process started again", { id: this.plan.id, pid: this.proc?.pid, restarts: this.restarts });
    }, delayMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const proc = this.proc;
    if (!proc) {
      this.stopped = true;
      return;
    }
    proc.kill("SIGTERM");
    const kill = setTimeout(() => this.killGroupNow(), this.plan.stopGraceMs);
    await this.exited;
    clearTimeout(kill);
  }

  /** SIGKILL to the process's whole group, at once (also from the exit hook, so synchronous). */
  killGroupNow(): void {
    const pid = this.proc?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

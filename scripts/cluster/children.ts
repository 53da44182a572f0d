/**
 * The processes of a local cluster: each role started as a child with its own log file under DIR/logs,
 * watched so an unexpected exit is reported at once, and stopped in reverse order of start (SIGTERM, then
 * SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";

export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
}

export class Children {
  private readonly list: Child[] = [];
  stopping = false;

  constructor(
    private readonly logDir: string,
    private readonly onUnexpectedExit: (child: Child, code: number | null) => void,
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  start(name: string, cmd: string, args: string[], env: Record<string, string | undefined> = {}): Child {
    const log = createWriteStream(join(this.logDir, `${name}.log`), { flags: "a" });
    const proc = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    proc.stdout?.pipe(log, { end: false });
    proc.stderr?.pipe(log, { end: false });
    const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
    const child = { name, proc, exited };
    exited.then((code) => {
      log.end();
      if (!this.stopping) this.onUnexpectedExit(child, code);
    });
    this.list.push(child);
    return child;
  }

  get all(): readonly Child[] {
    return this.list;
  }

  /** Stops every child, last started first, each with `graceMs` before SIGKILL. */
  async stopAll(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const child of [...this.list].reverse()) await stopOne(child, graceMs);
  }
}

async function stopOne(child: Child, graceMs: number): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill("SIGTERM");
  const timer = setTimeout(() => child.proc.kill("SIGKILL"), graceMs);
  await child.exited;
  clearTimeout(timer);
}

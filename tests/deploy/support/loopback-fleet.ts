/**
 * Runs a rendered fleet on this machine: every machine on 127.0.0.1 with its own free ports and its own
 * directory (the fleet module's `machine_overrides` and `listen_host`), its files written where the fleet
 * put them, its secrets in a file-backed secret store read by the rendered `load-secrets`, and its
 * processes started with exactly the rendered argv and environment. Nothing of the rendering is changed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FleetMachine, FleetOutput } from "./terraform.ts";
import { unusedPort } from "../../../kit/net/index.ts";

/** Port keys each role has (fleet module, main.tf role_ports). */
const ROLE_PORTS: Record<FleetMachine["role"], string[]> = {
  coordinator: ["grpc", "http"],
  nats: ["client", "cluster", "gateway", "monitor"],
  redis: ["redis"],
  frontier: ["grpc", "http"],
  fetch: ["http"],
};

/** The node ids the fleet module gives a description (coordinator-N, then <region>-<role>-N). */
export function nodeIds(
  coordinators: number,
  regions: Record<string, Partial<Record<"nats" | "redis" | "frontier" | "fetch", number>>>,
): Map<string, FleetMachine["role"]> {
  const ids = new Map<string, FleetMachine["role"]>();
  for (let i = 1; i <= coordinators; i++) ids.set(`coordinator-${i}`, "coordinator");
  for (const [region, counts] of Object.entries(regions)) {
    const full = { nats: 3, redis: 1, ...counts } as Record<string, number>;
    for (const role of ["nats", "redis", "frontier", "fetch"] as const) {
      for (let i = 1; i <= (full[role] ?? 0); i++) ids.set(`${region}-${role}-${i}`, role);
    }
  }
  return ids;
}

/** machine_overrides that put every machine on 127.0.0.1 with free ports and a directory under `root`. */
export async function loopbackOverrides(ids: Map<string, FleetMachine["role"]>, root: string): Promise<Record<string, unknown>> {
  const overrides: Record<string, unknown> = {};
  const taken = new Set<number>();
  for (const [id, role] of ids) {
    const ports: Record<string, number> = {};
    for (const key of ROLE_PORTS[role]) ports[key] = await unusedPort(taken);
    overrides[id] = {
      host: "127.0.0.1",
      ports,
      config_dir: join(root, id, "etc"),
      state_dir: join(root, id, "state"),
      bin_dir: join(root, id, "bin"),
    };
  }
  return overrides;
}

/**
 * Writes a machine's files (those under its own directories; systemd units and the install script stay
 * unwritten), puts `secrets` (name -> value) in its file-backed secret store, and runs its rendered
 * load-secrets. Returns the environment its service gets from secrets.env.
 */
export function provisionMachine(machine: FleetMachine, secrets: Record<string, string>): Record<string, string> {
  const own = [machine.dirs.config, machine.dirs.bin, machine.dirs.state];
  for (const [path, file] of Object.entries(machine.files)) {
    if (!own.some((d) => path.startsWith(`${d}/`))) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.content);
    chmodSync(path, Number.parseInt(file.mode, 8));
  }
  for (const name of Object.values(machine.secret_names)) {
    const value = secrets[name];
    if (value === undefined) throw new Error(`no test value for the secret ${name}`);
    const path = join(machine.dirs.config, "secret-store", name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, value);
  }
  const r = spawnSync("sh", [join(machine.dirs.bin, "load-secrets")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`load-secrets of ${machine.host} failed: ${r.stderr}`);
  return parseEnvFile(readFileSync(join(machine.dirs.config, "secrets.env"), "utf8"));
}

/**
 * Starts a provisioned machine's service the way its rendered systemd unit would, without systemd: the
 * unit's ExecStartPre directories made (`install -d ... -m MODE DIR`; the owner is this test's user), its
 * ExecStart run in its WorkingDirectory with the environment of its EnvironmentFile= files as written on
 * the machine (its `<role>.env` and the `secrets.env` of load-secrets); `stop()` sends SIGTERM and kills
 * after the unit's TimeoutStopSec (a frontier unit's ExecStop drain is not run). Throws when the unit says
 * anything else that this cannot reproduce, or when its ExecStart is not the machine's rendered argv.
 */
export function startAsUnit(machine: FleetMachine): RunningProcess {
  const unit = machine.files[`/etc/systemd/system/${machine.unit}`]?.content;
  if (unit === undefined) throw new Error(`${machine.host}: no rendered unit ${machine.unit}`);
  const service = (key: string) =>
    unit
      .split("\n")
      .filter((l) => l.startsWith(`${key}=`))
      .map((l) => l.slice(key.length + 1));
  const execStart = service("ExecStart");
  if (execStart.length !== 1 || execStart[0] !== machine.argv.join(" ")) {
    throw new Error(
      `${machine.host}: the unit's ExecStart ${JSON.stringify(execStart)} is not the rendered argv ${JSON.stringify(machine.argv)}`,
    );
  }
  for (const pre of service("ExecStartPre")) {
    const m = /^\+\/usr\/bin\/install -d -o \S+ -g \S+ -m (0[0-7]{3}) (\/\S+)$/.exec(pre);
    if (!m) throw new Error(`${machine.host}: ExecStartPre=${pre} is not a directory this test knows how to make`);
    mkdirSync(m[2]!, { recursive: true, mode: Number.parseInt(m[1]!, 8) });
  }
  const env: Record<string, string> = {};
  for (const file of service("EnvironmentFile")) Object.assign(env, readEnvironmentFile(readFileSync(file, "utf8")));
  const [cwd] = service("WorkingDirectory");
  if (cwd !== machine.working_dir) throw new Error(`${machine.host}: WorkingDirectory=${cwd} is not the rendered ${machine.working_dir}`);
  if (service("KillSignal")[0] !== "SIGTERM")
    throw new Error(`${machine.host}: the unit stops with ${service("KillSignal")[0]}, not SIGTERM`);
  const stopTimeoutMs = Number(service("TimeoutStopSec")[0]) * 1_000;
  if (!(stopTimeoutMs > 0)) throw new Error(`${machine.host}: the unit has no TimeoutStopSec`);
  const started = startProcess(machine.argv, env, cwd);
  // Stopped as systemd stops it (ExecStop aside): SIGTERM, then SIGKILL after TimeoutStopSec.
  return { ...started, stop: (graceMs = stopTimeoutMs) => started.stop(graceMs) };
}

/**
 * systemd's EnvironmentFile= reading of the lines the fleet writes: KEY="value" with \\ \" \$ escapes
 * (the env files), or KEY=value unquoted (secrets.env, whose values are URL-safe or keys).
 */
export function readEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n").filter(Boolean)) {
    const quoted = /^([A-Z_][A-Z0-9_]*)="((?:[^"\\]|\\.)*)"$/.exec(line);
    const plain = /^([A-Z_][A-Z0-9_]*)=([^"'\\\s]*)$/.exec(line);
    if (quoted) env[quoted[1]!] = quoted[2]!.replace(/\\(.)/g, "$1");
    else if (plain) env[plain[1]!] = plain[2]!;
    else throw new Error(`not a KEY="value" or KEY=value line: ${line}`);
  }
  return env;
}

/** KEY=value lines as load-secrets writes them (values are URL-safe, never quoted). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

export interface RunningProcess {
  readonly pid: number;
  log(): string;
  /** Whether the process has ended (by itself or by stop()). */
  exited(): boolean;
  /** Resolves when `pattern` appears in the output; rejects when the process exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number, what: string): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs` (default 5 s); resolves with how it ended. */
  stop(graceMs?: number): Promise<ProcessExit>;
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Starts argv with `env` (added to this process's PATH only) in `cwd`, capturing its output. */
export function startProcess(argv: string[], env: Record<string, string>, cwd: string): RunningProcess {
  mkdirSync(cwd, { recursive: true });
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  let exited = false;
  let end: ProcessExit = { code: null, signal: null };
  const done = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      end = { code, signal };
      live.delete(child);
      resolve();
    });
    child.once("error", (err) => {
      output += `\n[spawn error] ${err.message}`;
      exited = true;
      live.delete(child);
      resolve();
    });
  });
  return {
    pid: child.pid ?? -1,
    log: () => output,
    exited: () => exited,
    waitFor: (pattern, timeoutMs, what) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (pattern.test(output)) {
            clearInterval(poll);
            resolve();
          } else if (exited) {
            clearInterval(poll);
            reject(new Error(`${what}: the process exited first; its output:\n${output}`));
          } else if (Date.now() - started > timeoutMs) {
            clearInterval(poll);
            reject(new Error(`${what}: not seen after ${timeoutMs} ms; output:\n${output}`));
          }
        }, 20);
      }),
    stop: async (graceMs = 5_000) => {
      if (!exited) {
        child.kill("SIGTERM");
        const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
        await done;
        clearTimeout(kill);
      }
      return end;
    },
  };
}

export type { FleetOutput };

/**
 * `runMain`: how every process (crawl, crawlctl, coordinator, frontier node, fetch node, cluster up) starts,
 * stops and exits, written once. In order:
 *
 *  - `--help` (or `-h`): the usage, generated from the process's configuration table, on stdout; exit 0.
 *  - configuration: `configure(argv, env)`; a ConfigError (core/config) prints its message and the usage
 *    on stderr and exits 2, before anything is opened. The same holds for a ConfigError thrown later by
 *    `run` (a seeds file that cannot be read, a command without its argument).
 *  - the log: JSON lines, or text when stderr is a terminal, unless `--log-format` says otherwise.
 *  - `run`: the process opens its parts, registering a named close step for each (`onClose`), works, and
 *    waits for `stopRequested`. The first SIGINT/SIGTERM starts a clean stop; a second one exits at once
 *    (130), after a line saying what that costs. A failure to start (StartupError, whose message says what
 *    to do) or any other error ends the process with exit 1 and a log line.
 *  - the close steps, last registered first, each failure logged without hiding the others.
 *  - exit: once stdout and stderr have been taken by their readers, the process exits with the code, so a
 *    library's idle socket (undici keep-alive, a Redis client) never keeps a stopped process alive.
 *
 * The runtime is reached only through the RuntimePort (kit/runtime.ts), so this runs on Bun and Deno, and a
 * test drives it with an in-memory runtime (memory-runtime.ts).
 */
import { ConfigError, type Env } from "../../core/config/index.ts";
import type { Log } from "../../core/ports/index.ts";
import { chooseLogFormat, errorFields, errorText, formatLog, type LogFormat } from "../log/index.ts";
import { hostRuntime, type RuntimePort } from "../runtime.ts";
import { CloseSteps } from "./close-steps.ts";
import { StartupError } from "./startup-error.ts";

export type StopSignalName = "SIGINT" | "SIGTERM";

/** Exit code of a process stopped by a second signal, as a shell reports a SIGINT: 128 + 2. */
export const ABRUPT_EXIT_CODE = 130;

export interface ProcessSpec<C> {
  /** The name in messages and log lines: `crawl`, `coordinator`, `fetch-node`... */
  readonly name: string;
  /** The `--help` text, generated from the configuration table; `argv` lets a command answer per subcommand. */
  usage(argv: readonly string[]): string;
  /** Reads the configuration from argv and env; throws ConfigError listing what is wrong. */
  configure(argv: readonly string[], env: Env): C;
  /** The `--log-format` the configuration gives; undefined (or absent): by the terminal. */
  logFormat?(config: C): LogFormat | undefined;
  /** What a clean stop does, said when it starts ("fetches in flight get 2 s to finish"). */
  stopNote?(config: C): string;
  /** What exiting at once on a second signal costs, said before exiting ("unacked tasks are redelivered"). */
  readonly abruptStopCost: string;
  /** Runs the process; resolves with its exit code once it has stopped (the close steps run after). */
  run(context: ProcessContext<C>): Promise<number>;
}

export interface ProcessContext<C> {
  readonly config: C;
  readonly env: Env;
  readonly runtime: RuntimePort;
  readonly log: Log;
  /** Writes results to stdout (flushed before the process exits). */
  out(text: string): void;
  /** Registers a close step: after `run`, steps run last registered first, whatever happened. */
  onClose(name: string, close: () => unknown): void;
  /** Resolves with the first SIGINT/SIGTERM: time to stop cleanly. */
  readonly stopRequested: Promise<StopSignalName>;
  /** Aborted at the first SIGINT/SIGTERM, for loops and calls that take a signal. */
  readonly stopSignal: AbortSignal;
}

/** Runs the process to its end and exits with its code. The composition root's last line. */
export async function runMain<C>(spec: ProcessSpec<C>, runtime: RuntimePort = hostRuntime()): Promise<never> {
  const code = await runProcess(spec, runtime);
  // The process has stopped and exits with `code` once its output is out. A stop signal arriving now (a
  // Ctrl-C just as a crawl ends on its own) must not find the default action, which would end the process
  // by the signal, its code lost and its output perhaps cut: the first one is held, a second exits at once.
  let signals = 0;
  runtime.onStopSignal(() => {
    if (++signals > 1) runtime.exit(code);
  });
  await runtime.flush();
  return runtime.exit(code);
}

/** Everything `runMain` does but the final exit; resolves with the exit code. */
export async function runProcess<C>(spec: ProcessSpec<C>, runtime: RuntimePort): Promise<number> {
  const argv = runtime.argv();
  const configError = (error: ConfigError): number => {
    runtime.stderr(`${spec.name}: ${error.message}\n\n${spec.usage(argv)}`);
    return 2;
  };
  if (argv.includes("--help") || argv.includes("-h")) {
    runtime.stdout(spec.usage(argv));
    return 0;
  }

  let env: Env;
  let config: C;
  try {
    env = runtime.env();
    config = spec.configure(argv, env);
  } catch (error) {
    if (error instanceof ConfigError) return configError(error);
    // Not the input's fault (Deno refusing to read the environment, a bug): say what it was.
    runtime.stderr(`${spec.name}: cannot start: ${errorText(error)}\n`);
    return 1;
  }

  const log = formatLog(chooseLogFormat(spec.logFormat?.(config), runtime.stderrIsTerminal()), spec.name, runtime.stderr);
  const closing = new CloseSteps();
  const stop = new AbortController();
  let requestStop!: (signal: StopSignalName) => void;
  const stopRequested = new Promise<StopSignalName>((resolve) => (requestStop = resolve));
  const removeSignals = runtime.onStopSignal((signal) => {
    if (stop.signal.aborted) {
      log.warn(`${signal} again: exiting now; ${spec.abruptStopCost}`);
      runtime.exit(ABRUPT_EXIT_CODE);
    }
    const note = spec.stopNote?.(config);
    log.info(`${signal}: stopping${note ? ` (${note})` : ""}; a second ${signal} exits at once`);
    stop.abort(signal);
    requestStop(signal);
  });

  let code: number;
  try {
    code = await spec.run({
      config,
      env,
      runtime,
      log,
      out: (text) => runtime.stdout(text),
      onClose: (name, close) => closing.add(name, close),
      stopRequested,
      stopSignal: stop.signal,
    });
  } catch (error) {
    if (error instanceof ConfigError) code = configError(error);
    else if (error instanceof StartupError) {
      log.error(error.message, error.cause === undefined ? undefined : errorFields(error.cause));
      code = 1;
    } else {
      log.error(`${spec.name} stopped on an unexpected error`, errorFields(error));
      code = 1;
    }
  }
  await closing.run(log);
  removeSignals();
  return code;
}

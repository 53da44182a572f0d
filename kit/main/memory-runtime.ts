/**
 * A RuntimePort in memory, for tests of the process kit and of processes run inside a test: argv and env
 * are given, output is kept, signals are sent by `signal()`, and `exit` records the code and throws
 * `ExitCalled` (a real exit would end the test runner), so a test sees exactly where the process would
 * have ended.
 */
import type { RuntimePort } from "../runtime.ts";

/** Thrown by the in-memory runtime's `exit`, in place of ending the process. */
export class ExitCalled extends Error {
  override name = "ExitCalled";
  constructor(readonly code: number) {
    super(`exit(${code})`);
  }
}

export interface MemoryRuntime extends RuntimePort {
  /** Everything written to stdout and stderr so far. */
  readonly written: { stdout: string; stderr: string };
  /** Codes passed to `exit`, in order. */
  readonly exits: number[];
  /** Delivers a stop signal to the handlers, as the system would. */
  signal(name: "SIGINT" | "SIGTERM"): void;
  /** How many stop-signal handlers are installed. */
  readonly handlers: number;
}

export function memoryRuntime(
  argv: readonly string[] = [],
  env: Record<string, string> = {},
  opts: { terminal?: boolean } = {},
): MemoryRuntime {
  const handlers = new Set<(signal: "SIGINT" | "SIGTERM") => void>();
  const written = { stdout: "", stderr: "" };
  const exits: number[] = [];
  return {
    name: "bun",
    version: "test",
    written,
    exits,
    get handlers() {
      return handlers.size;
    },
    argv: () => [...argv],
    env: () => ({ ...env }),
    onStopSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    signal(name) {
      for (const handler of [...handlers]) handler(name);
    },
    setExitCode() {},
    exit(code): never {
      exits.push(code);
      throw new ExitCalled(code);
    },
    stdout: (text) => void (written.stdout += text),
    stderr: (text) => void (written.stderr += text),
    stderrIsTerminal: () => opts.terminal === true,
    flush: async () => {},
  };
}

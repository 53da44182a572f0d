/**
 * Every process's one door to the runtime it runs on (the process kit, kit/main, reaches it only through
 * this port), so every other file is the same on Bun and Deno (nats.js reaches its runtime through one
 * `Transport` the same way). Both runtimes implement Node's `process` (argv, env, signals, output, exit),
 * so that is what this port wraps; the only runtime-specific question is which runtime this is, answered
 * by the `Deno` global (Bun has none). Nothing here runs at import: `hostRuntime()` builds the port when
 * the composition root asks for it.
 *
 * Output goes through `stdout`/`stderr` so that `flush` can wait for it: Bun drops what a pipe has not
 * taken yet when the process exits (measured: 64 KiB of 5 MB reached a slow reader), Deno does not.
 *
 * Deno note: reading `process.env` needs `--allow-env`. undici probes an open-ended set of variables at
 * import (UNDICI_NO_WASM_SIMD, proxy variables, ...), so the flag must be unrestricted anyway.
 */

export type RuntimeName = "bun" | "deno";

export interface RuntimePort {
  readonly name: RuntimeName;
  /** Version string of the runtime, for logs and the node record. */
  readonly version: string;
  /** Command-line arguments after the script path. */
  argv(): string[];
  /** The environment, read once per call (a snapshot: later changes are not seen). */
  env(): Record<string, string | undefined>;
  /** Calls `handler` on SIGINT and SIGTERM; returns the function that removes the handlers. */
  onStopSignal(handler: (signal: "SIGINT" | "SIGTERM") => void): () => void;
  /** Sets the exit code the process ends with once its event loop is empty. */
  setExitCode(code: number): void;
  /** Ends the process now (second Ctrl-C, or after `flush` once it has stopped). */
  exit(code: number): never;
  /** Writes to standard output (results a caller reads: a summary, JSON, addresses). */
  stdout(text: string): void;
  /** Writes to standard error (log lines, messages for people). */
  stderr(text: string): void;
  /** Whether standard error is a terminal (a person reads it), which decides the log format. */
  stderrIsTerminal(): boolean;
  /** Resolves once everything written through `stdout` and `stderr` has been taken by the reader. */
  flush(): Promise<void>;
}

/** Which runtime runs this code: Deno defines a `Deno` global, Bun does not. */
export function detectRuntime(): RuntimeName {
  return typeof (globalThis as { Deno?: unknown }).Deno !== "undefined" ? "deno" : "bun";
}

export function hostRuntime(): RuntimePort {
  const name = detectRuntime();
  const versions = process.versions as Record<string, string | undefined>;
  const out = drainTracker(process.stdout);
  const err = drainTracker(process.stderr);
  return {
    name,
    version: (name === "deno" ? versions["deno"] : versions["bun"]) ?? "unknown",
    argv: () => process.argv.slice(2),
    env: () => ({ ...process.env }),
    onStopSignal(handler) {
      const onInt = () => handler("SIGINT");
      const onTerm = () => handler("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
      };
    },
    setExitCode(code) {
      process.exitCode = code;
    },
    exit: (code) => process.exit(code),
    stdout: out.write,
    stderr: err.write,
    stderrIsTerminal: () => process.stderr.isTTY === true,
    flush: async () => {
      await Promise.all([out.drained(), err.drained()]);
    },
  };
}

/** Writes to `stream`, remembering when the stream asked the writer to wait for `drain`. */
function drainTracker(stream: NodeJS.WriteStream): { write(text: string): void; drained(): Promise<void> } {
  let waiting: Promise<void> | undefined;
  return {
    write(text) {
      if (stream.write(text) || waiting) return;
      waiting = new Promise<void>((resolve) =>
        stream.once("drain", () => {
          waiting = undefined;
          resolve();
        }),
      );
    },
    drained: () => waiting ?? Promise.resolve(),
  };
}

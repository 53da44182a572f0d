/**
 * `crawlctl`, the SRE's command line. This file is its composition root: it picks the command from the
 * command words, and hands the rest of the arguments to that command module. Start, help, exit codes and
 * output flushing are the process kit's (kit/main `runMain`): a bad invocation (ConfigError, UsageError)
 * prints the message and the command's usage and exits 2; `--help` prints the usage. Offline commands
 * (robots, url) work on files and arguments with core/ alone; cluster commands talk to the coordinator over
 * gRPC, and read their flags through their table (cluster/options.ts).
 */
import { readFile } from "node:fs/promises";
import { ConfigError, type Env } from "../core/config/index.ts";
import { errorInfo } from "../kit/log/index.ts";
import { runMain, type ProcessSpec } from "../kit/main/index.ts";
import type { RuntimePort } from "../kit/runtime.ts";
import type { CliIo } from "./io.ts";
import { commands, commandUsage, usage, type Command } from "./commands/index.ts";

/** What `crawlctl` was asked to do: a command and its arguments, or the general help. */
export type Invocation = { command: Command; rest: string[] } | { help: true };

function findCommand(argv: readonly string[]): Command | undefined {
  return commands.find((c) => c.words.every((w, i) => argv[i] === w));
}

function resolveInvocation(argv: readonly string[], _env: Env): Invocation {
  if (argv[0] === "help") return { help: true };
  if (argv.length === 0) throw new ConfigError("no command given");
  const command = findCommand(argv);
  if (!command) throw new ConfigError(`unknown command '${argv.slice(0, 2).join(" ")}'`);
  return { command, rest: argv.slice(command.words.length) };
}

export const crawlctlProcess: ProcessSpec<Invocation> = {
  name: "crawlctl",
  usage: (argv) => {
    const command = findCommand(argv);
    return command ? commandUsage(command) : usage();
  },
  configure: resolveInvocation,
  abruptStopCost: "a command cut short may have done part of its work (seeds add in batches of 5,000)",
  async run(ctx) {
    const invocation = ctx.config;
    if ("help" in invocation) {
      ctx.out(usage());
      return 0;
    }
    const { command, rest } = invocation;
    const io = runtimeIo(ctx.runtime);
    const ran = command.run(rest, io, ctx.env).catch((error: unknown) => {
      if (error instanceof ConfigError) throw error;
      io.err(`crawlctl ${command.words.join(" ")}: ${errorInfo(error).message}\n`);
      return 1;
    });
    // Ctrl-C ends a command at once (a `status --watch` has no other end); 130 as a shell reports it.
    return Promise.race([ran, ctx.stopRequested.then(() => 130)]);
  },
};

/** The commands' output port over the process's runtime, so output is flushed before crawlctl exits. */
export function runtimeIo(runtime: RuntimePort): CliIo {
  return {
    out: (text) => runtime.stdout(text),
    err: (text) => runtime.stderr(text),
    readText: async (path) => {
      try {
        return await readFile(path, "utf8");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "error";
        throw new Error(`cannot read ${path}: ${code}`);
      }
    },
  };
}

if (import.meta.main) await runMain(crawlctlProcess);

/**
 * `crawlctl`, the SRE's command line. This file is its composition root: it parses the command words,
 * hands the rest of the arguments to one command module, and maps a bad invocation to a usage message
 * and exit code 2. Offline commands (robots, url) work on files and arguments with core/ alone; cluster
 * commands talk to the coordinator over gRPC.
 */
import { readFile } from "node:fs/promises";
import { type CliIo, UsageError } from "./io.ts";
import { commands, usage } from "./commands/index.ts";

export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    io.out(usage());
    return argv.length === 0 ? 2 : 0;
  }
  const match = commands.find((c) => c.words.every((w, i) => argv[i] === w));
  if (!match) {
    io.err(`crawlctl: unknown command '${argv.slice(0, 2).join(" ")}'\n\n${usage()}`);
    return 2;
  }
  const rest = argv.slice(match.words.length);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(`usage: crawlctl ${match.words.join(" ")} ${match.args}\n  ${match.summary}\n`);
    return 0;
  }
  try {
    return await match.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`crawlctl ${match.words.join(" ")}: ${error.message}\nusage: crawlctl ${match.words.join(" ")} ${match.args}\n`);
      return 2;
    }
    io.err(`crawlctl ${match.words.join(" ")}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readText: async (path) => {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      throw new Error(`cannot read ${path}: ${code}`);
    }
  },
};

if (import.meta.main) {
  const code = await main(process.argv.slice(2), processIo);
  process.exitCode = code;
}

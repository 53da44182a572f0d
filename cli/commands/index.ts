/**
 * The table of `crawlctl` commands: the words that select each one, its argument synopsis, one line of
 * help, and the function that runs it. The dispatcher in main.ts and the usage text both read it.
 */
import type { CliIo } from "../io.ts";
import { robotsCheckCommand } from "./robots-check.ts";
import { robotsStatusCommand } from "./robots-status.ts";
import { urlNormalizeCommand } from "./url-normalize.ts";

export interface Command {
  words: string[];
  args: string;
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

export const commands: Command[] = [
  {
    words: ["robots", "check"],
    args: "--robots-file FILE --agent AGENT URL...",
    summary: "prints `allowed URL` or `disallowed URL` for each URL under that robots.txt",
    run: robotsCheckCommand,
  },
  {
    words: ["robots", "status"],
    args: "STATUS|unreachable|redirect-loop|S1,S2,...",
    summary: "prints what a robots.txt fetch with those statuses means: allow-all, disallow-all or parse",
    run: robotsStatusCommand,
  },
  {
    words: ["url", "normalize"],
    args: "[--base BASE] URL...",
    summary: "prints each URL normalized as the crawler stores it, or `REJECT <reason>`",
    run: urlNormalizeCommand,
  },
];

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.words.join(" ").length));
  const lines = commands.map((c) => `  ${c.words.join(" ").padEnd(width)}  ${c.args}\n  ${" ".repeat(width)}  ${c.summary}`);
  return `usage: crawlctl COMMAND [ARGS]\n\ncommands:\n${lines.join("\n")}\n\nRun \`crawlctl COMMAND --help\` for one command.\n`;
}

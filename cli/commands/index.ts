/**
 * The table of `crawlctl` commands: the words that select each one, its argument synopsis, one line of
 * help, and the function that runs it. The dispatcher in main.ts and the usage text both read it.
 */
import type { CliIo } from "../io.ts";
import { robotsCheckCommand } from "./robots-check.ts";
import { robotsStatusCommand } from "./robots-status.ts";
import { urlNormalizeCommand } from "./url-normalize.ts";
import {
  hostPauseCommand,
  hostShowCommand,
  nodeDrainCommand,
  nodesCommand,
  ringCommand,
  seedAddCommand,
  statusCommand,
  urlExplainCommand,
} from "../cluster/commands.ts";

const env = process.env;
const CLUSTER = "[--coordinator ADDR] [--token TOKEN] [--json]";

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
  { words: ["status"], args: `${CLUSTER} [--watch] [--interval S]`, summary: "cluster totals and rates", run: statusCommand(env) },
  {
    words: ["nodes"],
    args: CLUSTER,
    summary: "every frontier and fetch node: role, region, runtime, state, partitions",
    run: nodesCommand(env),
  },
  { words: ["ring"], args: CLUSTER, summary: "which frontier node owns which partitions, per region", run: ringCommand(env) },
  { words: ["seed", "add"], args: `${CLUSTER} [--file FILE] URL...`, summary: "adds seed URLs to the crawl", run: seedAddCommand(env) },
  {
    words: ["host", "show"],
    args: `${CLUSTER} HOST`,
    summary: "a host's queue, politeness and robots.txt state",
    run: hostShowCommand(env),
  },
  {
    words: ["host", "pause"],
    args: `${CLUSTER} HOST`,
    summary: "stops fetching from a host until resumed",
    run: hostPauseCommand(env, true),
  },
  { words: ["host", "resume"], args: `${CLUSTER} HOST`, summary: "resumes a paused host", run: hostPauseCommand(env, false) },
  {
    words: ["url", "explain"],
    args: `${CLUSTER} URL`,
    summary: "why a URL is where it is: normalized form, owner, seen, robots, state",
    run: urlExplainCommand(env),
  },
  {
    words: ["node", "drain"],
    args: `${CLUSTER} NODE-ID`,
    summary: "moves a frontier node's partitions away and stops it handing out work",
    run: nodeDrainCommand(env),
  },
];

export function usage(): string {
  const width = Math.max(...commands.map((c) => c.words.join(" ").length));
  const lines = commands.map((c) => `  ${c.words.join(" ").padEnd(width)}  ${c.args}\n  ${" ".repeat(width)}  ${c.summary}`);
  return `usage: crawlctl COMMAND [ARGS]\n\ncommands:\n${lines.join("\n")}\n\nCluster commands reach the coordinator at --coordinator or CRAWLCTL_COORDINATOR, with --token or CRAWLCTL_TOKEN.\nRun \`crawlctl COMMAND --help\` for one command.\n`;
}

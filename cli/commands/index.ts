/**
 * The table of `crawlctl` commands: the words that select each one, its argument synopsis, one line of
 * help, and the function that runs it (given the process's environment, where the cluster commands find
 * CRAWLCTL_*). The dispatcher in main.ts and the usage text both read it.
 */
import type { Env } from "../../core/config/index.ts";
import { usageText } from "../../core/config/index.ts";
import { CLUSTER_FIELDS } from "../cluster/options.ts";
import type { CliIo } from "../io.ts";
import { robotsCheckCommand } from "./robots-check.ts";
import { robotsStatusCommand } from "./robots-status.ts";
import { urlNormalizeCommand } from "./url-normalize.ts";
import { CERTS_FIELDS, certsInitCommand, certsNodeCommand } from "./certs.ts";

export { CERTS_FIELDS };
import {
  hostPauseCommand,
  hostShowCommand,
  nodeDrainCommand,
  nodesCommand,
  ringCommand,
  statusCommand,
  urlCapturesCommand,
  urlExplainCommand,
} from "../cluster/commands.ts";
import { seedAddCommand } from "../cluster/seed-add.ts";
import { jobChangeCommand, jobCreateCommand, jobListCommand, jobSeedCommand, jobShowCommand } from "../cluster/job.ts";
import { maxOf } from "../../core/stats/index.ts";

const CLUSTER = "[--coordinator ADDR] [--token TOKEN] [--tls-ca-file FILE] [--json]";

export interface Command {
  words: string[];
  args: string;
  summary: string;
  run(argv: string[], io: CliIo, env: Env): Promise<number>;
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
  {
    words: ["certs", "init"],
    args: "--dir DIR [--days N]",
    summary: "makes a private CA in DIR (ca.pem, ca.key) for the cluster's TLS",
    run: (argv, io, env) => certsInitCommand(env)(argv, io),
  },
  {
    words: ["certs", "node"],
    args: "--dir DIR --role ROLE --id ID [--hosts H,H] [--days N]",
    summary: "makes DIR/ID.pem and DIR/ID.key, signed by the CA of DIR, naming the node's role and id",
    run: (argv, io, env) => certsNodeCommand(env)(argv, io),
  },
  {
    words: ["status"],
    args: `${CLUSTER} [--watch] [--interval S]`,
    summary: "cluster totals and rates",
    run: (argv, io, env) => statusCommand(env)(argv, io),
  },
  {
    words: ["nodes"],
    args: CLUSTER,
    summary: "every frontier and fetch node: role, region, runtime, state, partitions",
    run: (argv, io, env) => nodesCommand(env)(argv, io),
  },
  {
    words: ["ring"],
    args: CLUSTER,
    summary: "which frontier node owns which partitions, per region",
    run: (argv, io, env) => ringCommand(env)(argv, io),
  },
  {
    words: ["seed", "add"],
    args: `${CLUSTER} [--file FILE] URL...`,
    summary: "adds seed URLs to the crawl",
    run: (argv, io, env) => seedAddCommand(env)(argv, io),
  },
  {
    words: ["job", "create"],
    args: `${CLUSTER} [--max-pages N] [--max-duration D] [--weight W] [--scope S] [--max-depth N] [--allow-hosts H,H] [--allow-urls P] [--deny-urls P] [--feeds FILE] ID URL...`,
    summary: "creates a crawl job with its seeds (and feeds), scope and limits",
    run: (argv, io, env) => jobCreateCommand(env)(argv, io),
  },
  {
    words: ["job", "list"],
    args: CLUSTER,
    summary: "every crawl job: state, pages, queued, errors",
    run: (argv, io, env) => jobListCommand(env)(argv, io),
  },
  {
    words: ["job", "show"],
    args: `${CLUSTER} ID`,
    summary: "one crawl job: settings, state, reason, counters",
    run: (argv, io, env) => jobShowCommand(env)(argv, io),
  },
  {
    words: ["job", "pause"],
    args: `${CLUSTER} ID`,
    summary: "stops handing out the job's URLs until resumed",
    run: (argv, io, env) => jobChangeCommand(env, "pause")(argv, io),
  },
  {
    words: ["job", "resume"],
    args: `${CLUSTER} ID`,
    summary: "resumes a paused job",
    run: (argv, io, env) => jobChangeCommand(env, "resume")(argv, io),
  },
  {
    words: ["job", "cancel"],
    args: `${CLUSTER} ID`,
    summary: "ends a job and drops its queued URLs",
    run: (argv, io, env) => jobChangeCommand(env, "cancel")(argv, io),
  },
  {
    words: ["job", "seed"],
    args: `${CLUSTER} [--feeds FILE] ID [URL...]`,
    summary: "adds seed URLs (and feeds, read as feeds) to a job",
    run: (argv, io, env) => jobSeedCommand(env)(argv, io),
  },
  {
    words: ["host", "show"],
    args: `${CLUSTER} HOST`,
    summary: "a host's queue, politeness and robots.txt state",
    run: (argv, io, env) => hostShowCommand(env)(argv, io),
  },
  {
    words: ["host", "pause"],
    args: `${CLUSTER} HOST`,
    summary: "stops fetching from a host until resumed",
    run: (argv, io, env) => hostPauseCommand(env, true)(argv, io),
  },
  {
    words: ["host", "resume"],
    args: `${CLUSTER} HOST`,
    summary: "resumes a paused host",
    run: (argv, io, env) => hostPauseCommand(env, false)(argv, io),
  },
  {
    words: ["url", "explain"],
    args: `${CLUSTER} URL`,
    summary: "why a URL is where it is: normalized form, owner, seen, robots, state",
    run: (argv, io, env) => urlExplainCommand(env)(argv, io),
  },
  {
    words: ["url", "captures"],
    args: `${CLUSTER} [--limit N] URL`,
    summary: "where a URL's last captures are stored: WARC file, offset and length of each, newest first",
    run: (argv, io, env) => urlCapturesCommand(env)(argv, io),
  },
  {
    words: ["node", "drain"],
    args: `${CLUSTER} NODE-ID`,
    summary: "moves a frontier node's partitions away and stops it handing out work",
    run: (argv, io, env) => nodeDrainCommand(env)(argv, io),
  },
];

export function usage(): string {
  const width = maxOf(commands.map((c) => c.words.join(" ").length));
  const lines = commands.map((c) => `  ${c.words.join(" ").padEnd(width)}  ${c.args}\n  ${" ".repeat(width)}  ${c.summary}`);
  return `usage: crawlctl COMMAND [ARGS]\n\ncommands:\n${lines.join("\n")}\n\nCluster commands reach the coordinator at --coordinator or CRAWLCTL_COORDINATOR, with --token or CRAWLCTL_TOKEN\n(and --tls-ca-file or CRAWLCTL_TLS_CA_FILE when its gRPC is TLS).\nRun \`crawlctl COMMAND --help\` for one command.\n`;
}

/** One command's help; a cluster command's also lists the cluster flags its synopsis names, from their table. */
export function commandUsage(command: Command): string {
  const head = [`usage: crawlctl ${command.words.join(" ")} ${command.args}`];
  const about = [`  ${command.summary}`];
  if (command.words[0] === "certs") {
    const rows = CERTS_FIELDS.filter((row) => command.args.includes(`${row.flag} `));
    return usageText(head, about, [{ title: "options", rows }]);
  }
  if (!command.args.startsWith(CLUSTER)) return `${[...head, ...about].join("\n")}\n`;
  const rows = CLUSTER_FIELDS.filter((row) => command.args.includes(`${row.flag} `) || command.args.includes(`${row.flag}]`));
  return usageText(head, about, [{ title: "options", rows }]);
}

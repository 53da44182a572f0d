/**
 * `crawlctl robots check --robots-file FILE --agent AGENT URL...`: answers, offline, whether the crawler
 * named AGENT may fetch each URL under a robots.txt file, using the same core/robots policy the fetch
 * node applies. One line per URL, in the order given (`allowed URL` / `disallowed URL`), written in one
 * batch so thousands of URLs cost one process start. URLs may be absolute or paths.
 */
import { errorInfo } from "../../kit/log/index.ts";
import { parseRobots, policyFor } from "../../core/robots/index.ts";
import { type CliIo, UsageError } from "../io.ts";

interface CheckArgs {
  robotsFile: string;
  agent: string;
  urls: string[];
}

export async function robotsCheckCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv);
  let text: string;
  try {
    text = await io.readText(args.robotsFile);
  } catch (error) {
    io.err(`crawlctl robots check: ${errorInfo(error).message}\n`);
    return 1;
  }
  const policy = policyFor(parseRobots(text), args.agent);
  const lines = args.urls.map((url) => `${policy.isAllowed(url) ? "allowed" : "disallowed"} ${url}\n`);
  io.out(lines.join(""));
  return 0;
}

function parseArgs(argv: string[]): CheckArgs {
  const flags = new Map<string, string>();
  const urls: string[] = [];
  let onlyUrls = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (onlyUrls || !arg.startsWith("-")) {
      urls.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyUrls = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (name !== "--robots-file" && name !== "--agent") throw new UsageError(`unknown flag '${name}'`);
    let value: string | undefined;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      value = argv[i + 1];
      i++;
    }
    // `--agent --robots-file x` is a forgotten value, not an agent called "--robots-file".
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("--"))) {
      throw new UsageError(`${name} needs a value`);
    }
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    flags.set(name, value);
  }
  const robotsFile = flags.get("--robots-file");
  const agent = flags.get("--agent");
  if (robotsFile === undefined) throw new UsageError("missing --robots-file FILE");
  if (agent === undefined) throw new UsageError("missing --agent AGENT");
  if (urls.length === 0) throw new UsageError("no URL to check");
  return { robotsFile, agent, urls };
}

/**
 * The flags every cluster command shares: where the coordinator is (`--coordinator ADDR` or
 * CRAWLCTL_COORDINATOR), its token (`--token` or CRAWLCTL_TOKEN), `--json` for scripts and `--watch` for a
 * live view. Parses them out of a command's arguments and hands back the rest.
 */
import { UsageError } from "../io.ts";

export interface ClusterOptions {
  coordinator: string;
  token?: string;
  json: boolean;
  watch: boolean;
  /** Seconds between refreshes with --watch. */
  intervalS: number;
  rest: string[];
  /** Values of the command's own flags (e.g. --file). */
  flags: Map<string, string>;
}

export function parseClusterOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  own: { valued?: string[]; switches?: string[] } = {},
): ClusterOptions {
  const flags = new Map<string, string>();
  const rest: string[] = [];
  let coordinator = env["CRAWLCTL_COORDINATOR"];
  let token = env["CRAWLCTL_TOKEN"];
  let json = false;
  let watch = false;
  let intervalS = 2;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const take = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === "--coordinator") coordinator = take();
    else if (arg === "--token") token = take();
    else if (arg === "--json") json = true;
    else if (arg === "--watch") watch = true;
    else if (arg === "--interval") {
      intervalS = Number(take());
      if (!(intervalS > 0)) throw new UsageError("--interval must be a positive number of seconds");
    } else if (own.valued?.includes(arg)) flags.set(arg, take());
    else if (own.switches?.includes(arg)) flags.set(arg, "true");
    else if (arg.startsWith("--")) throw new UsageError(`unknown option ${arg}`);
    else rest.push(arg);
  }
  if (!coordinator) throw new UsageError("no coordinator address: give --coordinator HOST:PORT or set CRAWLCTL_COORDINATOR");
  return { coordinator, token, json, watch, intervalS, rest, flags };
}

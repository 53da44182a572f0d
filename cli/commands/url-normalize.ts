/**
 * `crawlctl url normalize [--base BASE] URL...`: the offline command that shows what the crawler will
 * store for a URL, using the same `normalizeUrl` as every role. It prints one line per URL, in order: the
 * normalized URL or `REJECT <reason>`. A rejection is an answer, not a failure, so the exit code is 0;
 * only a bad invocation throws `UsageError`.
 */
import { normalizeUrl } from "../../core/url/index.ts";
import { UsageError, type CliIo } from "../io.ts";

type Invocation = { base: string | undefined; urls: string[] };

export async function urlNormalizeCommand(argv: string[], io: CliIo): Promise<number> {
  const { base, urls } = parseArgs(argv);
  const lines: string[] = new Array(urls.length);
  for (let i = 0; i < urls.length; i++) {
    const result = normalizeUrl(urls[i]!, base);
    lines[i] = result.ok ? result.url : `REJECT ${result.reason}`;
  }
  // One write for the whole batch: a call may carry thousands of URLs.
  io.out(lines.join("\n") + "\n");
  return 0;
}

/** Reads `--base BASE` (or `--base=BASE`) anywhere before `--`; every other argument is a URL. */
function parseArgs(argv: string[]): Invocation {
  let base: string | undefined;
  const urls: string[] = [];
  let flagsDone = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (flagsDone || !arg.startsWith("-") || arg === "-") {
      urls.push(arg);
    } else if (arg === "--") {
      flagsDone = true;
    } else if (arg === "--base" || arg.startsWith("--base=")) {
      if (base !== undefined) throw new UsageError(`url normalize: --base given twice`);
      const value = arg === "--base" ? argv[++i] : arg.slice("--base=".length);
      if (value === undefined || value === "") throw new UsageError(`url normalize: --base needs a URL`);
      base = checkedBase(value);
    } else {
      throw new UsageError(`url normalize: unknown flag ${arg}`);
    }
  }
  if (urls.length === 0) throw new UsageError(`url normalize: no URL given`);
  return { base, urls };
}

/** A base that cannot be used would reject every relative URL; that is a mistake in the call, not a result. */
function checkedBase(value: string): string {
  const result = normalizeUrl(value);
  if (!result.ok) throw new UsageError(`url normalize: --base ${value} is not a usable URL (${result.reason})`);
  return value;
}

/**
 * `crawlctl robots status STATUS`: prints what a robots.txt fetch outcome means for a host (`allow-all`,
 * `disallow-all` or `parse`), by the same core/robots mapping the fetch node uses (RFC 9309 section
 * 2.3.1). STATUS is one HTTP status, `unreachable`, `redirect-loop`, or the comma-separated statuses of
 * successive fetches (`301,302,200`), where only the last may be something other than a redirect.
 */
import { robotsVerdict, type RobotsFetchStep } from "../../core/robots/index.ts";
import { type CliIo, UsageError } from "../io.ts";

export async function robotsStatusCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0) throw new UsageError("missing STATUS");
  if (argv.length > 1) throw new UsageError(`expected one STATUS, got ${argv.length} arguments (join a chain with commas)`);
  const chain = parseChain(argv[0] as string);
  io.out(`${robotsVerdict(chain)}\n`);
  return 0;
}

function parseChain(text: string): RobotsFetchStep[] {
  const items = text.split(",").map((s) => s.trim());
  const chain = items.map(parseStep);
  // A status after a final answer would never have been fetched: reject it rather than guess.
  chain.forEach((step, i) => {
    if (i < chain.length - 1 && !isRedirect(step)) {
      throw new UsageError(`'${items[i]}' ends a chain; only redirects (3xx but 304) may come before the last status`);
    }
  });
  return chain;
}

function parseStep(item: string): RobotsFetchStep {
  if (item === "unreachable" || item === "redirect-loop") return item;
  if (!/^\d{3}$/.test(item)) {
    throw new UsageError(`'${item}' is not an HTTP status (100-599), 'unreachable' or 'redirect-loop'`);
  }
  const status = Number(item);
  if (status < 100 || status > 599) throw new UsageError(`'${item}' is not an HTTP status (100-599)`);
  return status;
}

function isRedirect(step: RobotsFetchStep): boolean {
  return typeof step === "number" && step >= 300 && step <= 399 && step !== 304;
}

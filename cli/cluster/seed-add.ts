/**
 * `crawlctl seed add URL... [--file FILE] [--feeds FILE]`: seeds sent to the coordinator in requests of BATCH
 * URLs; the URLs of `--feeds` are feeds (RSS, Atom), read as feeds rather than fetched as pages. Each file is read as a stream (kit/fs readLines), so a top-sites list of millions of lines takes bounded
 * memory; progress goes to stderr every PROGRESS_EVERY_LINES lines, and every rejected seed is printed as its answer
 * arrives, a file line with its number. JSON output keeps the first MAX_JSON_REJECTED rejections and
 * counts the rest.
 */
import { FileReadError, fileSize, readLines } from "../../kit/fs/index.ts";
import { type CliIo, UsageError } from "../io.ts";
import { toJson } from "./format.ts";
import { parseClusterOptions } from "./options.ts";
import { type Env, withClient } from "./commands.ts";

const BATCH = 5_000;
const PROGRESS_EVERY_LINES = 100_000;
const MAX_JSON_REJECTED = 1_000;

interface Pending {
  readonly urls: string[];
  readonly feeds: string[];
  /** Where each URL came from: "FILE:LINE", absent for an argument. */
  readonly where: Map<string, string>;
}

export function seedAddCommand(env: Env) {
  return async (argv: string[], io: CliIo): Promise<number> => {
    const opts = parseClusterOptions(argv, env, { valued: ["--file", "--feeds"] });
    const file = opts.flags.get("--file");
    const feedsFile = opts.flags.get("--feeds");
    if (opts.rest.length === 0 && !file && !feedsFile)
      throw new UsageError("give seed URLs as arguments, with --file FILE or --feeds FILE");
    return withClient(opts, io, async (c) => {
      const totals = { accepted: 0, rejected: 0, lines: 0 };
      const rejected: Array<{ url: string; reason: string; line?: string }> = [];
      const reject = (url: string, reason: string, where: string | undefined) => {
        totals.rejected++;
        if (rejected.length < MAX_JSON_REJECTED) rejected.push(where ? { url, reason, line: where } : { url, reason });
        if (!opts.json) io.out(`  REJECT ${url}: ${reason}${where ? ` (${where})` : ""}\n`);
      };
      let batch: Pending = { urls: [], feeds: [], where: new Map() };
      const send = async () => {
        if (batch.urls.length + batch.feeds.length === 0) return;
        const sent = batch;
        batch = { urls: [], feeds: [], where: new Map() };
        const r = await c.addSeeds(sent.urls, undefined, sent.feeds);
        totals.accepted += r.accepted;
        for (const item of r.rejected) reject(item.url, item.reason, sent.where.get(item.url));
      };
      for (const url of opts.rest) batch.urls.push(url);
      if (file) await readSeedFile(file, false, io, totals, reject, () => batch, send);
      if (feedsFile) await readSeedFile(feedsFile, true, io, totals, reject, () => batch, send);
      await send();
      if (opts.json) io.out(toJson({ accepted: totals.accepted, rejected, rejectedTotal: totals.rejected }));
      else io.out(`${totals.accepted} seed(s) accepted${totals.rejected ? `, ${totals.rejected} rejected` : ""}\n`);
      return totals.rejected > 0 && totals.accepted === 0 ? 1 : 0;
    });
  };
}

async function readSeedFile(
  file: string,
  feeds: boolean,
  io: CliIo,
  totals: { accepted: number; rejected: number; lines: number },
  reject: (url: string, reason: string, where: string) => void,
  current: () => Pending,
  send: () => Promise<void>,
): Promise<void> {
  const size = fileSize(file);
  try {
    for await (const line of readLines(file)) {
      totals.lines = line.lineNo;
      const where = `${file}:${line.lineNo}`;
      if (line.tooLong) {
        reject(`(line ${line.lineNo})`, "line too long to be a URL (over 65,536 characters)", where);
        continue;
      }
      const url = line.text.trim();
      if (url.length === 0 || url.startsWith("#")) continue;
      const batch = current();
      (feeds ? batch.feeds : batch.urls).push(url);
      batch.where.set(url, where);
      if (batch.urls.length + batch.feeds.length >= BATCH) await send();
      if (line.lineNo % PROGRESS_EVERY_LINES === 0) {
        const share = size ? ` (${Math.floor((100 * line.bytesRead) / size)} % of the file)` : "";
        io.err(`seeded ${line.lineNo.toLocaleString("en")} lines of ${file}${share}: ${totals.accepted.toLocaleString("en")} accepted\n`);
      }
    }
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    // Before the first line: a usage error. Later (a disk error): what was sent stays accepted.
    const sent = totals.lines > 0 ? ` after line ${totals.lines} (${totals.accepted} seed(s) accepted before)` : "";
    throw new UsageError(`${error.message}${sent}`);
  }
}

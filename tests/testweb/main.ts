/**
 * Runs a test web on its own, for a benchmark that wants the server in a separate process or for a
 * person pointing a crawler at it by hand:
 *   bun tests/testweb/main.ts --hosts 2000 --pages 50 --links 48 --bytes 25000 --seed 1 --special --port 0
 * Prints one line `testweb proxy=http://127.0.0.1:PORT hosts=N` once listening (wait for it, not a
 * timer), and closes cleanly on SIGINT/SIGTERM.
 */
import { startTestWeb } from "./server.ts";
import type { TestWebOptions } from "./types.ts";

function parseArgs(argv: readonly string[]): TestWebOptions {
  const opts: TestWebOptions = {};
  const num = (i: number, flag: string): number => {
    const v = Number(argv[i + 1]);
    if (!Number.isInteger(v) || v < 0) throw new Error(`${flag} needs a non-negative integer`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--hosts") opts.hosts = num(i++, a);
    else if (a === "--pages") opts.pagesPerHost = num(i++, a);
    else if (a === "--links") opts.linksPerPage = num(i++, a);
    else if (a === "--bytes") opts.pageBytes = num(i++, a);
    else if (a === "--seed") opts.seed = num(i++, a);
    else if (a === "--port") opts.port = num(i++, a);
    else if (a === "--special") opts.special = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const web = await startTestWeb(parseArgs(process.argv.slice(2)));
console.log(`testweb proxy=${web.proxyUrl} hosts=${web.hosts.length}`);
const stop = async (): Promise<void> => {
  await web.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

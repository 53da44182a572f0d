/**
 * Runs a test web on its own, for a benchmark that wants the server in a separate process or for a
 * person pointing a crawler at it by hand:
 *   bun tests/testweb/main.ts --hosts 2000 --pages 50 --links 48 --bytes 25000 --seed 1 --special --port 0
 * Prints one line `testweb proxy=http://127.0.0.1:PORT hosts=N` once listening (wait for it, not a
 * timer), and closes cleanly on SIGINT/SIGTERM. With `--report FILE` it writes, when stopped, what its own
 * log says of the crawl: requests, connections, pages fetched more than once, and the politeness violations
 * judged with `--min-gap MS` (default the crawler's 1000) and the 10x rule, by kind, the first 20 in full.
 */
import { writeFileSync } from "node:fs";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { startTestWeb } from "./server.ts";
import type { TestWebOptions } from "./types.ts";

const report = { file: undefined as string | undefined, minGapMs: DEFAULT_POLICY.minGapMs };

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
    else if (a === "--report") report.file = argv[++i];
    else if (a === "--min-gap") report.minGapMs = num(i++, a);
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const web = await startTestWeb(parseArgs(process.argv.slice(2)));
console.log(`testweb proxy=${web.proxyUrl} hosts=${web.hosts.length}`);
const stop = async (): Promise<void> => {
  if (report.file) writeReport(report.file);
  await web.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

function writeReport(file: string): void {
  const violations = web.violations({ minGapMs: report.minGapMs, gapMultiplier: 10 });
  const byKind: Record<string, number> = {};
  for (const v of violations) byKind[v.kind] = (byKind[v.kind] ?? 0) + 1;
  const seen = new Set<string>();
  let repeated = 0;
  for (const r of web.requests) {
    const key = `${r.host}${r.path}`;
    if (seen.has(key)) repeated++;
    else seen.add(key);
  }
  const hosts = new Set(web.requests.map((r) => r.host));
  const out = {
    requests: web.requests.length,
    connections: web.connections,
    hostsAsked: hosts.size,
    repeatedRequests: repeated,
    minGapMs: report.minGapMs,
    violations: violations.length,
    byKind,
    first: violations.slice(0, 20),
  };
  writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
}

/**
 * The fault suite's long form (`bun run bench:faults`, issue 9): every row of tests/faults/, the open
 * ones (`.open.ts`) too, each run as its own `bun test` process one after the other (nothing of one row's
 * cluster can reach the next), on the larger web of `FAULTS_SIZE=long` (tests/faults/harness.ts). Each row
 * writes its numbers to a file (`FAULTS_REPORT`); this script adds whether the row passed and prints the
 * table: fault | pages | distinct | fetched twice | in flight at the fault | longest wait across the fault
 * against what it was allowed | politeness violations | result, how long each row took and the box's load
 * as it started (the cluster runs below other work's CPU priority, so a busy box shows as longer waits).
 *
 *   bun run bench:faults                      # every row, long form
 *   bun run bench:faults --size short         # the CI form, for a quick look
 *   bun run bench:faults --only fetch-node    # rows whose file name contains this (repeatable)
 *
 * Each row's whole output is kept in a temp directory named at the end. The exit code is 1 when a row
 * that is not open failed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunReport } from "../tests/faults/harness.ts";

const ROOT = resolve(import.meta.dir, "..");
const FAULTS_DIR = join(ROOT, "tests/faults");

interface RowResult {
  file: string;
  open: boolean;
  passed: boolean;
  seconds: number;
  /** The box's 1-minute load average as the row started (the cluster runs below other work's priority). */
  load: number;
  report?: RunReport;
  /** The first error bun printed, for a failed row. */
  error?: string;
}

function parseArgs(argv: readonly string[]): { size: string; only: string[] } {
  let size = "long";
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--size") size = argv[++i] ?? "";
    else if (a === "--only") only.push(argv[++i] ?? "");
    else throw new Error(`unknown argument ${a} (use --size short|long, --only NAME)`);
  }
  if (size !== "short" && size !== "long") throw new Error(`--size must be short or long, not "${size}"`);
  return { size, only };
}

/** The rows: the baseline first, then every fault, the open ones last. */
function rowFiles(only: readonly string[]): string[] {
  const files = readdirSync(FAULTS_DIR).filter((f) => f.endsWith(".test.ts") || f.endsWith(".open.ts") || f.endsWith(".baseline.ts"));
  const rank = (f: string) => (f.startsWith("no-fault") ? 0 : f.endsWith(".open.ts") ? 2 : 1);
  return files.filter((f) => only.length === 0 || only.some((o) => f.includes(o))).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

async function runRow(file: string, size: string, logs: string): Promise<RowResult> {
  const reportFile = join(logs, `${file}.json`);
  rmSync(reportFile, { force: true });
  const load = loadavg()[0]!;
  const started = performance.now();
  const proc = Bun.spawn(["bun", "test", `./tests/faults/${file}`], {
    cwd: ROOT,
    env: { ...process.env, FAULTS_SIZE: size, FAULTS_REPORT: reportFile },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const seconds = (performance.now() - started) / 1000;
  const output = `${out}${err}`;
  writeFileSync(join(logs, `${file}.log`), output);
  let report: RunReport | undefined;
  try {
    report = JSON.parse(readFileSync(reportFile, "utf8")) as RunReport;
  } catch {
    // the row failed before the crawl finished: no numbers
  }
  const passed = code === 0;
  return {
    file,
    open: file.endsWith(".open.ts"),
    passed,
    seconds,
    load,
    report,
    error: passed ? undefined : firstError(output),
  };
}

/** The first `error: ...` line bun printed (an assertion or a timeout), shortened for a table cell. */
function firstError(output: string): string {
  const line = output.split("\n").find((l) => /^error: /.test(l.trim())) ?? `exited with no error line (see its log)`;
  const text = line
    .trim()
    .replace(/^error: /, "")
    .replace(/\|/g, "/");
  return text.length > 140 ? `${text.slice(0, 137)}...` : text;
}

/** Which of the suite's common checks the numbers break (bun's error line only says "toEqual"); "" if none. */
function brokenChecks(p: RunReport): string {
  const broken: string[] = [];
  if (p.missing > 0) broken.push(`${p.missing} pages never fetched`);
  if (p.extraFetches > p.inFlightAtFault) broken.push("more extra fetches than tasks were in flight");
  if (p.violations > 0) broken.push(`${p.violations} politeness violations`);
  if (p.stalledHosts > 0) broken.push(`${p.stalledHosts} hosts waited longer than allowed`);
  if (p.blankErrors > 0) broken.push(`${p.blankErrors} errors logged with no message`);
  return broken.join("; ");
}

const s = (ms: number) => (ms / 1000).toFixed(1);

function row(r: RowResult): string {
  const name = `${r.file.replace(/\.(test|open|baseline)\.ts$/, "")}${r.open ? " (open)" : ""}`;
  const p = r.report;
  const result = r.passed ? "pass" : `**fail**: ${(p && brokenChecks(p)) || r.error}`;
  const tail = `${result} | ${r.seconds.toFixed(0)} s | ${r.load.toFixed(1)} |`;
  if (!p) return `| ${name} | — | — | — | — | — | — | ${tail}`;
  const wait = p.longestWait ? `${s(p.longestWait.waitedMs)} s / ${s(p.longestWait.allowedMs)} s` : "—";
  const stalled = p.stalledHosts > 0 ? ` (${p.stalledHosts} hosts stalled)` : "";
  const lost = p.missing > 0 ? ` (${p.missing} missing)` : "";
  return `| ${name} | ${p.pages.toLocaleString("en")} | ${p.distinct.toLocaleString("en")} of ${p.expected.toLocaleString("en")}${lost} | ${p.fetchedTwice}${p.extraFetches > p.fetchedTwice ? ` (${p.extraFetches} extra)` : ""} | ${p.inFlightAtFault} | ${wait}${stalled} | ${p.violations} | ${tail}`;
}

const { size, only } = parseArgs(process.argv.slice(2));
const files = rowFiles(only);
if (files.length === 0) throw new Error(`no row of ${FAULTS_DIR} matches ${only.join(", ")}`);
const logs = mkdtempSync(join(tmpdir(), "bench-faults-"));
console.log(`fault suite, ${size} form: ${files.length} rows, one at a time; outputs in ${logs}`);
const started = performance.now();
const results: RowResult[] = [];
for (const file of files) {
  const r = await runRow(file, size, logs);
  results.push(r);
  console.log(
    `${file}: ${r.passed ? "pass" : "FAIL"} in ${r.seconds.toFixed(0)} s (load ${r.load.toFixed(1)} at its start)${r.error ? `: ${r.error}` : ""}`,
  );
}
const total = (performance.now() - started) / 1000;

console.log("");
console.log(
  "| fault | pages | distinct | fetched twice (extra fetches if more) | in flight at the fault | longest wait across the fault / allowed | politeness violations | result | time | load |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of results) console.log(row(r));
console.log("");
console.log(`total ${(total / 60).toFixed(1)} min; row outputs in ${logs}`);
process.exit(results.some((r) => !r.passed && !r.open) ? 1 : 0);

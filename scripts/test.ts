export {};
/**
 * The project's test command. Runs every test file in its own `bun test` process, a few at a time, and
 * ends the output with one line `N passed, M failed`, which CI reads. The exit code is non-zero when any
 * file failed or crashed.
 *
 * Why processes and not one `bun test`: most of the suite's time is spent waiting (servers starting, a
 * politeness gap of a second, a kill and its ack wait), not computing, so two cores can run several files
 * at once. A file is the unit: the tests of one file share their servers and run in order, as they were
 * written to. Files that load the box (the fault rows, the cluster e2e tests, anything that runs the local
 * cluster or a browser) are "heavy": at most `--heavy` of them (default 2) run at once, beside light ones. Every
 * server a test starts binds a port the OS chose at bind time (or retries on EADDRINUSE), so files in
 * parallel never race for a port.
 *
 * Each file's output is printed whole when the file ends (not interleaved with the others), then, at the
 * end, each failed test's error again (a CI log is read from its end), the 30 slowest files, and the line.
 *
 *   bun run test                 every test file
 *   bun run test PATH...         only files whose path contains one of PATH
 *   bun run test --jobs 1        one file at a time (default: TEST_JOBS, else 4)
 *   bun run test --heavy 1       one heavy file at a time (default: TEST_HEAVY, else 2)
 */
import { readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const SKIP_DIRS = new Set(["node_modules", ".git", "gen"]);
/** Files under these paths load the box; at most one of them runs at a time. */
const HEAVY = [
  "tests/faults/",
  "tests/e2e/cluster/",
  "tests/e2e/dashboard/",
  "tests/deploy/fleet-",
  "tests/runtime/",
  "tests/e2e/embedded/exact-gaps",
  "tests/e2e/embedded/politeness",
  "bench/",
];
/**
 * Light files that take half a minute or more (measured on a 2-core box), started before the other light
 * ones so the run does not end waiting for one of them alone.
 */
const LONG_LIGHT = [
  "tests/e2e/embedded/refetch.test.ts",
  "adapters/nats/jetstream-bus.test.ts",
  "tests/e2e/embedded/durability.test.ts",
  "tests/e2e/embedded/ending.test.ts",
  "tests/contract/message-bus.contract.test.ts",
  "kit/node/heartbeat.test.ts",
  "adapters/nats/link-forwarding.test.ts",
  "adapters/nats/kv-cluster-state.test.ts",
];
const REPEAT_FAILURES = 6;
const REPEAT_LINES = 30;
const SLOWEST = 30;

const { jobs, heavy, filters } = parseArgs(process.argv.slice(2));
const files = findTestFiles(root)
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)));
if (files.length === 0) {
  console.log(`no test file matches ${filters.join(" ")}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}
// Heavy and long files first, so none of them starts last and leaves the others idle at the end.
const longLight = (f: string) => !isHeavy(f) && LONG_LIGHT.includes(f);
const queue = [...files.filter(isHeavy), ...files.filter(longLight), ...files.filter((f) => !isHeavy(f) && !longLight(f))];

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  code: number;
  wallMs: number;
  cpuMs: number;
  failures: { name: string; lines: string[] }[];
}
const results: FileResult[] = [];
const startedAt = performance.now();
let heavyRunning = 0;
const running = new Set<Promise<void>>();
const waiting = [...queue];

while (waiting.length > 0 || running.size > 0) {
  while (running.size < jobs) {
    const index = waiting.findIndex((f) => !isHeavy(f) || heavyRunning < heavy);
    if (index < 0) break;
    const file = waiting.splice(index, 1)[0]!;
    const loadsTheBox = isHeavy(file);
    if (loadsTheBox) heavyRunning++;
    const run = runFile(file).then((r) => {
      results.push(r);
      if (loadsTheBox) heavyRunning--;
      running.delete(run);
    });
    running.add(run);
  }
  if (running.size > 0) await Promise.race(running);
}

const passed = results.reduce((n, r) => n + r.passed, 0);
// A file that crashed before bun's summary counts as one failure, never as a clean file.
const failed = results.reduce((n, r) => n + (r.code !== 0 && r.failed === 0 ? 1 : r.failed), 0);
const failures = results.flatMap((r) =>
  r.failures.length > 0 || r.code === 0 ? r.failures : [{ name: `${r.file}: exited ${r.code} before it reported`, lines: [] }],
);
console.log(`\n== the ${SLOWEST} slowest files (wall s, CPU s of the bun process)`);
for (const r of [...results].sort((a, b) => b.wallMs - a.wallMs).slice(0, SLOWEST)) {
  console.log(`${(r.wallMs / 1000).toFixed(1).padStart(7)} ${(r.cpuMs / 1000).toFixed(1).padStart(6)}  ${r.file}`);
}
const wall = (performance.now() - startedAt) / 1000;
const cpu = results.reduce((n, r) => n + r.cpuMs, 0) / 1000;
console.log(
  `${results.length} files in ${wall.toFixed(0)} s with ${jobs} at a time, ${heavy} heavy (the files' own wall time: ${(results.reduce((n, r) => n + r.wallMs, 0) / 1000).toFixed(0)} s, bun CPU ${cpu.toFixed(0)} s)`,
);
if (failures.length > 0) {
  console.log(`\n== why the failed tests failed (the last ${REPEAT_LINES} lines bun printed before each, first ${REPEAT_FAILURES})`);
  for (const f of failures.slice(0, REPEAT_FAILURES)) console.log(`\n-- ${f.name}\n${f.lines.join("\n")}`);
  if (failures.length > REPEAT_FAILURES) console.log(`\n-- and ${failures.length - REPEAT_FAILURES} more, above`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);

async function runFile(file: string): Promise<FileResult> {
  const began = performance.now();
  const proc = Bun.spawn(["bun", "test", `./${file}`], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
    env: process.env,
  });
  // bun writes test results to stderr and the tests' own console output to stdout; keep both, in order of
  // arrival within each stream, and print the file's output as one block.
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const usage = proc.resourceUsage();
  const wallMs = performance.now() - began;
  const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : 0;
  const counted = scan(err.split("\n"));
  process.stdout.write(`\n${file} (${(wallMs / 1000).toFixed(1)} s)\n${out}${err}`);
  return { file, code, wallMs, cpuMs, ...counted };
}

/** Pass and fail counts from bun's summary, and each failed test with the lines bun printed before it. */
function scan(lines: string[]): Pick<FileResult, "passed" | "failed" | "failures"> {
  let passed = 0;
  let failed = 0;
  let sinceLastTest: string[] = [];
  const failures: { name: string; lines: string[] }[] = [];
  for (const line of lines) {
    if (/^\(fail\) /.test(line)) {
      // bun lists the failed tests again in its summary; those repeats carry no output of their own.
      if (!failures.some((f) => f.name === line)) failures.push({ name: line, lines: sinceLastTest });
      sinceLastTest = [];
    } else if (/^\((pass|skip|todo)\) /.test(line) || /^\S.*\.test\.[jt]sx?:$/.test(line)) sinceLastTest = [];
    else {
      sinceLastTest.push(line);
      if (sinceLastTest.length > REPEAT_LINES) sinceLastTest.shift();
    }
    const pass = /^\s*(\d+) pass\s*$/.exec(line);
    if (pass) passed = Number(pass[1]);
    const fail = /^\s*(\d+) fail\s*$/.exec(line);
    if (fail) failed = Number(fail[1]);
  }
  return { passed, failed, failures };
}

function isHeavy(file: string): boolean {
  return HEAVY.some((prefix) => file.startsWith(prefix));
}

function findTestFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) for (const f of findTestFiles(path)) found.push(f);
    else if (/\.test\.[jt]sx?$/.test(name)) found.push(path);
  }
  return found.sort();
}

function parseArgs(args: string[]): { jobs: number; heavy: number; filters: string[] } {
  let jobs = Number(process.env["TEST_JOBS"] ?? 4);
  let heavy = Number(process.env["TEST_HEAVY"] ?? 2);
  const filters: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--jobs") jobs = Number(args[++i]);
    else if (arg.startsWith("--jobs=")) jobs = Number(arg.slice("--jobs=".length));
    else if (arg === "--heavy") heavy = Number(args[++i]);
    else if (arg.startsWith("--heavy=")) heavy = Number(arg.slice("--heavy=".length));
    else filters.push(arg.replace(/^\.\//, ""));
  }
  for (const [name, value] of [
    ["--jobs", jobs],
    ["--heavy", heavy],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      console.log(`${name} must be a whole number of at least 1, not ${value}`);
      process.exit(2);
    }
  }
  return { jobs, heavy, filters };
}

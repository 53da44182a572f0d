/**
 * Which S3 client for WARC uploads, measured on both runtimes the fetch node runs on. Starts the S3 test
 * server (s3rver, tests/support/s3.ts) on loopback, writes 100 files of 1 MB and one of 64 MiB, and for
 * each runtime (Bun, Deno) and client (adapters/s3, aws4fetch, the AWS SDK v3 with lib-storage) runs
 * candidates/run.ts in a fresh process, REPS times, printing the median of each figure. Also prints each
 * client's dependency weight: packages and bytes on disk of its install closure.
 *
 *   bun install --cwd bench/s3/candidates && bun bench/s3/s3.bench.ts
 *
 * The server is s3rver on one core of the same machine, so throughput is capped by it and is the same
 * for every client that keeps it busy; the client's CPU time is the figure that tells clients apart.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startS3 } from "../../tests/support/s3.ts";

const REPS = Number(process.env["REPS"] ?? 3);
const here = resolve(import.meta.dir);
const candidatesDir = join(here, "candidates");
if (!existsSync(join(candidatesDir, "node_modules", "aws4fetch"))) {
  console.error("install the candidates first: bun install --cwd bench/s3/candidates");
  process.exit(2);
}

const files = mkdtempSync(join(tmpdir(), "s3-bench-"));
mkdirSync(join(files, "small"));
for (let i = 0; i < 100; i++) writeFileSync(join(files, "small", `f${String(i).padStart(3, "0")}.bin`), randomBytes(1_000_000));
writeFileSync(join(files, "big.bin"), randomBytes(64 * 1024 * 1024));

const s3 = await startS3({ bucket: "bench" });
interface Run {
  importMs: number;
  small: { ms: number; mbps: number };
  big: { ms: number; mbps: number };
  cpuMs: number;
  peakRssMb: number;
}
const rows: string[] = [];
try {
  for (const runtime of ["bun", "deno"] as const) {
    for (const candidate of ["ours", "aws4fetch", "aws-sdk"]) {
      const runs: Run[] = [];
      for (let rep = 0; rep < REPS; rep++) {
        const args = [candidate, s3.endpoint, "bench", files];
        const cmd =
          runtime === "bun"
            ? ["bun", "run.ts", ...args]
            : ["deno", "run", "--node-modules-dir=manual", "--no-lock", "-A", "run.ts", ...args];
        const out = spawnSync(cmd[0]!, cmd.slice(1), { cwd: candidatesDir, encoding: "utf8", timeout: 300_000 });
        const line = out.stdout.trim().split("\n").pop() ?? "";
        if (out.status !== 0 || !line.startsWith("{")) throw new Error(`${runtime} ${candidate} failed:\n${out.stdout}\n${out.stderr}`);
        runs.push(JSON.parse(line) as Run);
      }
      const med = (f: (r: Run) => number) => median(runs.map(f));
      rows.push(
        `| ${runtime} | ${candidate} | ${med((r) => r.importMs)} | ${med((r) => r.small.ms)} | ${med((r) => r.small.mbps)} | ${med((r) => r.big.ms)} | ${med((r) => r.big.mbps)} | ${med((r) => r.cpuMs)} | ${med((r) => r.peakRssMb)} |`,
      );
      console.error(rows.at(-1));
    }
  }
} finally {
  await s3.stop();
  rmSync(files, { recursive: true, force: true });
}

console.log(`\nmedian of ${REPS} runs; 100 x 1 MB = 100 MB, then 64 MiB in 8 MiB parts, 4 in flight\n`);
console.log("| runtime | client | import ms | 100 x 1 MB ms | MB/s | 64 MiB ms | MB/s | client CPU ms | peak RSS MB |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);

console.log("\n| client | packages | on disk |");
console.log("| --- | --- | --- |");
console.log(`| ours (adapters/s3) | 0 | ${kb(dirBytes(resolve(here, "../../adapters/s3"), (n) => !n.endsWith(".test.ts")))} KB |`);
for (const roots of [["aws4fetch"], ["@aws-sdk/client-s3", "@aws-sdk/lib-storage"]]) {
  const closure = dependencyClosure(roots);
  const bytes = [...closure].reduce((n, p) => n + dirBytes(join(candidatesDir, "node_modules", p)), 0);
  console.log(`| ${roots.join(" + ")} | ${closure.size} | ${kb(bytes)} KB |`);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function kb(bytes: number): number {
  return Math.round(bytes / 1024);
}

/** Bytes of the files under `dir` (recursively) whose names pass `keep`. */
function dirBytes(dir: string, keep: (name: string) => boolean = () => true): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) total += name === "node_modules" ? 0 : dirBytes(path, keep);
    else if (keep(name)) total += st.size;
  }
  return total;
}

/** Every package the roots pull in (their dependencies, transitively), as installed in candidates/. */
function dependencyClosure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const pkg = join(candidatesDir, "node_modules", name, "package.json");
    if (!existsSync(pkg)) return;
    seen.add(name);
    const deps = (JSON.parse(readFileSync(pkg, "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const dep of Object.keys(deps)) visit(dep);
  };
  for (const r of roots) visit(r);
  return seen;
}

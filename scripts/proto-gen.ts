/**
 * Regenerates proto/gen from the .proto files with buf and ts-proto (one command: `bun run proto:gen`).
 * With `--check` it generates into a temporary directory and fails when proto/gen differs, which is how CI
 * proves the committed generated code is not stale. It also runs `buf lint`.
 */
import { mkdtempSync, rmSync, cpSync, readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { tmpdir } from "node:os";

const root = join(import.meta.dir, "..");
const protoDir = join(root, "proto");
const genDir = join(protoDir, "gen");
const buf = join(root, "node_modules", ".bin", "buf");
const check = process.argv.includes("--check");

run([buf, "lint"], protoDir);

const scratch = mkdtempSync(join(tmpdir(), "proto-gen-"));
try {
  run([buf, "generate", "--template", "buf.gen.yaml", "-o", scratch], protoDir);
  const fresh = join(scratch, "gen");
  if (check) {
    const diffs = compareTrees(fresh, genDir);
    if (diffs.length > 0) {
      console.error(`proto/gen is stale; run \`bun run proto:gen\`. Differences:\n  ${diffs.join("\n  ")}`);
      process.exit(1);
    }
    console.log("proto/gen is up to date");
  } else {
    rmSync(genDir, { recursive: true, force: true });
    cpSync(fresh, genDir, { recursive: true });
    console.log(`generated ${listFiles(genDir).length} files into proto/gen`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function run(cmd: string[], cwd: string): void {
  const result = Bun.spawnSync(cmd, { cwd, stdout: "inherit", stderr: "inherit" });
  if (result.exitCode !== 0) {
    console.error(`${cmd.map((c) => relative(root, c) || c).join(" ")} failed with exit code ${result.exitCode}`);
    process.exit(result.exitCode ?? 1);
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(path).map((p) => join(name, p)));
    else out.push(name);
  }
  return out.sort();
}

function compareTrees(a: string, b: string): string[] {
  const left = listFiles(a);
  const right = listFiles(b);
  const diffs: string[] = [];
  for (const f of new Set([...left, ...right])) {
    if (!left.includes(f)) diffs.push(`extra: ${f}`);
    else if (!right.includes(f)) diffs.push(`missing: ${f}`);
    else if (readFileSync(join(a, f), "utf8") !== readFileSync(join(b, f), "utf8")) diffs.push(`changed: ${f}`);
  }
  return diffs;
}

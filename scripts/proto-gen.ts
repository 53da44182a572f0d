/**
 * Regenerates proto/gen from the .proto files with buf and ts-proto (one command: `bun run proto:gen`):
 * the TypeScript code, and `descriptors.binpb`, the FileDescriptorSet of every file (with comments) that
 * the gRPC servers answer reflection from (adapters/grpc/reflection.ts) and that `grpcurl -protoset` reads.
 * With `--check` it generates into a temporary directory and fails when proto/gen differs, which is how CI
 * proves the committed generated code is not stale. Both modes run `buf lint` and `buf breaking` against
 * the last released protos (scripts/proto-breaking.ts).
 */
import { mkdtempSync, rmSync, cpSync, readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { tmpdir } from "node:os";
import { checkBreaking } from "./proto-breaking.ts";

const root = join(import.meta.dir, "..");
const protoDir = join(root, "proto");
const genDir = join(protoDir, "gen");
const buf = join(root, "node_modules", ".bin", "buf");
const check = process.argv.includes("--check");
/** Read at run time by adapters/grpc/reflection.ts; the name is part of that contract. */
const DESCRIPTOR_SET = "descriptors.binpb";

run([buf, "lint"], protoDir);
const breaking = checkBreaking(protoDir, buf);
if (!breaking.ok) {
  console.error(
    `proto/ is not compatible with the last release (proto/released): nodes of both releases meet during a rolling upgrade.\n` +
      `${breaking.output}\nAdd fields and messages instead of changing them; an incompatible change is a new package version (docs/cluster.md, "Versions").`,
  );
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), "proto-gen-"));
try {
  run([buf, "generate", "--template", "buf.gen.yaml", "-o", scratch], protoDir);
  const fresh = join(scratch, "gen");
  run([buf, "build", "--as-file-descriptor-set", "-o", join(fresh, DESCRIPTOR_SET)], protoDir);
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
    if (statSync(path).isDirectory()) for (const p of listFiles(path)) out.push(join(name, p));
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
    else if (!readFileSync(join(a, f)).equals(readFileSync(join(b, f)))) diffs.push(`changed: ${f}`);
  }
  return diffs;
}

/**
 * The rolling-upgrade rule for protobuf: nodes of two releases talk to each other (gRPC between frontier
 * nodes and with the coordinator, protobuf messages on NATS), so the .proto files of this tree must stay
 * compatible with the last released ones. "Released" is a committed snapshot, proto/released/descriptors.binpb,
 * written by `bun run proto:release` when a release is cut: it works on a shallow clone with no tags, where a
 * git ref to compare against may not exist. `buf breaking` checks with the rules of proto/buf.yaml (FILE).
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const RELEASED_SNAPSHOT = join("released", "descriptors.binpb");

export interface BreakingReport {
  ok: boolean;
  /** buf's findings, one per line ("file:line:col:what changed"), or why the check could not run. */
  output: string;
}

/** Compares the .proto files under `protoDir` with its released snapshot. */
export function checkBreaking(protoDir: string, buf = defaultBuf()): BreakingReport {
  const snapshot = join(protoDir, RELEASED_SNAPSHOT);
  if (!existsSync(snapshot)) return { ok: false, output: `${snapshot} is missing: run \`bun run proto:release\` once` };
  const result = Bun.spawnSync([buf, "breaking", "--against", RELEASED_SNAPSHOT], { cwd: protoDir, stdout: "pipe", stderr: "pipe" });
  const output = `${result.stdout.toString()}${result.stderr.toString()}`.trim();
  return { ok: result.exitCode === 0, output };
}

/** Writes the snapshot of the .proto files under `protoDir` (no source info: only the wire contract matters). */
export function writeReleasedSnapshot(protoDir: string, buf = defaultBuf()): void {
  const result = Bun.spawnSync([buf, "build", "--exclude-source-info", "-o", RELEASED_SNAPSHOT], {
    cwd: protoDir,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (result.exitCode !== 0) throw new Error(`buf build failed with exit code ${result.exitCode}`);
}

function defaultBuf(): string {
  return resolve(import.meta.dir, "..", "node_modules", ".bin", "buf");
}

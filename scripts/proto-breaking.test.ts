import { afterEach, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkBreaking } from "./proto-breaking.ts";

const protoDir = join(import.meta.dir, "..", "proto");
const FETCH = join("crawler", "fetch", "v1", "fetch.proto");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of proto/ (sources, buf.yaml and the released snapshot) with fetch.proto edited by `edit`. */
function copyWith(edit: (fetchProto: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), "proto-breaking-"));
  dirs.push(dir);
  cpSync(protoDir, dir, { recursive: true, filter: (src) => !src.includes(`${join("proto", "gen")}`) });
  const path = join(dir, FETCH);
  const before = readFileSync(path, "utf8");
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
  return dir;
}

test("proto breaking - the tree as committed is compatible with the released protos", () => {
  expect(checkBreaking(protoDir)).toEqual({ ok: true, output: "" });
});

test("proto breaking - renumbering a field of a NATS message is refused, naming the message and the field", () => {
  const dir = copyWith((s) => s.replace("uint32 depth = 6;", "uint32 depth = 60;"));
  const report = checkBreaking(dir);
  expect(report.ok).toBe(false);
  expect(report.output).toContain(FETCH);
  expect(report.output).toMatch(/"6".*"FetchTask"/);
});

test("proto breaking - adding a field is allowed: a node of the previous release skips it", () => {
  const dir = copyWith((s) => s.replace("  uint32 depth = 6;\n", "  uint32 depth = 6;\n  string referrer_policy = 99;\n"));
  expect(checkBreaking(dir)).toEqual({ ok: true, output: "" });
});

/**
 * The project's lint: mechanical checks of the dependency direction (ARCHITECTURE.md, "Dependency
 * direction") and of the import conventions that let Bun and Deno run the same files.
 *
 *  - core/ is pure policy: it imports nothing of the roles, no runtime module (`node:`, `bun:`), no network
 *    or parser package, and never touches the `Bun` or `Deno` globals.
 *  - fetch-node/ never imports @grpc/grpc-js (it must stay clean on Deno) nor Bun-only modules outside tests.
 *  - cli/ reaches the system only through the generated gRPC clients; it may use core/ for offline commands.
 *  - relative imports carry an explicit extension; generated code under proto/gen is never imported by core/.
 *
 * Prints one line per violation (`file:line: rule: detail`) and exits non-zero when there is any.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, dirname, resolve, sep } from "node:path";

const root = resolve(import.meta.dir, "..");
const roots = ["core", "adapters", "proto", "coordinator", "frontier-node", "fetch-node", "cli", "embedded", "tests", "bench", "scripts"];
const skipDirs = new Set(["node_modules", "gen", ".git"]);

interface Violation {
  file: string;
  line: number;
  rule: string;
  detail: string;
}

const violations: Violation[] = [];
for (const top of roots) for (const file of walk(join(root, top))) checkFile(file);

for (const v of violations) console.log(`${v.file}:${v.line}: ${v.rule}: ${v.detail}`);
if (violations.length > 0) {
  console.log(`lint: ${violations.length} violation(s)`);
  process.exit(1);
}
console.log("lint: clean");

function* walk(dir: string): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (skipDirs.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

function checkFile(path: string): void {
  const rel = relative(root, path).split(sep).join("/");
  const area = rel.split("/")[0] ?? "";
  const isTest = /\.test\.ts$/.test(rel);
  const source = readFileSync(path, "utf8");
  const lines = source.split("\n");
  const report = (line: number, rule: string, detail: string) => violations.push({ file: rel, line, rule, detail });

  lines.forEach((text, i) => {
    const lineNo = i + 1;
    const code = stripComment(text);
    for (const spec of importSpecifiers(code)) {
      if (spec.startsWith(".")) {
        if (!/\.(ts|js|json|mjs)$/.test(spec)) report(lineNo, "explicit-extension", `relative import '${spec}' needs its file extension`);
        const target = relative(root, resolve(dirname(path), spec)).split(sep).join("/");
        const targetArea = target.split("/")[0] ?? "";
        checkAreaImport(area, targetArea, target, isTest, lineNo, report);
      } else {
        checkPackageImport(rel, area, spec, isTest, lineNo, report);
      }
    }
    if (area === "core" && !isTest && /\b(Bun|Deno)\.[A-Za-z]/.test(code)) {
      report(lineNo, "core-runtime-neutral", "core/ must not use the Bun or Deno globals");
    }
    if (area === "fetch-node" && !isTest && /\bBun\.[A-Za-z]/.test(code)) {
      report(lineNo, "fetch-node-portable", "fetch-node/ runs on Deno too: no Bun globals outside tests");
    }
  });
}

function checkAreaImport(
  area: string,
  targetArea: string,
  target: string,
  isTest: boolean,
  line: number,
  report: (line: number, rule: string, detail: string) => void,
): void {
  if (area === "core" && targetArea !== "core" && !isTest) {
    report(line, "core-imports-only-core", `core/ may not import ${target}`);
  }
  if (area === "cli" && ["coordinator", "frontier-node", "fetch-node", "embedded"].includes(targetArea)) {
    report(line, "cli-through-grpc", `cli/ talks to the system through gRPC clients only, not ${target}`);
  }
  if (["coordinator", "frontier-node", "fetch-node"].includes(area) && targetArea === "cli") {
    report(line, "roles-do-not-import-cli", `${area}/ may not import ${target}`);
  }
  if (area === "fetch-node" && !isTest && (targetArea === "coordinator" || target.startsWith("adapters/grpc/"))) {
    report(line, "fetch-node-portable", `fetch-node/ may not import the coordinator (${target})`);
  }
}

function checkPackageImport(
  file: string,
  area: string,
  spec: string,
  isTest: boolean,
  line: number,
  report: (line: number, rule: string, detail: string) => void,
): void {
  const forbiddenInCore = [/^node:/, /^bun:(?!test$)/, /^bun$/, /^@grpc\//, /^@nats-io\//, /^redis$/, /^undici/, /^hono/, /^htmlparser2/, /^warcio/];
  if (area === "core") {
    if (spec === "bun:test" && isTest) return;
    if (forbiddenInCore.some((re) => re.test(spec)) || spec === "bun:test") {
      report(line, "core-runtime-neutral", `core/ may not import '${spec}'`);
    }
  }
  // Only adapters/grpc may reach grpc-js, so the fetch node can use every other adapter on Deno.
  if (area === "adapters" && /^@grpc\//.test(spec) && !file.startsWith("adapters/grpc/")) {
    report(line, "grpc-only-in-adapters-grpc", `only adapters/grpc/ may import '${spec}'`);
  }
  if (area === "fetch-node") {
    if (/^@grpc\//.test(spec)) report(line, "fetch-node-no-grpc", `fetch-node/ never imports '${spec}' (Deno)`);
    if (!isTest && /^bun:/.test(spec)) report(line, "fetch-node-portable", `fetch-node/ runs on Deno too: no '${spec}' outside tests`);
  }
}

/** Finds module specifiers of static imports/exports and dynamic imports on one line. */
function importSpecifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [/\bfrom\s+["']([^"']+)["']/g, /^\s*import\s+["']([^"']+)["']/g, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  for (const re of patterns) for (const m of code.matchAll(re)) if (m[1]) out.push(m[1]);
  return out;
}

function stripComment(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) return "";
  return text;
}

/**
 * The project's lint: mechanical checks of the dependency direction (the layers below, which the README's
 * layout table describes) and of the import conventions that let Bun and Deno run the same files. The
 * layers, innermost first:
 *
 *  - core/      pure policy, data and the ports: imports only core/, no runtime module, no Bun/Deno globals.
 *  - proto/     the generated code (proto/gen) and its hand-written codec (proto/codec): core/ and proto/.
 *  - adapters/X implementations of the ports: core/, proto/ and their own folder (and their own library).
 *  - engine/F   the frontier and the fetch path: core/ and their own folder.
 *  - kit/       what every process shares (runMain, logs, heartbeat, ids): core/ and kit/.
 *  - roles      coordinator/, frontier-node/, fetch-node/, embedded/: any layer above, never cli/ or
 *               another role.
 *  - cli/       core/, kit/, proto/ and the gRPC clients of adapters/grpc: never a role or the engine.
 *
 * Portability: engine/fetch, kit and fetch-node run on Deno too, so they use no `bun:` module and no `Bun`
 * global outside tests; fetch-node never reaches grpc-js, SQLite or the frontier. Each networked library is
 * imported by its adapter only (grpc-js by adapters/grpc, nats.js by adapters/nats, redis by adapters/redis).
 * A folder with an `index.ts` is entered only through it from outside (no deep imports). Relative imports
 * carry their file extension. Test files (`*.test.ts`, tests/, bench/) may reach internals, but core's
 * tests still import only core.
 *
 * Size: no hand-written source file over 700 lines (generated code lives in proto/gen and is skipped): a
 * file past that does more than one job. Unbounded spreads: no `push(...xs)`, `unshift(...xs)`,
 * `Math.max(...xs)`, `Math.min(...xs)` or `String.fromCharCode(...xs)` anywhere, tests included: every
 * element becomes a call argument on the stack, and past about 100,000 of them the call throws "Maximum
 * call stack size exceeded" (a seeds file of a million lines once stopped the crawl that way). Loop, or
 * use a bounded helper.
 *
 * Prints one line per violation (`file:line: rule: detail`) and exits non-zero when there is any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = resolve(import.meta.dir, "..");
const roots = [
  "core",
  "proto",
  "adapters",
  "engine",
  "kit",
  "coordinator",
  "frontier-node",
  "fetch-node",
  "embedded",
  "cli",
  "tests",
  "bench",
  "scripts",
];
const ROLES = ["coordinator", "frontier-node", "fetch-node", "embedded"];
const PORTABLE = ["engine/fetch/", "kit/", "fetch-node/"];
const skipDirs = new Set(["node_modules", "gen", ".git"]);

/** Which adapter alone may import a networked library. */
const LIBRARY_OWNERS: Array<[RegExp, string]> = [
  [/^@grpc\//, "adapters/grpc/"],
  [/^@nats-io\//, "adapters/nats/"],
  [/^redis$/, "adapters/redis/"],
];

type Report = (line: number, rule: string, detail: string) => void;
interface Violation {
  file: string;
  line: number;
  rule: string;
  detail: string;
}

const MAX_LINES = 700;
const SPREAD_INTO_CALL = /\.(push|unshift)\(\s*\.\.\.|\b(Math\.(max|min)|String\.fromCharCode|String\.fromCodePoint)\(\s*\.\.\./;

const violations: Violation[] = [];
for (const top of roots) for (const file of walk(join(root, top))) checkFile(file);
for (const top of roots)
  for (const file of walk(join(root, top), /\.(js|mjs|cjs|py|sh)$/)) checkLength(file, readFileSync(file, "utf8").split("\n"));

for (const v of violations) console.log(`${v.file}:${v.line}: ${v.rule}: ${v.detail}`);
if (violations.length > 0) {
  console.log(`lint: ${violations.length} violation(s)`);
  process.exit(1);
}
console.log("lint: clean");

function* walk(dir: string, wanted = /\.(ts|tsx|mts)$/): Generator<string> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (skipDirs.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path, wanted);
    else if (wanted.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

/** The layer a repo-relative path belongs to: `adapters/nats`, `engine/fetch`, `core`, `frontier-node`... */
function layerOf(rel: string): string {
  const [top = "", second = ""] = rel.split("/");
  return top === "adapters" || top === "engine" ? `${top}/${second}` : top;
}

function isTestFile(rel: string): boolean {
  return /\.test\.ts$/.test(rel) || rel.startsWith("tests/") || rel.startsWith("bench/");
}

function checkFile(path: string): void {
  const rel = toRel(path);
  const isTest = isTestFile(rel);
  const lines = readFileSync(path, "utf8").split("\n");
  const report: Report = (line, rule, detail) => violations.push({ file: rel, line, rule, detail });
  const portable = !isTest && PORTABLE.some((p) => rel.startsWith(p));

  checkLength(path, lines);
  lines.forEach((text, i) => {
    const lineNo = i + 1;
    const code = stripComment(text);
    if (SPREAD_INTO_CALL.test(code)) {
      report(lineNo, "spread-into-call", "spreading an array into a call's arguments overflows the stack when it is long: loop instead");
    }
    for (const spec of importSpecifiers(code)) {
      if (spec.startsWith(".")) {
        if (!/\.(ts|js|json|mjs)$/.test(spec)) report(lineNo, "explicit-extension", `relative import '${spec}' needs its file extension`);
        const target = toRel(resolve(dirname(path), spec));
        checkLayer(rel, target, isTest, lineNo, report);
        if (!isTest) checkDeepImport(rel, target, lineNo, report);
        if (
          portable &&
          (target.startsWith("engine/frontier/") || target.startsWith("adapters/grpc/") || target.startsWith("adapters/sqlite/"))
        ) {
          report(lineNo, "portable", `${rel} runs on Deno too: it may not import ${target}`);
        }
      } else {
        checkPackage(rel, spec, isTest, portable, lineNo, report);
      }
    }
    if (/\b(Bun|Deno)\.[A-Za-z]/.test(code) && rel.startsWith("core/") && !isTest) {
      report(lineNo, "core-runtime-neutral", "core/ must not use the Bun or Deno globals");
    } else if (portable && /\bBun\.[A-Za-z]/.test(code)) {
      report(lineNo, "portable", `${rel} runs on Deno too: no Bun globals outside tests`);
    }
  });
}

function checkLength(path: string, lines: string[]): void {
  const count = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  if (count > MAX_LINES) {
    violations.push({
      file: toRel(path),
      line: MAX_LINES + 1,
      rule: "file-length",
      detail: `${count} lines; split it by job (at most ${MAX_LINES})`,
    });
  }
}

function checkLayer(rel: string, target: string, isTest: boolean, line: number, report: Report): void {
  const from = layerOf(rel);
  const to = layerOf(target);
  if (from === to) return;
  const allowed = (layers: string[]) => layers.some((l) => to === l || to.startsWith(`${l}/`));
  if (from === "core") {
    if (!allowed(["core"])) report(line, "core-imports-only-core", `core/ may not import ${target}`);
    return;
  }
  if (isTest) {
    if (from !== "cli" && to === "cli") report(line, "nothing-imports-cli", `${target} is the command line; nothing imports it`);
    return;
  }
  const rules: Record<string, string[]> = {
    proto: ["core", "proto"],
    kit: ["core"],
    cli: ["core", "kit", "proto", "adapters/grpc"],
  };
  let ok: boolean;
  if (from.startsWith("adapters/")) ok = allowed(["core", "proto"]);
  else if (from.startsWith("engine/")) ok = allowed(["core"]);
  else if (ROLES.includes(from)) ok = allowed(["core", "proto", "adapters", "engine", "kit"]);
  else if (rules[from]) ok = allowed(rules[from]!);
  else ok = to !== "cli" || from === "scripts";
  if (!ok) report(line, "layers", `${from}/ may not import ${target}`);
}

/** A folder with an index.ts is entered through it: the outermost such folder around the target decides. */
function checkDeepImport(rel: string, target: string, line: number, report: Report): void {
  const parts = target.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join("/");
    if (rel.startsWith(`${folder}/`)) continue;
    if (!existsSync(join(root, folder, "index.ts"))) continue;
    if (target !== `${folder}/index.ts`) report(line, "no-deep-import", `import ${folder}/index.ts, not ${target}`);
    return;
  }
}

function checkPackage(rel: string, spec: string, isTest: boolean, portable: boolean, line: number, report: Report): void {
  if (rel.startsWith("core/")) {
    const runtimeOrNetwork = [
      /^node:/,
      /^bun:/,
      /^bun$/,
      /^@grpc\//,
      /^@nats-io\//,
      /^redis$/,
      /^undici/,
      /^hono/,
      /^htmlparser2/,
      /^warcio/,
    ];
    if (isTest && spec === "bun:test") return;
    if (runtimeOrNetwork.some((re) => re.test(spec))) report(line, "core-runtime-neutral", `core/ may not import '${spec}'`);
    return;
  }
  if (isTest) {
    if (rel.startsWith("fetch-node/") && /^@grpc\//.test(spec)) report(line, "portable", `fetch-node/ never imports '${spec}' (Deno)`);
    return;
  }
  for (const [lib, owner] of LIBRARY_OWNERS) {
    if (lib.test(spec) && !rel.startsWith(owner)) report(line, "library-owner", `only ${owner} may import '${spec}'`);
  }
  if (portable && /^bun(:|$)/.test(spec)) report(line, "portable", `${rel} runs on Deno too: no '${spec}' outside tests`);
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

function toRel(path: string): string {
  return relative(root, path).split(sep).join("/");
}

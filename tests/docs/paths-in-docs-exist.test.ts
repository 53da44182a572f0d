/**
 * The maps stay true: every repository path the README and the docs name in backticks (a file like
 * `engine/frontier/frontier.ts` or a folder like `adapters/memory/`) exists, every top-level folder of
 * the code appears in the README's layout table, and docs/architecture.md's "Data flow" walks the eight
 * steps of a URL (seed to links) naming for each at least one file that exists. A move that forgets the
 * docs fails here.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const DOCS = [
  "README.md",
  "docs/architecture.md",
  "docs/cluster.md",
  "frontier-node/README.md",
  "fetch-node/README.md",
  "tests/e2e/cluster/README.md",
  "tests/e2e/embedded/README.md",
];
const CODE_TOPS = [
  "core",
  "engine",
  "adapters",
  "kit",
  "embedded",
  "frontier-node",
  "fetch-node",
  "coordinator",
  "cli",
  "proto",
  "tests",
  "bench",
];

/** The steps of docs/architecture.md's "Data flow", in order: `N. **Step.** ...`. */
const DATA_FLOW_STEPS = ["Seed", "Admit", "Schedule", "Fetch", "Parse", "Store", "Results", "Links"];

/** Backticked tokens that look like repository paths: start with a top-level folder, no spaces or wildcards. */
function namedPaths(text: string): string[] {
  const tops = new Set(readdirSync(ROOT).filter((n) => !n.startsWith(".") && statSync(join(ROOT, n)).isDirectory()));
  const out: string[] = [];
  for (const m of text.matchAll(/`([A-Za-z0-9_./-]+)`/g)) {
    const token = m[1]!.replace(/[.,:]+$/, "");
    const top = token.split("/")[0]!;
    if (!token.includes("/") || !tops.has(top) || top === "node_modules") continue;
    if (/<|\*|\.\.\./.test(token)) continue;
    out.push(token);
  }
  return out;
}

describe("docs", () => {
  for (const doc of DOCS) {
    test(`every path named in ${doc} exists`, () => {
      const missing = namedPaths(readFileSync(join(ROOT, doc), "utf8")).filter((p) => !existsSync(join(ROOT, p)));
      expect(missing).toEqual([]);
    });
  }

  test("docs/architecture.md's Data flow names, for each step from seed to links, a file that exists", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const start = doc.indexOf("\n## Data flow\n");
    expect(start).toBeGreaterThanOrEqual(0);
    const next = doc.indexOf("\n## ", start + 1);
    const section = doc.slice(start, next < 0 ? undefined : next);
    // [before, n, name, text, n, name, text, ...]
    const parts = section.split(/^(\d+)\. \*\*([A-Za-z]+)\.\*\*/m);
    const steps: Array<{ n: number; name: string; text: string }> = [];
    for (let i = 1; i + 2 < parts.length; i += 3) steps.push({ n: Number(parts[i]), name: parts[i + 1]!, text: parts[i + 2]! });
    expect(steps.map((s) => `${s.n}. ${s.name}`)).toEqual(DATA_FLOW_STEPS.map((name, i) => `${i + 1}. ${name}`));
    const isFile = (p: string) => existsSync(join(ROOT, p)) && statSync(join(ROOT, p)).isFile();
    const withoutFile = steps.filter((s) => !namedPaths(s.text).some(isFile)).map((s) => s.name);
    expect(withoutFile).toEqual([]);
  });

  test("the README's layout table names every top-level folder of the code", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## How a URL is crawled"));
    const missing = CODE_TOPS.filter((top) => !new RegExp("`" + top + "/").test(table));
    expect(missing).toEqual([]);
  });
});

/**
 * The maps stay true: every repository path the README and the docs name in backticks (a file like
 * `engine/frontier/frontier.ts` or a folder like `adapters/memory/`) exists, and every top-level folder of
 * the code appears in the README's layout table. A move that forgets the docs fails here.
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

  test("the README's layout table names every top-level folder of the code", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## How a URL is crawled"));
    const missing = CODE_TOPS.filter((top) => !new RegExp("`" + top + "/").test(table));
    expect(missing).toEqual([]);
  });
});

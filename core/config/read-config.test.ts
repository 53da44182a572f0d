import { expect, test } from "bun:test";
import { ConfigError } from "./config-error.ts";
import { integerKind, oneOfKind, switchKind, urlKind } from "./field-kinds.ts";
import { tableRows, usageText, type FieldSpecs } from "./field-table.ts";
import { DEFAULT_POLICY } from "./policy-defaults.ts";
import { readConfig } from "./read-config.ts";
import { readFlags } from "./read-fields.ts";
import { PolicyConfigError } from "./resolve-policy.ts";

interface Tool {
  count: number;
  quiet: boolean;
  format: "json" | "text";
  proxy: string;
  json: boolean;
}

const ROWS = tableRows<Tool>({
  count: { default: 2, env: "TOOL_COUNT", flag: "--count", description: "How many", ...integerKind({ min: 1 }) },
  quiet: { default: false, env: "TOOL_QUIET", flag: "--quiet", description: "Say less", ...switchKind() },
  format: { default: "json", env: "TOOL_FORMAT", flag: "--format", description: "Output", ...oneOfKind(["json", "text"] as const) },
  proxy: { default: "", env: "TOOL_PROXY", flag: "--proxy", description: "Proxy", ...urlKind(["http", "https"], { optional: true }) },
  json: { default: false, env: "", flag: "--json", description: "JSON output", ...switchKind() },
} satisfies FieldSpecs<Tool>);

test("config - positional arguments are kept in order when allowed, and a switch before one stands alone", () => {
  const read = readFlags(["https://a.test/", "--quiet", "https://b.test/", "--count", "3", "c"], ROWS, undefined, { positionals: true });
  expect(read.problems).toEqual([]);
  expect(read.positionals).toEqual(["https://a.test/", "https://b.test/", "c"]);
  expect(read.flags).toEqual(
    new Map([
      ["--quiet", "true"],
      ["--count", "3"],
    ]),
  );
  expect(readFlags(["--quiet", "off", "x"], ROWS, undefined, { positionals: true }).flags.get("--quiet")).toBe("off");
  expect(readFlags(["stray"], ROWS).problems).toEqual(['unknown argument "stray" (see --help)']);
});

test("config - a lone -- ends the flags where allowed, and what follows is handed on untouched", () => {
  const read = readFlags(["--count", "4", "--", "--min-gap", "1s", "x"], ROWS, undefined, { rest: true });
  expect(read.flags.get("--count")).toBe("4");
  expect(read.rest).toEqual(["--min-gap", "1s", "x"]);
  expect(readFlags(["--"], ROWS).problems).toEqual(['unknown argument "--" (see --help)']);
});

test("config - a row without an env var is read from its flag only, and its help line names no env var", () => {
  const read = readConfig(["--json"], { "": "false", TOOL_QUIET: "yes" }, ROWS);
  expect(read.values).toMatchObject({ json: true, quiet: true });
  expect(readConfig([], { "": "true" }, ROWS).values.json).toBe(false);
  const help = usageText(["usage: tool"], ["Does things."], [{ title: "options", rows: ROWS }]);
  expect(help).toContain("--json ");
  expect(help).toMatch(/--json\s+JSON output \(default false\)\n/);
  expect(help).toMatch(/--count INTEGER\s+How many \(default 2; env TOOL_COUNT\)/);
  expect(help).toMatch(/--format JSON\|TEXT\s+Output/);
  expect(help.startsWith("usage: tool\n\nDoes things.\n\noptions:\n")).toBe(true);
});

test("config - a URL setting names the schemes it takes, and a word setting the words", () => {
  const read = readConfig(["--proxy", "socks5://p:1", "--format", "xml"], {}, ROWS);
  expect(read.problems).toEqual([
    'format: expected json or text, got "xml" (from flag --format)',
    'proxy: must be a http:// or https:// URL, got "socks5://p:1" (from flag --proxy = "socks5://p:1")',
  ]);
  expect(readConfig(["--proxy", "not a url"], {}, ROWS).problems[0]).toMatch(/^proxy: must be a URL \(http:\/\/\.\.\. or https/);
  expect(readConfig(["--format", "TEXT"], {}, ROWS).values.format).toBe("text");
});

test("config - with the policy, one argv carries both tables and every problem of both is listed", () => {
  const fine = readConfig(["--count", "5", "--min-gap", "2s"], { CRAWL_MAX_DEPTH: "4" }, ROWS, { policy: true });
  expect(fine.problems).toEqual([]);
  expect(fine.values.count).toBe(5);
  expect(fine.policy).toEqual({ ...DEFAULT_POLICY, minGapMs: 2_000, maxDepth: 4 });
  const bad = readConfig(["--count", "0", "--min-gap", "soon", "--bogus"], {}, ROWS, { policy: true });
  expect(bad.policy).toBeUndefined();
  expect(bad.problems).toHaveLength(3);
  expect(bad.problems[0]).toBe('unknown argument "--bogus" (see --help)');
  expect(bad.problems[1]).toMatch(/^count: must be at least 1/);
  expect(bad.problems[2]).toMatch(/^minGapMs: expected a duration/);
  expect(readConfig(["--min-gap=1s"], {}, ROWS).problems).toEqual(['unknown argument "--min-gap=1s" (see --help)']);
});

test("config - every configuration error is a ConfigError carrying its problems", () => {
  const error = new PolicyConfigError(["a: bad", "b: worse"]);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.problems).toEqual(["a: bad", "b: worse"]);
  expect(new ConfigError("--out DIR is required").problems).toEqual(["--out DIR is required"]);
  expect(ConfigError.listing("invalid x", ["a", "b"])).toBe("invalid x:\n  - a\n  - b");
});

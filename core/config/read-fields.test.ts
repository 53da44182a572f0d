import { expect, test } from "bun:test";
import { between, durationKind, integerKind, stringKind, switchKind } from "./field-kinds.ts";
import { defaultText, tableRows, usageLine, type FieldSpecs } from "./field-table.ts";
import { readFields, readFlags } from "./read-fields.ts";

interface Demo {
  name: string;
  count: number;
  wait: number;
  verbose: boolean;
  list: readonly string[];
}

const SPECS: FieldSpecs<Demo> = {
  name: { default: "", env: "DEMO_NAME", flag: "--name", description: "A name", ...stringKind() },
  count: { default: 3, env: "DEMO_COUNT", flag: "--count", description: "How many", ...integerKind(between(1, 10)) },
  wait: { default: 1_000, env: "DEMO_WAIT", flag: "--wait", description: "How long", ...durationKind({ min: 0, max: 60_000 }) },
  verbose: { default: false, env: "DEMO_VERBOSE", flag: "--verbose", description: "Say more", ...switchKind() },
  list: {
    default: ["a"],
    env: "DEMO_LIST",
    flag: "--list",
    description: "Items",
    kind: "list",
    parse: (raw) => raw.split(","),
    format: (v) => v.join(","),
    check: () => undefined,
  },
};
const ROWS = tableRows(SPECS);

test("config table - a flag beats its env var, which beats the default; a blank env var counts as unset", () => {
  const { flags, problems } = readFlags(["--count", "7", "--wait=2s"], ROWS);
  expect(problems).toEqual([]);
  const read = readFields(ROWS, flags, { DEMO_COUNT: "9", DEMO_NAME: "from-env", DEMO_WAIT: "5s", DEMO_VERBOSE: " " });
  expect(read.values).toEqual({ name: "from-env", count: 7, wait: 2_000, verbose: false, list: ["a"] });
  expect([...read.given].sort()).toEqual(["count", "name", "wait"]);
  expect(read.problems).toEqual([]);
});

test("config table - a switch stands alone unless a value follows it", () => {
  expect(readFlags(["--verbose", "--count", "2"], ROWS).flags.get("--verbose")).toBe("true");
  expect(readFlags(["--verbose"], ROWS).flags.get("--verbose")).toBe("true");
  expect(readFlags(["--verbose", "off"], ROWS).flags.get("--verbose")).toBe("off");
  expect(readFlags(["--verbose=no"], ROWS).flags.get("--verbose")).toBe("no");
});

test("config table - unknown arguments and missing values are reported in argv order, worded by the caller", () => {
  expect(readFlags(["--bogus=1", "--count"], ROWS).problems).toEqual([
    'unknown argument "--bogus=1" (see --help)',
    "--count needs a value",
  ]);
  expect(readFlags(["--bogus=1"], ROWS, (_arg, name) => `unknown option ${name}`).problems).toEqual(["unknown option --bogus"]);
});

test("config table - every bad value is reported, naming where it came from, and its field keeps the default", () => {
  const { flags } = readFlags(["--count", "0", "--wait", "soon"], ROWS);
  const read = readFields(ROWS, flags, { DEMO_VERBOSE: "maybe" });
  expect(read.problems).toEqual([
    'count: must be between 1 and 10 (from flag --count = "0")',
    'wait: expected a duration such as 500ms, 1s, 2h or 7d, got "soon" (from flag --wait)',
    'verbose: expected true or false, got "maybe" (from env DEMO_VERBOSE)',
  ]);
  expect(read.values).toMatchObject({ count: 3, wait: 1_000, verbose: false });
  expect(read.given.size).toBe(0);
});

test('config table - help lines show the default as it is typed, an empty one as "", and list defaults are frozen', () => {
  const [name, count] = ROWS;
  expect(defaultText(name!)).toBe('""');
  expect(usageLine(count!)).toBe(`  ${"--count VALUE".padEnd(32)} How many (default 3; env DEMO_COUNT)`);
  expect(usageLine(ROWS[3]!, "", 12)).toBe("  --verbose    Say more (default false; env DEMO_VERBOSE)");
  expect(Object.isFrozen(ROWS[4]!.default)).toBe(true);
});

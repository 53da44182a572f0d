import { expect, test } from "bun:test";
import { DEFAULT_POLICY, POLICY_FIELDS } from "./policy-defaults.ts";
import { describePolicy } from "./describe-policy.ts";
import { validatePolicy } from "./validate-policy.ts";

test("policy table - defaults match the policy table of ARCHITECTURE.md", () => {
  expect(DEFAULT_POLICY.minGapMs).toBe(1_000);
  expect(DEFAULT_POLICY.gapFetchMultiplier).toBe(10);
  expect(DEFAULT_POLICY.connectTimeoutMs).toBe(5_000);
  expect(DEFAULT_POLICY.responseTimeoutMs).toBe(20_000);
  expect(DEFAULT_POLICY.keepAliveMs).toBe(20_000);
  expect(DEFAULT_POLICY.maxBodyBytes).toBe(5 * 1024 * 1024);
  expect(DEFAULT_POLICY.maxRedirects).toBe(5);
  expect(DEFAULT_POLICY.robotsMaxAgeMs).toBe(24 * 3_600_000);
  expect(DEFAULT_POLICY.retryDelaysMs).toEqual([3_600_000, 6 * 3_600_000, 24 * 3_600_000]);
  expect(DEFAULT_POLICY.maxFailures).toBe(3);
  expect(DEFAULT_POLICY.deadForMs).toBe(7 * 86_400_000);
  expect(DEFAULT_POLICY.refetchMinMs).toBe(3_600_000);
  expect(DEFAULT_POLICY.refetchMaxMs).toBe(30 * 86_400_000);
  expect(DEFAULT_POLICY.maxUrlLength).toBe(2048);
  expect(DEFAULT_POLICY.maxDepth).toBe(20);
});

test("policy table - the defaults pass every range and cross-field check", () => {
  expect(validatePolicy(DEFAULT_POLICY)).toEqual([]);
});

test("policy table - every row has a unique, well-formed env var and flag and a description", () => {
  const envs = new Set(POLICY_FIELDS.map((row) => row.env));
  const flags = new Set(POLICY_FIELDS.map((row) => row.flag));
  expect(envs.size).toBe(POLICY_FIELDS.length);
  expect(flags.size).toBe(POLICY_FIELDS.length);
  for (const row of POLICY_FIELDS) {
    expect(row.env).toMatch(/^CRAWL_[A-Z0-9_]+$/);
    expect(row.flag).toMatch(/^--[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(row.description.length).toBeGreaterThan(10);
  }
});

test("policy table - every default survives format then parse unchanged", () => {
  for (const row of POLICY_FIELDS) {
    const format = row.format as (value: unknown) => string;
    expect({ field: row.field, value: row.parse(format(row.default)) }).toEqual({
      field: row.field,
      value: row.default,
    });
  }
});

test("policy table - the default policy is frozen, lists included", () => {
  expect(Object.isFrozen(DEFAULT_POLICY)).toBe(true);
  expect(Object.isFrozen(DEFAULT_POLICY.retryDelaysMs)).toBe(true);
});

test("policy table - a floor above its ceiling is reported against the floor field", () => {
  const problems = validatePolicy({ ...DEFAULT_POLICY, refetchMinMs: 40 * 86_400_000, refetchInitialMs: 40 * 86_400_000 });
  expect(problems.map((p) => p.field)).toEqual(["refetchInitialMs"]);
  expect(validatePolicy({ ...DEFAULT_POLICY, minGapMs: 2 * 86_400_000 }).map((p) => p.field)).toEqual(["minGapMs"]);
});

test("policy table - a fetch lease no longer than the response timeout is refused", () => {
  const problems = validatePolicy({ ...DEFAULT_POLICY, fetchLeaseMs: 20_000 });
  expect(problems).toHaveLength(1);
  expect(problems[0]?.field).toBe("fetchLeaseMs");
});

test("policy table - describes each knob with values written the way the parsers read them", () => {
  const rows = describePolicy({ ...DEFAULT_POLICY, minGapMs: 2_500 });
  expect(rows).toHaveLength(POLICY_FIELDS.length);
  expect(rows.find((row) => row.field === "minGapMs")).toMatchObject({ value: "2s500ms", default: "1s", flag: "--min-gap" });
  expect(rows.find((row) => row.field === "retryDelaysMs")?.value).toBe("1h,6h,1d");
  expect(rows.find((row) => row.field === "maxBodyBytes")?.value).toBe("5MiB");
});

test("policy table - a refetch interval below a minute needs --allow-short-refetch", () => {
  const short = { ...DEFAULT_POLICY, refetchInitialMs: 10_000, refetchMinMs: 5_000 };
  expect(validatePolicy(short).map((p) => p.field)).toEqual(["refetchInitialMs", "refetchMinMs"]);
  expect(validatePolicy(short)[0]?.message).toContain("--allow-short-refetch");
  expect(validatePolicy({ ...short, allowShortRefetch: true })).toEqual([]);
});

test("policy table - media are not fetched by default, and have their own body cap", () => {
  expect(DEFAULT_POLICY.fetchMedia).toBe(false);
  expect(DEFAULT_POLICY.maxMediaBodyBytes).toBe(20 * 1024 * 1024);
});

import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "./policy-defaults.ts";
import { PolicyConfigError, resolvePolicy } from "./resolve-policy.ts";

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof PolicyConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a PolicyConfigError");
}

test("resolvePolicy - with nothing given returns the defaults", () => {
  expect(resolvePolicy({}, {})).toEqual(DEFAULT_POLICY);
});

test("resolvePolicy - an env var overrides the default", () => {
  const cfg = resolvePolicy({}, { CRAWL_MIN_GAP: "2s", CRAWL_MAX_BODY: "10MB", CRAWL_RETRY_DELAYS: "30m,2h" });
  expect(cfg.minGapMs).toBe(2_000);
  expect(cfg.maxBodyBytes).toBe(10 * 1024 * 1024);
  expect(cfg.retryDelaysMs).toEqual([1_800_000, 7_200_000]);
  expect(cfg.maxDepth).toBe(DEFAULT_POLICY.maxDepth);
});

test("resolvePolicy - a flag overrides the env var, whether keyed by flag or by field name", () => {
  const env = { CRAWL_MIN_GAP: "2s", CRAWL_MAX_DEPTH: "5" };
  expect(resolvePolicy({ "--min-gap": "3s" }, env).minGapMs).toBe(3_000);
  expect(resolvePolicy({ "min-gap": "4s" }, env).minGapMs).toBe(4_000);
  expect(resolvePolicy({ minGapMs: "500ms" }, env).minGapMs).toBe(500);
  expect(resolvePolicy({ minGapMs: undefined }, env).maxDepth).toBe(5);
});

test("resolvePolicy - a min gap of 0 is allowed", () => {
  expect(resolvePolicy({ "--min-gap": "0" }, {}).minGapMs).toBe(0);
});

test("resolvePolicy - an empty env var counts as unset but an empty flag is an error", () => {
  expect(resolvePolicy({}, { CRAWL_MIN_GAP: "" }).minGapMs).toBe(1_000);
  expect(problemsOf(() => resolvePolicy({ "--min-gap": "" }, {}))[0]).toMatch(/^minGapMs: .*flag --min-gap/);
});

test("resolvePolicy - reports every bad value at once, naming field and source", () => {
  const problems = problemsOf(() => resolvePolicy({ "--max-depth": "deep" }, { CRAWL_MIN_GAP: "1000", CRAWL_MAX_BODY: "lots" }));
  expect(problems).toHaveLength(3);
  expect(problems.join("\n")).toContain("minGapMs: ");
  expect(problems.join("\n")).toContain("env CRAWL_MIN_GAP");
  expect(problems.join("\n")).toContain("maxBodyBytes: ");
  expect(problems.join("\n")).toContain("maxDepth: ");
  expect(problems.join("\n")).toContain("flag --max-depth");
});

test("resolvePolicy - a value out of range is an error naming the bound", () => {
  const problems = problemsOf(() => resolvePolicy({}, { CRAWL_ROBOTS_MAX_AGE: "2d" }));
  expect(problems[0]).toMatch(/robotsMaxAgeMs: must be at most 1d, got 2d/);
});

test("resolvePolicy - a header-breaking user agent is refused", () => {
  const problems = problemsOf(() => resolvePolicy({ "--user-agent": "Bot\r\nX-Evil: 1" }, {}));
  expect(problems[0]).toMatch(/^userAgent: must be printable ASCII/);
});

test("resolvePolicy - an unknown override key is an error rather than silently ignored", () => {
  expect(problemsOf(() => resolvePolicy({ "--min-gapp": "1s" }, {}))).toEqual(['unknown policy option "--min-gapp"']);
});

test("resolvePolicy - the same field given twice with different values is an error", () => {
  expect(problemsOf(() => resolvePolicy({ minGapMs: "1s", "--min-gap": "2s" }, {}))[0]).toMatch(/given twice/);
});

test("resolvePolicy - cross-field rules run on the merged result", () => {
  const problems = problemsOf(() => resolvePolicy({ "--refetch-min": "40d" }, {}));
  expect(problems[0]).toMatch(/^refetchMinMs: must not exceed refetchInitialMs/);
});

test("resolvePolicy - the error message lists the problems and says the crawler cannot start", () => {
  try {
    resolvePolicy({}, { CRAWL_MAX_DEPTH: "-1" });
    throw new Error("unreachable");
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyConfigError);
    expect((error as Error).message).toMatch(/cannot start:\n  - maxDepth: /);
  }
});

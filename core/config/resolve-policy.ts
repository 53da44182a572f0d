/**
 * Builds the effective PolicyConfig from three layers: CLI flags override env vars, which override the
 * defaults of the policy table. Bad input is fatal at start-up: every bad value is collected into one
 * PolicyConfigError that names each field, where the value came from, and what was expected.
 */
import { DEFAULT_POLICY, type PolicyConfig, type PolicyField, POLICY_FIELDS } from "./policy-defaults.ts";
import { validatePolicy } from "./validate-policy.ts";

/** Where a value came from, for error messages. */
export type PolicySource = "flag" | "env" | "default";

/**
 * The crawler cannot start with this configuration (fatal, never retry): fix the listed values.
 * `problems` holds one line per bad value.
 */
export class PolicyConfigError extends Error {
  override name = "PolicyConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid crawl policy, the crawler cannot start:\n  - ${problems.join("\n  - ")}`);
  }
}

// Overrides may be keyed by field name (`minGapMs`) or by flag, with or without dashes (`--min-gap`,
// `min-gap`), so a CLI parser can pass what it parsed without translating names.
const BY_KEY = new Map<string, PolicyField>();
for (const row of POLICY_FIELDS) {
  BY_KEY.set(row.field, row);
  BY_KEY.set(row.flag, row);
  BY_KEY.set(row.flag.replace(/^--/, ""), row);
}

/**
 * Resolves the policy: for each field the flag value in `overrides` wins, then the env var in `env`,
 * then the default. Undefined values count as absent; an empty env var also counts as absent (compose
 * files often set `VAR=`), but an empty flag is an error. Unknown override keys are errors, so a typo
 * in a policy flag cannot be silently ignored. Throws PolicyConfigError listing every problem.
 */
export function resolvePolicy(
  overrides: Readonly<Record<string, string | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): PolicyConfig {
  const problems: string[] = [];
  const flags = new Map<PolicyField, { key: string; raw: string }>();
  for (const [key, raw] of Object.entries(overrides)) {
    if (raw === undefined) continue;
    const row = BY_KEY.get(key);
    if (!row) {
      problems.push(`unknown policy option "${key}"`);
      continue;
    }
    const earlier = flags.get(row);
    if (earlier && earlier.raw !== raw) {
      problems.push(`${row.field}: given twice, as "${earlier.key}" and "${key}", with different values`);
      continue;
    }
    flags.set(row, { key, raw });
  }

  const resolved: Record<string, unknown> = { ...DEFAULT_POLICY };
  for (const row of POLICY_FIELDS) {
    const flag = flags.get(row);
    const envRaw = env[row.env];
    let source: PolicySource;
    let raw: string;
    if (flag) {
      source = "flag";
      raw = flag.raw;
    } else if (envRaw !== undefined && envRaw.trim() !== "") {
      source = "env";
      raw = envRaw;
    } else {
      continue;
    }
    const origin = source === "flag" ? `flag ${row.flag}` : `env ${row.env}`;
    try {
      const value = row.parse(raw);
      const problem = (row.check as (v: unknown) => string | undefined)(value);
      if (problem) problems.push(`${row.field}: ${problem} (from ${origin} = "${raw}")`);
      else resolved[row.field] = value;
    } catch (error) {
      problems.push(`${row.field}: ${(error as Error).message} (from ${origin})`);
    }
  }
  if (problems.length > 0) throw new PolicyConfigError(problems);

  const cfg = resolved as unknown as PolicyConfig;
  const crossProblems = validatePolicy(cfg).map((p) => `${p.field}: ${p.message}`);
  if (crossProblems.length > 0) throw new PolicyConfigError(crossProblems);
  return Object.freeze(cfg);
}

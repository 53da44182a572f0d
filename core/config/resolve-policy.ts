/**
 * Builds the effective PolicyConfig from three layers: CLI flags override env vars, which override the
 * defaults of the policy table. Bad input is fatal at start-up: every bad value is collected into one
 * PolicyConfigError that names each field, where the value came from, and what was expected.
 */
import { type PolicyConfig, type PolicyField, POLICY_FIELDS } from "./policy-defaults.ts";
import { ConfigError } from "./config-error.ts";
import { readFields, type Env } from "./read-fields.ts";
import { validatePolicy } from "./validate-policy.ts";

/**
 * The crawler cannot start with this configuration (fatal, never retry): fix the listed values.
 * `problems` holds one line per bad value.
 */
export class PolicyConfigError extends ConfigError.titled("invalid crawl policy, the crawler cannot start") {}

// Overrides may be keyed by field name (`minGapMs`) or by flag, with or without dashes (`--min-gap`,
// `min-gap`), so a CLI parser can pass what it parsed without translating names.
const BY_KEY = new Map<string, PolicyField>();
for (const row of POLICY_FIELDS) {
  BY_KEY.set(row.field, row);
  BY_KEY.set(row.flag, row);
  BY_KEY.set(row.flag.replace(/^--/, ""), row);
}
const POLICY_FLAGS = new Set(POLICY_FIELDS.map((row) => row.flag));

/**
 * Resolves the policy: for each field the flag value in `overrides` wins, then the env var in `env`,
 * then the default. Undefined values count as absent; an empty env var also counts as absent (compose
 * files often set `VAR=`), but an empty flag is an error. Unknown override keys are errors, so a typo
 * in a policy flag cannot be silently ignored. Throws PolicyConfigError listing every problem.
 */
export function resolvePolicy(overrides: Readonly<Record<string, string | undefined>>, env: Env): PolicyConfig {
  const problems: string[] = [];
  const flags = new Map<string, { key: string; raw: string }>();
  for (const [key, raw] of Object.entries(overrides)) {
    if (raw === undefined) continue;
    const row = BY_KEY.get(key);
    if (!row) {
      problems.push(`unknown policy option "${key}"`);
      continue;
    }
    const earlier = flags.get(row.flag);
    if (earlier && earlier.raw !== raw) {
      problems.push(`${row.field}: given twice, as "${earlier.key}" and "${key}", with different values`);
      continue;
    }
    flags.set(row.flag, { key, raw });
  }

  const read = readFields(POLICY_FIELDS, new Map([...flags].map(([flag, { raw }]) => [flag, raw])), env);
  for (const item of read.problems) problems.push(item);
  if (problems.length > 0) throw new PolicyConfigError(problems);

  const crossProblems = validatePolicy(read.values).map((p) => `${p.field}: ${p.message}`);
  if (crossProblems.length > 0) throw new PolicyConfigError(crossProblems);
  return Object.freeze(read.values);
}

/** The policy flags among `flags` (a role's whole command line), ready for `resolvePolicy`. */
export function policyOverrides(flags: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...flags].filter(([flag]) => POLICY_FLAGS.has(flag)));
}

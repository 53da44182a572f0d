/**
 * One call that reads a process's whole configuration: its own table, and, for the processes that crawl,
 * the crawl policy table too, from the same argv and env (flags over env vars over defaults). Every problem
 * of both tables comes back in one list, so a process checks its cross-field rules, then throws one
 * ConfigError naming them all. Pure: argv and env are passed in.
 */
import type { AnyFieldRow, FieldRow } from "./field-table.ts";
import { POLICY_FIELDS, type PolicyConfig } from "./policy-defaults.ts";
import { readFields, readFlags, type ArgvShape, type Env } from "./read-fields.ts";
import { PolicyConfigError, policyOverrides, resolvePolicy } from "./resolve-policy.ts";

export interface ConfigOptions extends ArgvShape {
  /** The process also takes every policy flag (and its env var) and gets the resolved policy. */
  readonly policy?: boolean;
  /** Words the problem for an argument no row knows (readFlags' default when absent). */
  readonly unknown?: (arg: string, name: string) => string;
}

export interface ConfigRead<C> {
  /** Complete: a field not given, or given a bad value, holds its default. */
  readonly values: C;
  /** The fields given by flag or env var. */
  readonly given: ReadonlySet<keyof C>;
  /** The resolved policy with `policy: true` and no policy problem; else undefined. */
  readonly policy: PolicyConfig | undefined;
  readonly positionals: string[];
  readonly rest: string[];
  /** Every problem of argv, the table and the policy, in that order; empty means usable. */
  readonly problems: string[];
}

export function readConfig<C>(argv: readonly string[], env: Env, rows: readonly FieldRow<C>[], options: ConfigOptions = {}): ConfigRead<C> {
  // Rows of two tables side by side: readFlags reads only flag and kind, the same in every table.
  const known = (options.policy ? [...rows, ...POLICY_FIELDS] : rows) as readonly AnyFieldRow[];
  const { flags, problems, positionals, rest } = readFlags(argv, known, options.unknown, options);
  const read = readFields(rows, flags, env);
  for (const item of read.problems) problems.push(item);
  let policy: PolicyConfig | undefined;
  if (options.policy) {
    try {
      policy = resolvePolicy(policyOverrides(flags), env);
    } catch (error) {
      if (!(error instanceof PolicyConfigError)) throw error;
      for (const item of error.problems) problems.push(item);
    }
  }
  return { values: read.values, given: read.given, policy, positionals, rest, problems };
}

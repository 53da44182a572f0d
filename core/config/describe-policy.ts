/**
 * The policy as text rows (field, flag, env var, value, description), for `--help`, the admin API and
 * start-up logs. Values are written in the same form the parsers read, so a row can be pasted back as
 * a flag or env var.
 */
import { DEFAULT_POLICY, type PolicyConfig, POLICY_FIELDS } from "./policy-defaults.ts";

export interface PolicyRow {
  readonly field: keyof PolicyConfig;
  readonly flag: string;
  readonly env: string;
  readonly kind: string;
  /** The value in `cfg`, formatted (`1s`, `5MiB`, `1h,6h,1d`). */
  readonly value: string;
  /** The default, formatted the same way. */
  readonly default: string;
  readonly description: string;
}

/** One row per knob, in table order, showing the values of `cfg` (the defaults when omitted). */
export function describePolicy(cfg: PolicyConfig = DEFAULT_POLICY): PolicyRow[] {
  return POLICY_FIELDS.map((row) => {
    // Each row formats its own field's type; the cast only widens the per-row generic.
    const format = row.format as (value: unknown) => string;
    return {
      field: row.field,
      flag: row.flag,
      env: row.env,
      kind: row.kind,
      value: format(cfg[row.field]),
      default: format(row.default),
      description: row.description,
    };
  });
}

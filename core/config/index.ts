/**
 * The crawl policy configuration: the table of knobs with their defaults, env vars and flags, the
 * value parsers, and the resolver that layers flags over env over defaults.
 */
export {
  DEFAULT_POLICY,
  POLICY_FIELDS,
  type PolicyConfig,
  type PolicyField,
  type PolicyFieldSpec,
} from "./policy-defaults.ts";
export { PolicyConfigError, resolvePolicy, type PolicySource } from "./resolve-policy.ts";
export { validatePolicy, type PolicyProblem } from "./validate-policy.ts";
export {
  formatDuration,
  formatDurationList,
  formatSize,
  parseDecimal,
  parseDuration,
  parseDurationList,
  parseInteger,
  parseSize,
} from "./parse-values.ts";
export type { Bounds, ValueKind } from "./field-kinds.ts";
export { describePolicy, type PolicyRow } from "./describe-policy.ts";

/**
 * Configuration: the table mechanism every process reads its settings with (field-table.ts,
 * read-fields.ts, the value kinds of field-kinds.ts), the crawl policy table with its defaults, env vars
 * and flags, the value parsers, and the resolver that layers flags over env over defaults.
 */
export {
  DEFAULT_POLICY,
  POLICY_FIELDS,
  type PolicyConfig,
  type PolicyField,
  type PolicyFieldSpec,
} from "./policy-defaults.ts";
export { cidrListKind, hostListKind } from "./address-kinds.ts";
export { PolicyConfigError, policyOverrides, resolvePolicy } from "./resolve-policy.ts";
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
export {
  between,
  decimalKind,
  dirKind,
  durationKind,
  durationListKind,
  integerKind,
  sizeKind,
  stringKind,
  switchKind,
  textKind,
  type Bounds,
  type ValueKind,
} from "./field-kinds.ts";
export { defaultText, tableRows, usageLine, type AnyFieldRow, type FieldRow, type FieldSpec, type FieldSpecs } from "./field-table.ts";
export { readFields, readFlags, type Env, type FieldsRead, type FlagsRead } from "./read-fields.ts";
export { describePolicy, type PolicyRow } from "./describe-policy.ts";

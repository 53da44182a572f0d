/**
 * Configuration: the table mechanism every process reads its settings with (field-table.ts,
 * read-fields.ts and read-config.ts, the value kinds of field-kinds.ts, the usage text), the crawl policy
 * table with its defaults, env vars and flags, the value parsers, the resolver that layers flags over env
 * over defaults, and ConfigError, the one "bad configuration" error every process exits 2 on.
 */
export {
  DEFAULT_POLICY,
  POLICY_FIELDS,
  policyFieldSpec,
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
  oneOfKind,
  urlKind,
  type Bounds,
  type ValueKind,
} from "./field-kinds.ts";
export {
  defaultText,
  placeholderOf,
  tableRows,
  usageLine,
  usageText,
  type AnyFieldRow,
  type FieldRow,
  type FieldSpec,
  type FieldSpecs,
  type UsageSection,
} from "./field-table.ts";
export { readFields, readFlags, type ArgvShape, type Env, type FieldsRead, type FlagsRead } from "./read-fields.ts";
export { readConfig, type ConfigOptions, type ConfigRead } from "./read-config.ts";
export { ConfigError } from "./config-error.ts";
export { describePolicy, type PolicyRow } from "./describe-policy.ts";
export { applyScopeFile, ScopeFileConfigError } from "./scope-file.ts";

/**
 * Checks a whole PolicyConfig: each field against its row's range, then the rules that tie fields
 * together (a floor may not exceed its ceiling, a fetch lease must outlast the response timeout). It
 * returns every problem at once, each naming its field, so a bad deployment is fixed in one pass.
 */
import { type PolicyConfig, POLICY_FIELDS } from "./policy-defaults.ts";
import { formatDuration } from "./parse-values.ts";

/** The shortest refetch interval allowed without `allowShortRefetch`. */
export const SHORT_REFETCH_FLOOR_MS = 60_000;

/** One field-level complaint. */
export interface PolicyProblem {
  readonly field: keyof PolicyConfig;
  readonly message: string;
}

/** Returns every problem in `cfg`; an empty list means it is usable. */
export function validatePolicy(cfg: PolicyConfig): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  for (const row of POLICY_FIELDS) {
    // Each row checks its own field's type; the cast only widens the per-row generic.
    const message = (row.check as (value: unknown) => string | undefined)(cfg[row.field]);
    if (message) problems.push({ field: row.field, message });
  }
  if (problems.length > 0) return problems; // cross-field rules would only repeat the confusion

  const notAbove = (low: keyof PolicyConfig, high: keyof PolicyConfig): void => {
    const a = cfg[low] as number;
    const b = cfg[high] as number;
    if (a > b) {
      problems.push({ field: low, message: `must not exceed ${high} (${formatDuration(a)} > ${formatDuration(b)})` });
    }
  };
  notAbove("minGapMs", "maxGapMs");
  notAbove("crawlDelayCapMs", "maxGapMs");
  notAbove("refetchMinMs", "refetchInitialMs");
  notAbove("refetchInitialMs", "refetchMaxMs");
  notAbove("connectTimeoutMs", "responseTimeoutMs");
  // Refetching a page every few seconds is right for a test or one's own small site and rude anywhere
  // else, so going below a minute takes an explicit switch.
  if (!cfg.allowShortRefetch) {
    for (const field of ["refetchInitialMs", "refetchMinMs", "refetchMaxMs"] as const) {
      if (cfg[field] < SHORT_REFETCH_FLOOR_MS) {
        problems.push({
          field,
          message: `is below ${formatDuration(SHORT_REFETCH_FLOOR_MS)} (${formatDuration(cfg[field])}); add --allow-short-refetch (meant for tests and small sites of your own)`,
        });
      }
    }
  }
  // A lease shorter than a legitimate fetch would release a host while its fetch is still running,
  // allowing a second connection to it.
  if (cfg.fetchLeaseMs <= cfg.responseTimeoutMs) {
    problems.push({
      field: "fetchLeaseMs",
      message: `must be longer than responseTimeoutMs (${formatDuration(cfg.fetchLeaseMs)} <= ${formatDuration(cfg.responseTimeoutMs)})`,
    });
  }
  return problems;
}

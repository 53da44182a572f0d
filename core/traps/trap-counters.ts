/**
 * Counts of URLs refused by each trap rule, for stats and for spotting a misconfigured limit (a sudden
 * rise in `host-queue-full`, say). Plain data keyed by reason; counts from several nodes merge by
 * adding. Exported as metrics under the names given by `trapCounterName`.
 */
import type { TrapReason, TrapVerdict } from "./check-trap.ts";

export type TrapCounters = Readonly<Record<string, number>>;

export function emptyTrapCounters(): TrapCounters {
  return {};
}

/** Returns the counters with one more refusal for `reason`; an accepting verdict changes nothing. */
export function countTrap(counters: TrapCounters, verdict: TrapVerdict | TrapReason): TrapCounters {
  const reason = typeof verdict === "string" ? verdict : verdict.ok ? undefined : verdict.reason;
  if (reason === undefined) return counters;
  return { ...counters, [reason]: (counters[reason] ?? 0) + 1 };
}

/** Adds counters from several sources (nodes, time windows). */
export function mergeTrapCounters(...all: readonly TrapCounters[]): TrapCounters {
  const merged: Record<string, number> = {};
  for (const counters of all) {
    for (const [reason, count] of Object.entries(counters)) merged[reason] = (merged[reason] ?? 0) + count;
  }
  return merged;
}

/** The namespaced stat name of a reason, e.g. `traps.rejected.url-too-long`. */
export function trapCounterName(reason: string): string {
  return `traps.rejected.${reason}`;
}

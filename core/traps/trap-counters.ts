/**
 * The stat name under which refusals by a trap rule are counted, e.g. `traps.rejected.url-too-long`, for
 * stats and for spotting a misconfigured limit (a sudden rise in `host-queue-full`, say). Counts from
 * several nodes merge by adding, like every counter.
 */
import type { TrapReason } from "./check-trap.ts";

/** The namespaced stat name of a refusal reason. */
export function trapCounterName(reason: TrapReason): string {
  return `traps.rejected.${reason}`;
}

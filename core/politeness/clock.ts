/**
 * The one clock politeness is measured with, and how a fetch result's times cross from the clock of the
 * thread or process that fetched to the clock of the frontier that decides. A gap is a difference of two
 * instants, so both must come from one clock and keep their fractions: `Date.now()` floors to the
 * millisecond (a gap computed from it can come up to 1 ms short, and 10 × a duration up to 10 ms short)
 * and can jump when the system clock is set. `preciseNow` is epoch milliseconds with sub-millisecond
 * resolution that only moves forward (the monotonic clock, anchored to the wall clock when the process
 * or thread started).
 *
 * Clocks of two threads or machines still differ. So a result carries `sentAt`, the fetching side's clock
 * when it handed the result over, and the receiving frontier moves the result's times onto its own clock:
 * `at + (receivedAt − sentAt)`. Only differences taken on one clock are used, whatever the other clock
 * says, and the shift includes the time in transit, so the end it puts on the frontier's clock is never
 * earlier than the true end: a gap counted from it can only be longer.
 */
import type { FetchResult } from "../model/index.ts";

/** Epoch milliseconds, sub-millisecond, monotonic within this thread. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The result with its times moved onto the receiver's clock (`receivedAt`, from the receiver's
 * `preciseNow`), and `sentAt` removed; a result without `sentAt` was made on the receiver's clock and is
 * returned as it is.
 */
export function receivedResult(result: FetchResult, receivedAt: number): FetchResult {
  if (result.sentAt === undefined) return result;
  const shift = receivedAt - result.sentAt;
  const { sentAt: _sent, ...rest } = result;
  return { ...rest, startedAt: result.startedAt + shift, endedAt: result.endedAt + shift };
}

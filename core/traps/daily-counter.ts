/**
 * A count that starts again at zero each UTC day, such as the pages fetched from one host today (the
 * per-host daily cap). It is plain data, `{ day, count }`, meant to be kept beside each host's state;
 * a counter from an earlier day simply reads as zero, so nothing has to reset counters at midnight.
 */

const DAY_MS = 86_400_000;

/** `day` is the UTC date as `YYYY-MM-DD`, readable in the store and in `inspect host`. */
export interface DailyCounter {
  readonly day: string;
  readonly count: number;
}

// The last day formatted, so the hot path (every task checks its host's daily cap) formats a date once a
// day instead of once a call. A cache of a pure function: same answers, any clock.
let cachedDayNumber = Number.NaN;
let cachedDay = "";

/** The UTC date of an epoch-ms time as `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  const dayNumber = Math.floor(now / DAY_MS);
  if (dayNumber !== cachedDayNumber) {
    cachedDay = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
    cachedDayNumber = dayNumber;
  }
  return cachedDay;
}

/** The start (epoch ms) of the UTC day after `now`: when a host at its daily cap may resume. */
export function nextUtcDayStart(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/** Today's count: 0 when the counter is missing or from another day. */
export function countToday(counter: DailyCounter | undefined | null, now: number): number {
  return counter && counter.day === utcDay(now) ? counter.count : 0;
}

/** Returns the counter with `by` (default 1) added to today's count, starting afresh on a new day. */
export function bumpDaily(counter: DailyCounter | undefined | null, now: number, by = 1): DailyCounter {
  return { day: utcDay(now), count: countToday(counter, now) + by };
}

/**
 * The pages feed's cursor: the stream sequence of the last record a page returned, as a decimal string.
 * Records come in stream order, so "after N" is exact and stays valid while records age out (a cursor
 * older than the oldest record left simply starts there). Anything else is a 400 naming the parameter.
 */
import { InvalidArgumentError } from "../errors/index.ts";

export const MAX_PAGE_LIMIT = 1000;
export const DEFAULT_PAGE_LIMIT = 100;

export function parseCursor(after: string | undefined): number {
  if (after === undefined || after === "") return 0;
  if (!/^\d{1,16}$/.test(after) || !Number.isSafeInteger(Number(after)))
    throw new InvalidArgumentError(`after: a cursor is the "next" of an earlier page (digits), got "${after.slice(0, 32)}"`);
  return Number(after);
}

export function parseLimit(limit: string | undefined): number {
  if (limit === undefined || limit === "") return DEFAULT_PAGE_LIMIT;
  const n = Number(limit);
  if (!/^\d{1,4}$/.test(limit) || n < 1 || n > MAX_PAGE_LIMIT)
    throw new InvalidArgumentError(`limit: a whole number from 1 to ${MAX_PAGE_LIMIT}, got "${limit.slice(0, 32)}"`);
  return n;
}

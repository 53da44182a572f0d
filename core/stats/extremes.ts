/**
 * The largest and smallest of any number of values. `Math.max(...values)` passes each value as an argument,
 * and past about 100,000 of them the call overflows the stack; these walk the values instead. Like
 * Math.max and Math.min, no values give -Infinity and Infinity.
 */
export function maxOf(values: Iterable<number>): number {
  let max = -Infinity;
  for (const v of values) if (v > max || Number.isNaN(v)) max = v;
  return max;
}

export function minOf(values: Iterable<number>): number {
  let min = Infinity;
  for (const v of values) if (v < min || Number.isNaN(v)) min = v;
  return min;
}

/**
 * A string as a 53-bit number (two murmur3 lanes), for sets that must hold millions of keys: a Set of
 * numbers costs a slot per key, a Set of strings the slot and the string (the scope's root hosts at a
 * million seeds: 175-255 bytes a host as strings). A key not in a set of n shares a number with one of them
 * with odds of n/2⁵³ (a million keys: about 1 in 9 billion lookups), which callers accept where a
 * collision costs little.
 */
import { hash64pair } from "./murmur3-32.ts";

export function key53(s: string): number {
  const [a, b] = hash64pair(s);
  // 32 bits of one lane and 21 of the other: every integer below 2^53 is exact in a double.
  return a * 2_097_152 + (b >>> 11);
}

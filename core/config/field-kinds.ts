/**
 * The value kinds a configuration field can have (duration, size, integer, decimal, duration list,
 * text), each bundling how to parse it from a string, how to write it back for help text, and the
 * range it must fall in. A config table picks one per field, so parsing and bounds live in one place
 * instead of being repeated beside every field.
 */
import {
  formatDuration,
  formatDurationList,
  formatSize,
  parseDecimal,
  parseDuration,
  parseDurationList,
  parseInteger,
  parseSize,
} from "./parse-values.ts";

/** How one field's value is read, written and checked. */
export interface ValueKind<T> {
  /** A name for help text: `duration`, `size`, `integer`, `number`, `durations` or `text`. */
  readonly kind: string;
  /** Reads the value from an env var or flag; throws an Error saying what was expected. */
  parse(raw: string): T;
  /** Writes the value in a form `parse` reads back to the same value. */
  format(value: T): string;
  /** Returns why the value is out of range, or undefined when it is acceptable. */
  check(value: T): string | undefined;
}

/** Inclusive bounds; either end may be left open. */
export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

function checkBounds(value: number, bounds: Bounds, show: (n: number) => string): string | undefined {
  if (!Number.isFinite(value)) return `must be a finite number, got ${value}`;
  if (bounds.min !== undefined && value < bounds.min) return `must be at least ${show(bounds.min)}, got ${show(value)}`;
  if (bounds.max !== undefined && value > bounds.max) return `must be at most ${show(bounds.max)}, got ${show(value)}`;
  return undefined;
}

export function durationKind(bounds: Bounds = {}): ValueKind<number> {
  return {
    kind: "duration",
    parse: parseDuration,
    format: formatDuration,
    check: (value) => checkBounds(value, bounds, formatDuration),
  };
}

export function sizeKind(bounds: Bounds = {}): ValueKind<number> {
  return {
    kind: "size",
    parse: parseSize,
    format: formatSize,
    check: (value) => checkBounds(value, bounds, formatSize),
  };
}

export function integerKind(bounds: Bounds = {}): ValueKind<number> {
  return {
    kind: "integer",
    parse: parseInteger,
    format: String,
    check: (value) =>
      Number.isInteger(value) ? checkBounds(value, bounds, String) : `must be a whole number, got ${value}`,
  };
}

export function decimalKind(bounds: Bounds = {}): ValueKind<number> {
  return {
    kind: "number",
    parse: parseDecimal,
    format: String,
    check: (value) => checkBounds(value, bounds, String),
  };
}

/** A non-empty list of durations; `bounds` applies to each item. */
export function durationListKind(bounds: Bounds = {}): ValueKind<readonly number[]> {
  return {
    kind: "durations",
    parse: parseDurationList,
    format: formatDurationList,
    check(values) {
      if (values.length === 0) return "must list at least one duration";
      for (const [i, value] of values.entries()) {
        const problem = checkBounds(value, bounds, formatDuration);
        if (problem) return `item ${i + 1} ${problem}`;
      }
      return undefined;
    },
  };
}

/**
 * One line of printable ASCII. Values such as the User-Agent go into HTTP headers, where a CR or LF
 * would let a setting inject headers and non-ASCII bytes are not portable.
 */
export function textKind(maxLength = 512): ValueKind<string> {
  return {
    kind: "text",
    parse: (raw) => raw.trim(),
    format: (value) => value,
    check(value) {
      if (value === "") return "must not be empty";
      if (value.length > maxLength) return `must be at most ${maxLength} characters, got ${value.length}`;
      if (!/^[\x20-\x7e]+$/.test(value)) return "must be printable ASCII on one line";
      return undefined;
    },
  };
}

/**
 * The value kinds a configuration field can have (duration, size, integer, decimal, duration list,
 * text, string, directory, switch), each bundling how to parse it from a string, how to write it back
 * for help text, and the range it must fall in. A config table (field-table.ts) picks one per field, so
 * parsing and bounds live in one place instead of being repeated beside every field of every role.
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
  /** A name for help text: `duration`, `size`, `integer`, `number`, `durations`, `text`, `dir`, `switch`... */
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
  /**
   * How a value out of bounds is reported: `"end"` (the default) names the end it crossed and the value
   * (`must be at least 1, got 0`); `"range"` names both ends (`must be between 1 and 4096`), as the
   * cluster roles' tables do. Made by `between`.
   */
  readonly report?: "end" | "range";
}

/** Both ends, reported as the whole range: `must be between 100ms and 1m`. */
export function between(min: number, max: number): Bounds {
  return { min, max, report: "range" };
}

function checkBounds(value: number, bounds: Bounds, show: (n: number) => string): string | undefined {
  if (!Number.isFinite(value)) return `must be a finite number, got ${value}`;
  const below = bounds.min !== undefined && value < bounds.min;
  const above = bounds.max !== undefined && value > bounds.max;
  if ((below || above) && bounds.report === "range") {
    return `must be between ${show(bounds.min ?? -Infinity)} and ${show(bounds.max ?? Infinity)}`;
  }
  if (below) return `must be at least ${show(bounds.min!)}, got ${show(value)}`;
  if (above) return `must be at most ${show(bounds.max!)}, got ${show(value)}`;
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
    check: (value) => (Number.isInteger(value) ? checkBounds(value, bounds, String) : `must be a whole number, got ${value}`),
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

/**
 * A string taken as given (trimmed), accepted when `check` finds no problem. `kind` names it in help
 * text (`rules`, `url`). The empty string is a value like any other; tables show it as `""`.
 */
export function stringKind(kind = "string", check: (value: string) => string | undefined = () => undefined): ValueKind<string> {
  return { kind, parse: (raw) => raw.trim(), format: (value) => value, check };
}

/** A directory path; it must not be empty. */
export function dirKind(): ValueKind<string> {
  return stringKind("dir", (value) => (value === "" ? "must not be empty" : undefined));
}

/** On or off: `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`. Its flag may stand alone, meaning `true`. */
export function switchKind(): ValueKind<boolean> {
  return {
    kind: "switch",
    parse(raw) {
      const value = raw.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(value)) return true;
      if (["0", "false", "no", "off"].includes(value)) return false;
      throw new Error(`expected true or false, got "${raw}"`);
    },
    format: String,
    check: () => undefined,
  };
}

/**
 * One URL whose scheme is one of `schemes` (`urlKind(["redis", "rediss"])`); `optional` also accepts the
 * empty string (none). The kind is named `url` in help text.
 */
export function urlKind(schemes: readonly string[], { optional = false } = {}): ValueKind<string> {
  return stringKind("url", (value) => {
    if (optional && value === "") return undefined;
    let scheme: string;
    try {
      scheme = new URL(value).protocol.replace(/:$/, "");
    } catch {
      return `must be a URL (${schemes.map((s) => `${s}://...`).join(" or ")}), got "${value}"`;
    }
    return schemes.includes(scheme) ? undefined : `must be a ${schemes.map((s) => `${s}://`).join(" or ")} URL, got "${value}"`;
  });
}

/** One of a few words (`json`, `text`); the kind's name in help text lists them: `json|text`. */
export function oneOfKind<T extends string>(words: readonly T[]): ValueKind<T> {
  return {
    kind: words.join("|"),
    parse(raw) {
      const value = raw.trim().toLowerCase();
      if (!(words as readonly string[]).includes(value)) throw new Error(`expected ${words.join(" or ")}, got "${raw}"`);
      return value as T;
    },
    format: (value) => value,
    check: () => undefined,
  };
}

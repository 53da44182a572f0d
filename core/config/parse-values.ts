/**
 * Parsers and formatters for the value shapes that configuration is written in: durations (`500ms`,
 * `90s`, `1h30m`, `7d`), byte sizes (`5MiB`, `512KB`), integers, decimals and lists of durations. They
 * read what people type in env vars and flags, return plain numbers (milliseconds, bytes), and throw an
 * Error whose message says what was expected, so the caller can add which setting it was reading.
 */

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * Reads a duration such as `500ms`, `1s`, `1.5s`, `90s`, `2h`, `7d` or a sum such as `1h30m`, and
 * returns whole milliseconds (fractions of a millisecond are rounded). A bare number is refused, except
 * `0`, because `1000` could mean seconds or milliseconds and guessing wrong is a thousandfold error.
 */
export function parseDuration(raw: string): number {
  const text = raw.trim().toLowerCase();
  if (text === "0") return 0;
  if (text === "") throw new Error("expected a duration such as 500ms, 1s, 2h or 7d, got an empty value");
  // Each part is a decimal number followed by a unit; `ms` is listed before `m` so it wins.
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;
  let total = 0;
  let index = 0;
  while (index < text.length) {
    part.lastIndex = index;
    const match = part.exec(text);
    if (!match) {
      const hint = /^\d+(\.\d+)?$/.test(text) ? " (a unit is required: ms, s, m, h, d or w)" : "";
      throw new Error(`expected a duration such as 500ms, 1s, 2h or 7d, got "${raw}"${hint}`);
    }
    total += Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number);
    index = part.lastIndex;
  }
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) throw new Error(`duration "${raw}" is too large`);
  return ms;
}

/** Writes milliseconds back in the shortest exact form `parseDuration` reads (`90s`, `1h30m`, `0`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  let out = "";
  for (const unit of ["w", "d", "h", "m", "s", "ms"] as const) {
    const size = DURATION_UNITS_MS[unit] as number;
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return out;
}

// Both spellings are binary (1 MB = 1 MiB = 1,048,576 bytes), as in nginx and Docker settings: a cap
// that is 5 % larger than someone expected does no harm, while two meanings for one word confuse.
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * Reads a byte size such as `5MB`, `5MiB`, `512KB`, `1.5GB` or a plain byte count `1048576`, and
 * returns whole bytes (rounded down). KB/MB/GB and KiB/MiB/GiB both mean powers of 1024.
 */
export function parseSize(raw: string): number {
  const text = raw.trim().toLowerCase();
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(text);
  const factor = match ? SIZE_UNITS[match[2] === "" ? "b" : (match[2] as string)] : undefined;
  if (!match || factor === undefined) {
    throw new Error(`expected a size such as 5MB, 512KB or 1048576 (bytes), got "${raw}"`);
  }
  const bytes = Math.floor(Number(match[1]) * factor);
  if (!Number.isSafeInteger(bytes)) throw new Error(`size "${raw}" is too large`);
  return bytes;
}

/** Writes bytes in the largest binary unit that divides them exactly (`5MiB`, `1536KiB`, `100B`). */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}

/** Reads a non-negative whole number; `_` may group digits (`100_000`). */
export function parseInteger(raw: string): number {
  const text = raw.trim();
  if (!/^\d+(_\d+)*$/.test(text)) throw new Error(`expected a whole number such as 20, got "${raw}"`);
  const value = Number(text.replaceAll("_", ""));
  if (!Number.isSafeInteger(value)) throw new Error(`number "${raw}" is too large`);
  return value;
}

/** Reads a non-negative decimal number such as `10` or `2.5`. */
export function parseDecimal(raw: string): number {
  const text = raw.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) throw new Error(`expected a number such as 10 or 2.5, got "${raw}"`);
  return Number(text);
}

/** Reads a comma-separated list of durations such as `1h,6h,24h`; the list may not be empty. */
export function parseDurationList(raw: string): number[] {
  const parts = raw.split(",").map((part) => part.trim());
  if (parts.every((part) => part === "")) {
    throw new Error("expected a comma-separated list of durations such as 1h,6h,24h, got an empty value");
  }
  return parts.map((part, i) => {
    try {
      return parseDuration(part);
    } catch (error) {
      throw new Error(`item ${i + 1} of "${raw}": ${(error as Error).message}`, { cause: error });
    }
  });
}

/** Writes a list of durations in the form `parseDurationList` reads. */
export function formatDurationList(values: readonly number[]): string {
  return values.map(formatDuration).join(",");
}

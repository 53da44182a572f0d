/**
 * Reads a configuration table (field-table.ts) the same way for every process: flags over env vars over
 * the defaults. An empty env var counts as unset (compose files often write `VAR=`), an empty flag value
 * does not. Nothing is thrown here: every problem comes back as one line naming the field, where the value
 * came from and what was expected, so the caller can report them all at once and refuse to start (fatal).
 * Pure: argv and env are passed in.
 */
import type { AnyFieldRow, FieldRow } from "./field-table.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** The flags found in argv, by flag name (the last one given wins), and what was wrong with argv. */
export interface FlagsRead {
  readonly flags: Map<string, string>;
  readonly problems: string[];
  /** The arguments that are not flags (only with `positionals`), in argv order. */
  readonly positionals: string[];
  /** Everything after a lone `--` (only with `rest`), untouched. */
  readonly rest: string[];
}

/** What else a command line may hold beside the table's flags. */
export interface ArgvShape {
  /** Arguments that do not start with `--` are values of their own (`crawl URL...`), not errors. */
  readonly positionals?: boolean;
  /** A lone `--` ends the flags; what follows is handed on as is (`cluster up -- FRONTIER FLAGS`). */
  readonly rest?: boolean;
}

/**
 * Splits argv into `--flag value` / `--flag=value` pairs for the flags of `rows`. A switch's flag (kind
 * `switch`) may stand alone, meaning `true`, when no value follows it (see `standsAlone`). `unknown` words the problem for an
 * argument no row knows; `shape` says whether positional arguments and a `--` are allowed.
 */
export function readFlags(
  argv: readonly string[],
  rows: readonly AnyFieldRow[],
  unknown: (arg: string, name: string) => string = (arg) => `unknown argument "${arg}" (see --help)`,
  shape: ArgvShape = {},
): FlagsRead {
  const byFlag = new Map(rows.map((row) => [row.flag, row]));
  const flags = new Map<string, string>();
  const problems: string[] = [];
  const positionals: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--" && shape.rest) {
      for (const item of argv.slice(i + 1)) rest.push(item);
      break;
    }
    if (shape.positionals && !arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const row = byFlag.get(name);
    if (!row) {
      problems.push(unknown(arg, name));
      continue;
    }
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else if (row.kind === "switch" && standsAlone(argv[i + 1], shape)) value = "true";
    else value = argv[++i];
    if (value === undefined) problems.push(`${name} needs a value`);
    else flags.set(name, value);
  }
  return { flags, problems, positionals, rest };
}

/** Every field's value, which fields were given by flag or env var, and the problems found. */
export interface FieldsRead<C> {
  /** Complete: a field that was not given, or given a bad value, holds its default. */
  readonly values: C;
  readonly given: ReadonlySet<keyof C>;
  readonly problems: string[];
}

/** Resolves each row of a table: its flag in `flags`, else its env var in `env`, else its default. */
export function readFields<C>(rows: readonly FieldRow<C>[], flags: ReadonlyMap<string, string>, env: Env): FieldsRead<C> {
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  const problems: string[] = [];
  for (const row of rows as readonly AnyFieldRow[]) {
    values[row.field] = row.default;
    const fromFlag = flags.get(row.flag);
    const fromEnv = row.env ? env[row.env] : undefined;
    const raw = fromFlag ?? (fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : undefined);
    if (raw === undefined) {
      // A default the process works out later is undefined here; any other must pass its own check.
      const problem = row.default === undefined ? undefined : row.check(row.default);
      if (problem) problems.push(`${row.field}: ${problem}`);
      continue;
    }
    const origin = fromFlag !== undefined ? `flag ${row.flag}` : `env ${row.env}`;
    let value: unknown;
    try {
      value = row.parse(raw);
    } catch (error) {
      problems.push(`${row.field}: ${(error as Error).message} (from ${origin})`);
      continue;
    }
    const problem = row.check(value);
    if (problem) {
      problems.push(`${row.field}: ${problem} (from ${origin} = "${raw}")`);
      continue;
    }
    values[row.field] = value;
    given.add(row.field);
  }
  return { values: values as C, given: given as Set<keyof C>, problems };
}

/**
 * Whether a switch's flag stands alone (meaning `true`) rather than taking `next` as its value: at the end,
 * before another flag, and, where positional arguments are allowed, before anything that is not an on/off
 * word (`crawl --quiet https://...` is a switch and a seed).
 */
function standsAlone(next: string | undefined, shape: ArgvShape): boolean {
  if (next === undefined || next.startsWith("--")) return true;
  return shape.positionals === true && !["1", "0", "true", "false", "yes", "no", "on", "off"].includes(next.trim().toLowerCase());
}

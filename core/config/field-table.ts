/**
 * A configuration table: the settings of one process as rows (field, flag, env var, default, description
 * and value kind), typed against the config interface they fill, so a field without a row, or a row of the
 * wrong kind, fails to compile. The crawl policy (policy-defaults.ts) and every role's own settings are
 * such tables; read-fields.ts reads them from argv and env, and `usageLine` / `defaultText` print them for
 * `--help` and docs/configuration.md.
 */
import type { ValueKind } from "./field-kinds.ts";

/** One row of a table, without its field name. */
export interface FieldSpec<T> extends ValueKind<T> {
  readonly default: T;
  /** Environment variable, e.g. `CRAWL_MIN_GAP`; empty for a flag that only makes sense per call (`--json`). */
  readonly env: string;
  /** CLI flag, e.g. `--min-gap`. */
  readonly flag: string;
  readonly description: string;
  /** Help text for a default the process works out at start-up (`fetch-<random>`); else `format(default)`. */
  readonly defaultText?: string;
}

/** A whole table: one row per field of `C`. */
export type FieldSpecs<C> = { readonly [K in keyof C]: FieldSpec<C[K]> };

/** One row of the table of `C`, with its field name. */
export type FieldRow<C> = { [K in keyof C]: FieldSpec<C[K]> & { readonly field: K } }[keyof C];

/** A row of any table, as code that reads every table alike sees it. */
export type AnyFieldRow = FieldSpec<unknown> & { readonly field: string };

/** The rows of `specs` in their written order (help order), frozen; list defaults are frozen too. */
export function tableRows<C>(specs: FieldSpecs<C>): readonly FieldRow<C>[] {
  const rows = (Object.keys(specs) as Array<keyof C>).map((field) => {
    const spec = specs[field];
    const value = Array.isArray(spec.default) ? Object.freeze([...spec.default]) : spec.default;
    return Object.freeze({ ...spec, default: value, field });
  });
  return Object.freeze(rows as unknown as FieldRow<C>[]);
}

/** The default as help text shows it; an empty string is written `""`. */
export function defaultText(row: AnyFieldRow): string {
  return row.defaultText ?? (row.format(row.default) || '""');
}

/** One `--help` line: flag and placeholder (none for a switch), description, default and env var. */
export function usageLine(row: AnyFieldRow, placeholder = "VALUE", width = 32): string {
  const flag = placeholder === "" ? row.flag : `${row.flag} ${placeholder}`;
  return `  ${flag.padEnd(width)} ${row.description} (default ${defaultText(row)}${row.env ? `; env ${row.env}` : ""})`;
}

/** The placeholder `--help` shows after a flag: its kind in capitals (`DURATION`, `HOST:PORT`), none for a switch. */
export function placeholderOf(row: AnyFieldRow): string {
  return row.kind === "switch" ? "" : row.kind.toUpperCase();
}

/** A titled group of rows in a usage text. */
export interface UsageSection {
  readonly title: string;
  readonly rows: readonly AnyFieldRow[];
}

/**
 * A whole `--help` text: the synopsis lines, a paragraph on what the process does, then each section's
 * rows, one `usageLine` each, their descriptions aligned across sections.
 */
export function usageText(synopsis: readonly string[], about: readonly string[], sections: readonly UsageSection[]): string {
  const width = Math.max(0, ...sections.flatMap((s) => s.rows.map((row) => `${row.flag} ${placeholderOf(row)}`.length)));
  const lines = [...synopsis, "", ...about];
  for (const section of sections)
    lines.push("", `${section.title}:`, ...section.rows.map((row) => usageLine(row, placeholderOf(row), width)));
  return `${lines.join("\n")}\n`;
}

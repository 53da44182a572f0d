/**
 * Small pieces the store's tables share: the one-row count, the URL kind as stored, and the multi-row
 * INSERT statements prepared once per row count. Each statement run has a fixed cost (binding, stepping,
 * the crossing into SQLite) that was most of an admitted link's, so rows are written up to ROWS_PER_INSERT
 * at a time.
 */
import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";
import type { UrlKind } from "../../../core/model/index.ts";

/** A `COUNT(*) AS n` (or `MAX(...) AS n`) row. */
export interface Count {
  n: number;
}

/** The `n` of a one-row count query. */
export function countOf<P extends SQLQueryBindings[]>(statement: Statement<Count, P>, ...params: P): number {
  return statement.get(...params)?.n ?? 0;
}

/** The stored kind (0 page, 1 media: no bytes on disk either way) read back as the model's name. */
export const KIND_NAME = "CASE kind WHEN 1 THEN 'media' ELSE 'page' END AS kind";

/** A URL kind as stored. */
export function kindCode(kind: UrlKind | undefined): 0 | 1 {
  return kind === "media" ? 1 : 0;
}

/** Rows per multi-row INSERT (8 parameters each at most, well under SQLite's limit on parameters). */
export const ROWS_PER_INSERT = 64;

/** `INSERT ... VALUES row, row, ...` statements by row count, each prepared on first use. */
export class MultiRowInsert {
  private readonly byCount = new Map<number, Statement>();

  constructor(
    private readonly db: Database,
    /** The statement up to `VALUES `. */
    private readonly into: string,
    /** One row's placeholders, `(?, ?)`. */
    private readonly row: string,
  ) {}

  /** The statement for `n` rows. */
  of(n: number): Statement {
    let statement = this.byCount.get(n);
    if (!statement) {
      statement = this.db.prepare(this.into + Array.from({ length: n }, () => this.row).join(", "));
      this.byCount.set(n, statement);
    }
    return statement;
  }
}

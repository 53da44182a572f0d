/**
 * The metrics deploy/grafana/crawler.json queries, and the metrics a process exports, for the test that
 * holds the board to what the processes really serve: every plain metric name in a query must be exported,
 * and every `{__name__=~"..."}` matcher must match an exported name.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const BOARD_PATH = resolve(import.meta.dir, "../../deploy/grafana/crawler.json");

export interface BoardQuery {
  panel: string;
  expr: string;
}

export function boardQueries(path = BOARD_PATH): BoardQuery[] {
  const board = JSON.parse(readFileSync(path, "utf8")) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
  return board.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

/** The metric names and name patterns one PromQL expression selects. */
export function selectors(expr: string): { names: string[]; patterns: RegExp[] } {
  const patterns: RegExp[] = [];
  const rest = expr.replace(/__name__=~"([^"]+)"/g, (_m, re: string) => {
    patterns.push(new RegExp(`^(?:${re})$`));
    return "";
  });
  const names = [...new Set(rest.match(/\bcrawler_[a-z0-9_]+\b/g) ?? [])];
  return { names, patterns };
}

/** Metric names (series names: `_bucket`, `_sum`, `_count` included) in Prometheus text. */
export function exportedNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (m) out.add(m[1]!);
  }
  return out;
}

/** What the board queries and `exported` lacks, as `panel: name or pattern` lines. */
export function missingFromBoard(exported: ReadonlySet<string>, queries = boardQueries()): string[] {
  const missing: string[] = [];
  for (const { panel, expr } of queries) {
    const { names, patterns } = selectors(expr);
    for (const n of names) if (!exported.has(n)) missing.push(`${panel}: ${n}`);
    for (const p of patterns) if (![...exported].some((n) => p.test(n))) missing.push(`${panel}: ${p.source}`);
  }
  return missing;
}

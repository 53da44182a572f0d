/**
 * Human-readable output of the cluster commands: aligned tables, ages, and JSON that survives 64-bit
 * counters (protobuf int64 arrives as bigint; JSON output turns it into a number when it is exact).
 */
import { maxOf } from "../../core/stats/index.ts";
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, c) => maxOf(cells.map((r) => (r[c] ?? "").length)));
  return `${cells
    .map((r) =>
      r
        .map((v, c) => (c === r.length - 1 ? v : v.padEnd(widths[c]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v), 2)}\n`;
}

/** "3s ago", "2m ago", "never" for a past epoch-ms time. */
export function ago(atMs: number | bigint, now: number): string {
  const at = Number(atMs);
  if (!at) return "never";
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  return `${Math.round(s / 3600)}h ago`;
}

/** "in 3s", "now", for a future epoch-ms time. */
export function until(atMs: number | bigint, now: number): string {
  const at = Number(atMs);
  if (!at || at <= now) return "now";
  const s = Math.round((at - now) / 1000);
  return s < 120 ? `in ${s}s` : s < 7200 ? `in ${Math.round(s / 60)}m` : `in ${Math.round(s / 3600)}h`;
}

/** Compact partition list: 0-3,7,9-12. */
export function ranges(ps: readonly number[]): string {
  const sorted = [...ps].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return out.join(",") || "-";
}

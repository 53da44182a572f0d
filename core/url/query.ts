/**
 * Query normalization: percent escapes normalized, tracking parameters dropped, the rest sorted by name.
 * It works on the raw query text as the WHATWG parser leaves it (`url.search`), splitting on `&` by hand:
 * `URLSearchParams` would re-encode `+`, `%20`, `:` or `/` and so change what the server is asked for.
 */
import { normalizePercentEscapes } from "./percent.ts";
import { isTrackingParam } from "./tracking-params.ts";

type Param = { name: string; text: string };

/**
 * Normalizes a query given with its leading `?` (or `""` for none) and returns it the same way: `""`
 * when nothing is left, so `?` alone and a query of only trackers both disappear. Empty pieces (`a&&b`,
 * a trailing `&`) are dropped, as every query parser skips them; a parameter without `=` is kept as
 * written; equal names keep their relative order.
 */
export function normalizeQuery(search: string): string {
  if (search.length <= 1) return "";
  const raw = search.slice(1);
  // Decoding only unreserved characters never creates an `&` or `=`, so it is safe before splitting.
  const query = raw.indexOf("%") === -1 ? raw : normalizePercentEscapes(raw);
  const pieces = query.split("&");
  const kept: Param[] = [];
  let sorted = true;
  for (const text of pieces) {
    if (text === "") continue;
    const eq = text.indexOf("=");
    const name = eq === -1 ? text : text.slice(0, eq);
    if (isTrackingParam(name)) continue;
    const previous = kept[kept.length - 1];
    if (previous !== undefined && name < previous.name) sorted = false;
    kept.push({ name, text });
  }
  if (kept.length === 0) return "";
  // Array.prototype.sort is stable (ES2019), which keeps the values of a repeated name in order.
  if (!sorted) kept.sort(byName);
  let out = "?" + kept[0]!.text;
  for (let i = 1; i < kept.length; i++) out += "&" + kept[i]!.text;
  return out;
}

/** Plain code-unit order of the names, which is what `<` on strings compares. */
function byName(a: Param, b: Param): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The value kinds of the scope and filter settings of the crawl policy (host lists are address-kinds.ts'
 * `hostListKind`, shared with `--deny-hosts`): URL pattern lists (separated by blanks, since a
 * pattern never holds one and a regular expression may hold commas), and the extension deny-list, where a
 * leading `+` adds to the default list instead of replacing it (`+pdf,docx`). Entries are checked and
 * kept in canonical form by core/scope's own parsers, so the table holds exactly what the filter applies.
 */
import { canonicalExtension, checkUrlPattern } from "../scope/index.ts";
import { formatRenderRule, parseRenderRule } from "../render/index.ts";
import type { ValueKind } from "./field-kinds.ts";

function listKind(
  kind: string,
  split: (raw: string) => string[],
  canonical: (entry: string) => string,
  join: string,
): ValueKind<readonly string[]> {
  return {
    kind,
    parse: (raw) => split(raw).map(canonical),
    format: (values) => values.join(join),
    check(values) {
      for (const value of values) {
        try {
          canonical(value);
        } catch (error) {
          return (error as Error).message;
        }
      }
      return undefined;
    },
  };
}

const byComma = (raw: string) =>
  raw
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");

/** URL patterns (globs, or `re:` regular expressions), separated by blanks. The empty list is allowed. */
export function urlPatternListKind(): ValueKind<readonly string[]> {
  return listKind(
    "patterns",
    (raw) => raw.split(/\s+/).filter((e) => e !== ""),
    (entry) => {
      checkUrlPattern(entry);
      return entry;
    },
    " ",
  );
}

/** File extensions, comma-separated; `+a,b` means the defaults and these. The empty list is allowed. */
export function extensionListKind(defaults: readonly string[]): ValueKind<readonly string[]> {
  const base = listKind("extensions", byComma, canonicalExtension, ",");
  return {
    ...base,
    parse(raw) {
      const trimmed = raw.trim();
      if (!trimmed.startsWith("+")) return base.parse(trimmed);
      return [...new Set([...defaults, ...base.parse(trimmed.slice(1))])];
    },
  };
}

/** Render rules (`always:example.com never:https://example.com/static/*`), separated by blanks. */
export function renderRuleListKind(): ValueKind<readonly string[]> {
  return listKind(
    "rules",
    (raw) => raw.split(/\s+/).filter((e) => e !== ""),
    (entry) => formatRenderRule(parseRenderRule(entry)),
    " ",
  );
}

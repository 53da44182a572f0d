/**
 * The scope file (`--scope-file FILE`): the allow and deny lists, one entry per line, for lists too long
 * or too awkward for a flag (regular expressions with commas, thousands of hosts). Each line is a key and
 * a value; blank lines and lines starting with `#` are ignored:
 *
 *   allow-host      example.com            (as --allow-hosts)
 *   deny-host       ads.example.com        (as --deny-hosts)
 *   allow-url       https://example.com/docs/*
 *   deny-url        re:[?&]sessionid=      (as --deny-urls; a regex may hold spaces and commas here)
 *   deny-extension  pdf                    (added to --deny-extensions)
 *   render-host     always app.example.com (a --render-rules host rule: MODE then host)
 *   render-url      never https://example.com/static/*   (a --render-rules URL rule: MODE then pattern)
 *
 * Entries add to what the flags and env vars give. Every bad line is reported with its number, all at once.
 */
import { canonicalExtension } from "./extensions.ts";
import { parseHostSuffix } from "../net/index.ts";
import { checkUrlPattern } from "./url-patterns.ts";

export interface ScopeFileLists {
  allowHosts: string[];
  denyHosts: string[];
  allowUrls: string[];
  denyUrls: string[];
  denyExtensions: string[];
  /** Render rules in --render-rules form (`always:app.example.com`). */
  renderRules: string[];
}

const KEYS: Record<string, { list: keyof ScopeFileLists; canonical: (value: string) => string }> = {
  "allow-host": { list: "allowHosts", canonical: parseHostSuffix },
  "deny-host": { list: "denyHosts", canonical: parseHostSuffix },
  "allow-url": { list: "allowUrls", canonical: (v) => (checkUrlPattern(v), v) },
  "deny-url": { list: "denyUrls", canonical: (v) => (checkUrlPattern(v), v) },
  "deny-extension": { list: "denyExtensions", canonical: canonicalExtension },
  "render-host": { list: "renderRules", canonical: (v) => renderRuleOf(v, "host") },
  "render-url": { list: "renderRules", canonical: (v) => renderRuleOf(v, "url") },
};

/**
 * `MODE TARGET` of a render line as a --render-rules entry (`always:app.example.com`; core/render rules.ts
 * reads it), the target checked to be of the line's kind.
 */
function renderRuleOf(value: string, kind: "host" | "url"): string {
  const m = /^(never|auto|always)\s+(.+)$/i.exec(value);
  if (!m) throw new Error(`expected "<never|auto|always> <${kind === "host" ? "host" : "URL pattern"}>", got "${value}"`);
  const target = m[2]!.trim();
  const isPattern = target.includes("://") || target.startsWith("re:");
  if (kind === "url" && !isPattern) throw new Error(`"${target}" is not a URL pattern (write https://example.com/app/* or re:...)`);
  if (kind === "url") checkUrlPattern(target);
  return `${m[1]!.toLowerCase()}:${kind === "url" ? target : parseHostSuffix(target)}`;
}

/** The file's problems, one line each (`scope.txt:3: ...`). */
export class ScopeFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ScopeFileError";
  }
}

/** Reads a scope file's text; throws ScopeFileError naming every bad line. */
export function parseScopeFile(text: string, name: string): ScopeFileLists {
  const lists: ScopeFileLists = { allowHosts: [], denyHosts: [], allowUrls: [], denyUrls: [], denyExtensions: [], renderRules: [] };
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^(\S+)\s+(.+)$/.exec(line);
    const key = m?.[1]?.toLowerCase();
    const spec = key === undefined ? undefined : KEYS[key];
    if (!m || !spec) {
      problems.push(`${name}:${i + 1}: expected "<${Object.keys(KEYS).join("|")}> <value>", got "${line}"`);
      return;
    }
    try {
      lists[spec.list].push(spec.canonical(m[2]!.trim()));
    } catch (error) {
      problems.push(`${name}:${i + 1}: ${(error as Error).message}`);
    }
  });
  if (problems.length > 0) throw new ScopeFileError(problems);
  return lists;
}

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
}

const KEYS: Record<string, { list: keyof ScopeFileLists; canonical: (value: string) => string }> = {
  "allow-host": { list: "allowHosts", canonical: parseHostSuffix },
  "deny-host": { list: "denyHosts", canonical: parseHostSuffix },
  "allow-url": { list: "allowUrls", canonical: (v) => (checkUrlPattern(v), v) },
  "deny-url": { list: "denyUrls", canonical: (v) => (checkUrlPattern(v), v) },
  "deny-extension": { list: "denyExtensions", canonical: canonicalExtension },
};

/** The file's problems, one line each (`scope.txt:3: ...`). */
export class ScopeFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ScopeFileError";
  }
}

/** Reads a scope file's text; throws ScopeFileError naming every bad line. */
export function parseScopeFile(text: string, name: string): ScopeFileLists {
  const lists: ScopeFileLists = { allowHosts: [], denyHosts: [], allowUrls: [], denyUrls: [], denyExtensions: [] };
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

/**
 * URL patterns (`--allow-urls`, `--deny-urls`): each is matched against the whole normalized URL
 * (`http://example.com/a?b=1`). A pattern is a glob, where `*` stands for any run of characters (`/`
 * included) and `?` for one character, and must match the whole URL; or, written `re:` then a JavaScript
 * regular expression, it matches when the expression finds a match anywhere in the URL (anchor it with `^`
 * and `$` to match the whole). The globs of a list are compiled into one regular expression, so a list
 * costs about one match per URL whatever its length.
 */

const REGEX_PREFIX = "re:";

/** Throws with a readable message when `pattern` is not a valid pattern. */
export function checkUrlPattern(pattern: string): void {
  if (pattern === "") throw new Error("an empty URL pattern matches nothing");
  if (pattern.startsWith(REGEX_PREFIX)) {
    try {
      new RegExp(pattern.slice(REGEX_PREFIX.length));
    } catch (error) {
      throw new Error(`"${pattern}" is not a valid regular expression: ${(error as Error).message}`);
    }
  }
}

/** The regular expression source of a glob, anchored at both ends. */
function globSource(glob: string): string {
  let out = "";
  for (const ch of glob) {
    if (ch === "*") out += ".*";
    else if (ch === "?") out += ".";
    else out += ch.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  return out;
}

export class UrlPatterns {
  private readonly globs: RegExp | undefined;
  private readonly regexes: ReadonlyArray<{ pattern: string; re: RegExp }>;
  readonly size: number;

  constructor(private readonly patterns: readonly string[]) {
    for (const p of patterns) checkUrlPattern(p);
    const globs = patterns.filter((p) => !p.startsWith(REGEX_PREFIX));
    this.globs = globs.length > 0 ? new RegExp(`^(?:${globs.map(globSource).join("|")})$`, "s") : undefined;
    this.regexes = patterns.filter((p) => p.startsWith(REGEX_PREFIX)).map((p) => ({ pattern: p, re: new RegExp(p.slice(3)) }));
    this.size = patterns.length;
  }

  /** Whether any pattern matches the URL. */
  test(url: string): boolean {
    if (this.globs?.test(url)) return true;
    for (const { re } of this.regexes) if (re.test(url)) return true;
    return false;
  }

  /** The first pattern (in list order) that matches the URL, for explanations; undefined when none does. */
  which(url: string): string | undefined {
    for (const p of this.patterns) {
      const re = p.startsWith(REGEX_PREFIX) ? new RegExp(p.slice(3)) : new RegExp(`^(?:${globSource(p)})$`, "s");
      if (re.test(url)) return p;
    }
    return undefined;
  }
}

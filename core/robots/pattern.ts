/**
 * Compiles one percent-normalized robots.txt path pattern into a matcher (RFC 9309 section 2.2.3).
 * A pattern matches a path when the path starts with it; `*` stands for any run of octets and a
 * trailing `$` anchors the match at the end of the path. Patterns are classified once, so the common
 * cases cost one native string call: a literal prefix (`startsWith`), an anchored literal (`===`).
 * Wildcard patterns are split at `*` and matched segment by segment with leftmost `indexOf`, which is
 * exact for this pattern language (taking the earliest place for each segment never loses a match) and
 * linear in the number of segments, so a pattern full of `*` cannot trigger backtracking blow-ups.
 */

// Pattern kinds (plain numbers rather than an enum: nothing to transpile, one monomorphic field).
/** No `*`, no `$`: the path starts with the literal. */
const PREFIX = 0;
/** No `*`, anchored: the path equals the literal. */
const EXACT = 1;
/** Contains `*`: segments in order, the first at the start, the last at the end when anchored. */
const WILDCARD = 2;
/** Matches every path (`*`, `**`, `*$`). */
const EVERYTHING = 3;
type Kind = typeof PREFIX | typeof EXACT | typeof WILDCARD | typeof EVERYTHING;

export class PatternMatcher {
  private readonly kind: Kind;
  private readonly first: string;
  private readonly middles: readonly string[];
  private readonly last: string;
  private readonly anchored: boolean;

  /** `pattern` is in the canonical form made by the parser: literal `*`/`$` already escaped. */
  constructor(pattern: string) {
    this.anchored = pattern.endsWith("$");
    const body = this.anchored ? pattern.slice(0, -1) : pattern;
    const parts = body.split("*");
    this.first = parts[0] ?? "";
    if (parts.length === 1) {
      this.kind = this.anchored ? EXACT : PREFIX;
      this.middles = [];
      this.last = "";
      return;
    }
    // Empty segments come from `**` or a leading/trailing `*`: they constrain nothing.
    if (this.anchored) {
      this.last = parts[parts.length - 1] ?? "";
      this.middles = parts.slice(1, -1).filter((p) => p.length > 0);
    } else {
      this.last = "";
      this.middles = parts.slice(1).filter((p) => p.length > 0);
    }
    const trivial = this.first === "" && this.middles.length === 0 && this.last === "";
    this.kind = trivial ? EVERYTHING : WILDCARD;
  }

  matches(path: string): boolean {
    switch (this.kind) {
      case PREFIX:
        return path.startsWith(this.first);
      case EXACT:
        return path === this.first;
      case EVERYTHING:
        return true;
      case WILDCARD:
        return this.matchWildcard(path);
    }
  }

  private matchWildcard(path: string): boolean {
    if (!path.startsWith(this.first)) return false;
    let pos = this.first.length;
    const middles = this.middles;
    for (let i = 0; i < middles.length; i++) {
      const seg = middles[i] as string;
      const at = path.indexOf(seg, pos);
      if (at < 0) return false;
      pos = at + seg.length;
    }
    if (!this.anchored) return true;
    return path.length - this.last.length >= pos && path.endsWith(this.last);
  }
}

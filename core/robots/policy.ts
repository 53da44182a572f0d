/**
 * Turns parsed robots.txt rules into the decision for one crawler (RFC 9309 section 2.2). The groups
 * naming the crawler's product token are merged; only when there is none do the `*` groups apply, and
 * with neither every path is allowed. A named group with no rules therefore allows everything, even if
 * the `*` group disallows. Among the matching rules the longest pattern (in octets of its normalized
 * form, `*` and `$` counted) wins, and `Allow` wins a tie; no matching rule means allowed, and
 * `/robots.txt` itself is always allowed (section 2.2.2).
 *
 * `policyFor` does the selection and compiles the patterns once; keep the policy for a host and call
 * it per URL. The rules are pre-sorted by priority so a check stops at the first matching rule.
 */
import { normalizeUrlPath, pathAndQueryOf } from "./normalize.ts";
import { productToken, type RobotsRule, type RobotsRules } from "./parse.ts";
import { PatternMatcher } from "./pattern.ts";

export interface RobotsDecision {
  readonly allowed: boolean;
  /** The rule that decided, or undefined when none matched (or the path is `/robots.txt`). */
  readonly rule?: RobotsRule;
}

export interface RobotsPolicy {
  /**
   * True when the crawler may fetch the path (with its query). An absolute URL is accepted too; its
   * scheme and authority are ignored and a fragment is dropped.
   */
  isAllowed(pathAndQuery: string): boolean;
  /** The same decision with the rule that made it, for explaining a verdict to a person. */
  explain(pathAndQuery: string): RobotsDecision;
  /** The Crawl-delay hint of the selected groups (the largest one), capped at 60 s; a hint, not a rule. */
  readonly crawlDelayMs?: number;
}

/**
 * The policy of one crawler. `userAgent` may be a full agent string (`MyCrawler/1.0 (+https://…)`):
 * only its product token is compared, case-insensitively. An agent string with no token gets the `*`
 * groups.
 */
export function policyFor(rules: RobotsRules, userAgent: string): RobotsPolicy {
  const token = productToken(userAgent.trim());
  let selected = token === "" ? [] : rules.groups.filter((g) => g.agents.includes(token));
  if (selected.length === 0) selected = rules.groups.filter((g) => g.agents.includes("*"));

  const merged: RobotsRule[] = [];
  let crawlDelayMs: number | undefined;
  for (const group of selected) {
    for (const item of group.rules) merged.push(item);
    if (group.crawlDelayMs !== undefined && (crawlDelayMs === undefined || group.crawlDelayMs > crawlDelayMs)) {
      crawlDelayMs = group.crawlDelayMs;
    }
  }
  return new CompiledPolicy(merged, crawlDelayMs);
}

/** One-off check; for many URLs of one host, keep `policyFor(...)` instead (it compiles the patterns). */
export function isAllowed(rules: RobotsRules, userAgent: string, url: string): boolean {
  return policyFor(rules, userAgent).isAllowed(url);
}

class CompiledPolicy implements RobotsPolicy {
  readonly crawlDelayMs?: number;
  private readonly rules: readonly RobotsRule[];
  private readonly matchers: readonly PatternMatcher[];
  /** 1 where the rule at that index is an Allow (a typed array keeps the hot loop monomorphic). */
  private readonly allows: Uint8Array;
  /** Rules past this index are all Allow: if none before it matched, the answer is "allowed" anyway. */
  private readonly decisiveCount: number;

  constructor(rules: RobotsRule[], crawlDelayMs: number | undefined) {
    if (crawlDelayMs !== undefined) this.crawlDelayMs = crawlDelayMs;
    // Longest first, Allow before Disallow at equal length; sort is stable, so file order breaks the rest.
    const sorted = rules.slice().sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow));
    this.rules = sorted;
    this.matchers = sorted.map((r) => new PatternMatcher(r.pattern));
    this.allows = Uint8Array.from(sorted, (r) => (r.allow ? 1 : 0));
    let lastDisallow = -1;
    sorted.forEach((r, i) => {
      if (!r.allow) lastDisallow = i;
    });
    this.decisiveCount = lastDisallow + 1;
  }

  isAllowed(pathAndQuery: string): boolean {
    if (this.decisiveCount === 0) return true;
    const index = this.decide(pathAndQuery, this.decisiveCount);
    return index < 0 || this.allows[index] === 1;
  }

  explain(pathAndQuery: string): RobotsDecision {
    const index = this.decide(pathAndQuery, this.rules.length);
    const rule = index >= 0 ? this.rules[index] : undefined;
    return rule === undefined ? { allowed: true } : { allowed: rule.allow, rule };
  }

  /** Index of the deciding rule among the first `limit`, or -1 (no match, or `/robots.txt`). */
  private decide(pathAndQuery: string, limit: number): number {
    const path = normalizeUrlPath(pathAndQueryOf(pathAndQuery));
    if (isRobotsTxt(path)) return -1;
    const matchers = this.matchers;
    for (let i = 0; i < limit; i++) if ((matchers[i] as PatternMatcher).matches(path)) return i;
    return -1;
  }
}

function isRobotsTxt(path: string): boolean {
  return path.startsWith("/robots.txt") && (path.length === 11 || path.charCodeAt(11) === 0x3f);
}

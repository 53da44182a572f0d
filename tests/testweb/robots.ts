/**
 * A small, independent reading of robots.txt (RFC 9309) used as the oracle: the violation checker and the
 * expected-set BFS decide with it what a correct crawler may fetch. It is deliberately separate from the
 * crawler's own parser in `core/`, so a bug there cannot hide itself. Supported: groups selected by
 * product token (else `*`), Allow/Disallow with `*` and `$`, longest match wins, Allow wins a tie,
 * Crawl-delay (not in the RFC; the project treats it as a hint it honours). Not supported because the test
 * web never serves them: percent-encoding equivalence and files over 500 KiB.
 */
import type { RobotsPolicy } from "./types.ts";

export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

export interface RobotsGroup {
  rules: RobotsRule[];
  crawlDelaySec?: number;
}

/** The group that applies to `userAgent` (a product token such as `crawlerbot`), merged as the RFC says. */
export function parseRobots(text: string, userAgent = "*"): RobotsGroup {
  const token = userAgent.toLowerCase();
  const own: RobotsGroup = { rules: [] };
  const star: RobotsGroup = { rules: [] };
  let ownFound = false;
  let agents: string[] = [];
  let inRules = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, "").trim();
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "user-agent") {
      // A user-agent line after rules starts a new group; consecutive ones share the next rules.
      if (inRules) agents = [];
      inRules = false;
      agents.push(value.toLowerCase());
      continue;
    }
    if (key !== "allow" && key !== "disallow" && key !== "crawl-delay") continue;
    inRules = true;
    const targets: RobotsGroup[] = [];
    if (token !== "*" && agents.includes(token)) {
      targets.push(own);
      ownFound = true;
    }
    if (agents.includes("*")) targets.push(star);
    for (const g of targets) {
      if (key === "crawl-delay") {
        const n = Number(value);
        if (Number.isFinite(n) && n >= 0) g.crawlDelaySec = n;
      } else if (value !== "") {
        g.rules.push({ allow: key === "allow", pattern: value });
      }
    }
  }
  return ownFound ? own : star;
}

/** Whether `path` (path and query) may be fetched under `group`. `/robots.txt` always may. */
export function isAllowed(group: RobotsGroup, path: string): boolean {
  if (path === "/robots.txt") return true;
  let best: RobotsRule | undefined;
  for (const rule of group.rules) {
    if (!matches(rule.pattern, path)) continue;
    if (!best || rule.pattern.length > best.pattern.length) best = rule;
    else if (rule.pattern.length === best.pattern.length && rule.allow) best = rule;
  }
  return best ? best.allow : true;
}

/** RFC 9309 pattern match: a prefix match where `*` is any run of characters and a final `$` anchors. */
export function matches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith("$");
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const pieces = body.split("*");
  const first = pieces[0] ?? "";
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return anchored ? path === first : true;
  // Greedy left-to-right placement of each piece is enough for a prefix match; an anchored pattern
  // must instead place its last piece at the very end.
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] ?? "";
    const found = path.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  const last = pieces[pieces.length - 1] ?? "";
  if (!anchored) return path.indexOf(last, at) >= 0;
  return path.length - last.length >= at && path.endsWith(last);
}

/** The paths that make up fetching a policy's robots.txt. */
export function robotsPaths(policy: RobotsPolicy): readonly string[] {
  return policy.paths ?? ["/robots.txt"];
}

/** A compiled decision function for one host's policy. */
export interface RobotsVerdict {
  allowed(path: string): boolean;
  crawlDelayMs: number;
  /** True when robots.txt failed and nothing may be fetched (5xx, unreachable). */
  unavailable: boolean;
}

export function verdictFor(policy: RobotsPolicy, userAgent?: string): RobotsVerdict {
  if (policy.kind === "allow-all") return { allowed: () => true, crawlDelayMs: 0, unavailable: false };
  if (policy.kind === "disallow-all") {
    const own = new Set(robotsPaths(policy));
    return { allowed: (p) => own.has(p), crawlDelayMs: 0, unavailable: true };
  }
  const group = parseRobots(policy.text, userAgent);
  return {
    allowed: (p) => isAllowed(group, p),
    crawlDelayMs: (group.crawlDelaySec ?? 0) * 1000,
    unavailable: false,
  };
}

/**
 * Parses a robots.txt body into groups of rules (RFC 9309 section 2.1 and 2.2). The parser never fails:
 * every line is tried on its own and unparseable lines are skipped (section 2.3.1.5). What it reads:
 *
 *  - Input is handled as octets: a `Uint8Array` as is, a string as its UTF-8 encoding. Only the first
 *    {@link ROBOTS_MAX_BYTES} (512 KiB, a little above the RFC's 500 KiB floor) are read; when the
 *    body is longer, the line cut by the limit is dropped too (`truncated` is set), because half a
 *    pattern would widen a Disallow or narrow an Allow.
 *  - A UTF-8 BOM is skipped; lines end at CR, LF or CRLF; `#` starts a comment; blanks and tabs around
 *    keys and values are ignored; keys are case-insensitive and a line without a colon is ignored.
 *  - Keys, with the misspellings that are accepted because real files carry them: `user-agent`
 *    (`useragent`, `user agent`, `user_agent`), `allow`, `disallow` (`dissallow`, `dissalow`, `disalow`,
 *    `diasllow`, `disallaw`), `sitemap` (`site-map`), `crawl-delay` (`crawldelay`, `crawl delay`,
 *    `crawl_delay`). Any other key is ignored.
 *  - Groups: consecutive `user-agent` lines open one group; the group takes every `allow`/`disallow`
 *    after them until the next `user-agent` line that follows a rule. Only `allow`/`disallow` lines close
 *    the run of `user-agent` lines: `sitemap`, `crawl-delay`, unknown keys and lines without a colon are
 *    transparent (section 2.2.4: other records must not interfere with the grouping). Rules before the
 *    first `user-agent` line belong to no group and are dropped.
 *  - A `user-agent` value of `*` (alone, or followed by blanks) is the global group; any other value is
 *    reduced to its product token, the leading run of `[A-Za-z_-]`, lower-cased (`FooBot/2.1` is
 *    `foobot`). A value with no token (`/bot`, `*bot`) names no crawler.
 *  - An empty `allow`/`disallow` value adds no rule, so `Disallow:` alone disallows nothing. A rule's
 *    pattern is stored percent-normalized (see normalize.ts) with a trailing `$` kept as the anchor. A
 *    pattern that starts with neither `/` nor `*` is kept but can match no path (paths start with `/`;
 *    the RFC's grammar makes such a value unparseable, and guessing a leading `/` could over-block).
 *  - `sitemap` values are collected for the whole file (they belong to no group), in order, without
 *    duplicates. `crawl-delay` is a per-group hint in seconds (fractions allowed), capped at
 *    {@link ROBOTS_MAX_CRAWL_DELAY_MS}; a value that is not a plain non-negative number is ignored, and
 *    when a group carries several, the largest wins (the politer reading).
 */
import { bytesToOctets, isAscii, normalizeOctets, utf8Octets } from "./normalize.ts";

/** How much of a robots.txt body is parsed: 512 KiB (RFC 9309 section 2.5 requires at least 500 KiB). */
export const ROBOTS_MAX_BYTES = 512 * 1024;
/** Upper bound on a Crawl-delay hint, so a hostile file cannot park a host for hours. */
export const ROBOTS_MAX_CRAWL_DELAY_MS = 60_000;

export interface RobotsRule {
  readonly allow: boolean;
  /** Percent-normalized octets; `*` is a wildcard and a trailing `$` the end anchor. */
  readonly pattern: string;
}

export interface RobotsGroup {
  /** Lower-cased product tokens this group names; `*` for the global group. */
  readonly agents: readonly string[];
  /** In file order; possibly empty (a named agent with no rules is allowed everything). */
  readonly rules: readonly RobotsRule[];
  readonly crawlDelayMs?: number;
}

export interface RobotsRules {
  readonly groups: readonly RobotsGroup[];
  readonly sitemaps: readonly string[];
  /** True when the body was longer than {@link ROBOTS_MAX_BYTES} and its tail was not read. */
  readonly truncated: boolean;
}

type Key = "user-agent" | "allow" | "disallow" | "sitemap" | "crawl-delay";

const KEYS: ReadonlyMap<string, Key> = new Map<string, Key>([
  ["user-agent", "user-agent"],
  ["useragent", "user-agent"],
  ["user agent", "user-agent"],
  ["user_agent", "user-agent"],
  ["allow", "allow"],
  ["disallow", "disallow"],
  ["dissallow", "disallow"],
  ["dissalow", "disallow"],
  ["disalow", "disallow"],
  ["diasllow", "disallow"],
  ["disallaw", "disallow"],
  ["sitemap", "sitemap"],
  ["site-map", "sitemap"],
  ["crawl-delay", "crawl-delay"],
  ["crawldelay", "crawl-delay"],
  ["crawl delay", "crawl-delay"],
  ["crawl_delay", "crawl-delay"],
]);

interface MutableGroup {
  agents: string[];
  rules: RobotsRule[];
  crawlDelayMs?: number;
}

export function parseRobots(text: string | Uint8Array): RobotsRules {
  const { octets, truncated } = readOctets(text);
  const groups: MutableGroup[] = [];
  const sitemaps: string[] = [];
  const seenSitemaps = new Set<string>();
  let current: MutableGroup | undefined;
  // True while the lines since the last `user-agent` hold no rule: a further agent joins the group.
  let inAgentRun = false;

  let start = octets.charCodeAt(0) === 0xef && octets.startsWith("\xef\xbb\xbf") ? 3 : 0;
  const n = octets.length;
  while (start < n) {
    let end = start;
    while (end < n) {
      const c = octets.charCodeAt(end);
      if (c === 0x0a || c === 0x0d) break;
      end++;
    }
    const line = octets.slice(start, end);
    start = end + (octets.charCodeAt(end) === 0x0d && octets.charCodeAt(end + 1) === 0x0a ? 2 : 1);

    const hash = line.indexOf("#");
    const content = hash < 0 ? line : line.slice(0, hash);
    const colon = content.indexOf(":");
    if (colon < 0) continue;
    const key = KEYS.get(normalizeKey(content.slice(0, colon)));
    if (key === undefined) continue;
    const value = trimBlanks(content.slice(colon + 1));

    switch (key) {
      case "user-agent": {
        if (current === undefined || !inAgentRun) {
          current = { agents: [], rules: [] };
          groups.push(current);
          inAgentRun = true;
        }
        const agent = agentToken(value);
        if (agent !== "" && !current.agents.includes(agent)) current.agents.push(agent);
        break;
      }
      case "allow":
      case "disallow": {
        if (current === undefined) break;
        inAgentRun = false;
        if (value === "") break;
        current.rules.push({ allow: key === "allow", pattern: normalizePattern(value) });
        break;
      }
      case "crawl-delay": {
        if (current === undefined) break;
        const ms = crawlDelayMs(value);
        if (ms !== undefined && (current.crawlDelayMs === undefined || ms > current.crawlDelayMs)) {
          current.crawlDelayMs = ms;
        }
        break;
      }
      case "sitemap": {
        if (value === "") break;
        const url = octetsToText(value);
        if (!seenSitemaps.has(url)) {
          seenSitemaps.add(url);
          sitemaps.push(url);
        }
        break;
      }
    }
  }
  return { groups, sitemaps, truncated };
}

/** The Sitemap URLs of a robots.txt, in file order, without duplicates. */
export function sitemaps(rules: RobotsRules): string[] {
  return [...rules.sitemaps];
}

/**
 * The product token of a user-agent value or a crawler's agent string, lower-cased: its leading run of
 * `[A-Za-z_-]` (RFC 9309 section 2.2.1). `*` alone stands for the global group.
 */
export function productToken(value: string): string {
  let end = 0;
  while (end < value.length) {
    const c = value.charCodeAt(end);
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f;
    if (!ok) break;
    end++;
  }
  return value.slice(0, end).toLowerCase();
}

function agentToken(value: string): string {
  // `* extra words` is still the global group (Google reads it so too); `*bot` names nobody.
  if (value.charCodeAt(0) === 0x2a && (value.length === 1 || isBlank(value.charCodeAt(1)))) return "*";
  return productToken(value);
}

function normalizePattern(value: string): string {
  const anchored = value.endsWith("$");
  const body = anchored ? value.slice(0, -1) : value;
  return normalizeOctets(body, true) + (anchored ? "$" : "");
}

function crawlDelayMs(value: string): number | undefined {
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value)) return undefined;
  const ms = Math.round(Number(value) * 1000);
  return Math.min(ms, ROBOTS_MAX_CRAWL_DELAY_MS);
}

function readOctets(text: string | Uint8Array): { octets: string; truncated: boolean } {
  let octets: string;
  if (typeof text === "string") {
    // A string's own chars are octets when it is ASCII; otherwise take its UTF-8 bytes, so the byte
    // limit and the matching both count octets whatever form the body arrived in.
    const head = text.length > ROBOTS_MAX_BYTES + 1 ? text.slice(0, ROBOTS_MAX_BYTES + 1) : text;
    // Every char is at least one octet, so a cut `head` still encodes to more than the limit.
    octets = isAscii(head) ? head : utf8Octets(head);
  } else {
    octets = bytesToOctets(text.length > ROBOTS_MAX_BYTES + 1 ? text.subarray(0, ROBOTS_MAX_BYTES + 1) : text);
  }
  if (octets.length <= ROBOTS_MAX_BYTES) return { octets, truncated: false };
  // Keep whole lines only: the limit almost always falls inside a line.
  const cut = octets.slice(0, ROBOTS_MAX_BYTES);
  const lastBreak = Math.max(cut.lastIndexOf("\n"), cut.lastIndexOf("\r"));
  const boundaryIsBreak = octets.charCodeAt(ROBOTS_MAX_BYTES) === 0x0a || octets.charCodeAt(ROBOTS_MAX_BYTES) === 0x0d;
  return { octets: boundaryIsBreak ? cut : cut.slice(0, lastBreak + 1), truncated: true };
}

function normalizeKey(raw: string): string {
  return trimBlanks(raw)
    .toLowerCase()
    .replace(/[ \t]+/g, " ");
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c;
}

/** Trims ASCII blanks only: `String.trim` would also eat 0xA0, which can be the last octet of a UTF-8 char. */
function trimBlanks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isBlank(s.charCodeAt(a))) a++;
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function octetsToText(octets: string): string {
  if (isAscii(octets)) return octets;
  const bytes = new Uint8Array(octets.length);
  for (let i = 0; i < octets.length; i++) bytes[i] = octets.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

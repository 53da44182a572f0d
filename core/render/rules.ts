/**
 * Per-host and per-URL render rules (`--render-rules`, and `render-host` / `render-url` lines of the scope
 * file), each overriding `--render` for the URLs it covers. A rule is written `MODE:TARGET`, where TARGET
 * is a URL pattern when it holds `://` or starts with `re:` (core/scope url-patterns.ts syntax) and a host
 * name otherwise (the name and every name under it). A URL rule wins over a host rule, a longer host
 * name over a shorter one, and a later URL rule over an earlier one is not defined: the first URL rule in
 * list order that matches decides. Cost per URL: one walk up the host's labels (a map lookup each) and one
 * match of each URL pattern; the rules are few (operator-written).
 */
import { parseHostSuffix } from "../net/index.ts";
import { checkUrlPattern, hostnameOf, UrlPatterns } from "../scope/index.ts";
import { isRenderMode, type RenderMode } from "./mode.ts";

export interface RenderRule {
  mode: RenderMode;
  kind: "host" | "url";
  target: string;
}

/** Reads one rule (`always:example.com`, `never:https://example.com/static/*`); throws saying what is wrong. */
export function parseRenderRule(text: string): RenderRule {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(":");
  const mode = colon < 0 ? "" : trimmed.slice(0, colon).toLowerCase();
  if (!isRenderMode(mode))
    throw new Error(`"${trimmed}" is not a render rule (write always:example.com or never:https://example.com/static/*)`);
  const target = trimmed.slice(colon + 1).trim();
  if (target.includes("://") || target.startsWith("re:")) {
    checkUrlPattern(target);
    return { mode, kind: "url", target };
  }
  return { mode, kind: "host", target: parseHostSuffix(target) };
}

export function formatRenderRule(rule: RenderRule): string {
  return `${rule.mode}:${rule.target}`;
}

export class RenderRules {
  private readonly hosts = new Map<string, RenderMode>();
  private readonly urls: ReadonlyArray<{ mode: RenderMode; pattern: UrlPatterns }>;

  constructor(
    private readonly fallback: RenderMode,
    rules: readonly string[],
  ) {
    const parsed = rules.map(parseRenderRule);
    for (const r of parsed) if (r.kind === "host") this.hosts.set(r.target, r.mode);
    this.urls = parsed.filter((r) => r.kind === "url").map((r) => ({ mode: r.mode, pattern: new UrlPatterns([r.target]) }));
  }

  /** Whether any URL of any host may be rendered: false lets a process skip the browser entirely. */
  get mayRender(): boolean {
    return this.fallback !== "never" || this.urls.some((u) => u.mode !== "never") || [...this.hosts.values()].some((m) => m !== "never");
  }

  /** The mode for one normalized URL of the host key `host`. */
  modeFor(url: string, host: string): RenderMode {
    for (const { mode, pattern } of this.urls) if (pattern.test(url)) return mode;
    if (this.hosts.size > 0) {
      let name = hostnameOf(host);
      for (;;) {
        const mode = this.hosts.get(name);
        if (mode !== undefined) return mode;
        const dot = name.indexOf(".");
        if (dot < 0) break;
        name = name.slice(dot + 1);
      }
    }
    return this.fallback;
  }
}

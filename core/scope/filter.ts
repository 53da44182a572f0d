/**
 * The scope and filters every discovered URL passes before the seen-set, in `crawl` and in every frontier
 * node alike. A URL is admitted only when it passes every rule, cheapest first:
 *
 *   depth             at most `--max-depth` links from a seed (a seed has depth 0; seeds always pass)
 *   extension         its path's extension is not on `--deny-extensions` (a link; a media file a page
 *                     named, admitted with `--fetch-media`, is asked for by its kind and skips this rule)
 *   scope             `--scope host`: its host is a seed's host; `domain`: its registrable domain is a
 *                     seed's; `any`: no condition
 *   host-not-allowed  with `--allow-hosts`, its host is one of them or under one
 *   url-denied        it matches no `--deny-urls` pattern
 *   url-not-allowed   with `--allow-urls`, it matches one of them
 *
 * The host deny-list is the address policy's `--deny-hosts`, checked before these (core/net). A rejection
 * names its rule, counted as `admission.rejected.<rule>`, and `explain` says why in words.
 */
import type { PolicyConfig } from "../config/index.ts";
import type { UrlKind } from "../model/index.ts";
import { extensionOf } from "./extensions.ts";
import { HostNameSet } from "./host-names.ts";
import { ScopeRoots } from "./roots.ts";
import { UrlPatterns } from "./url-patterns.ts";

export type ScopeMode = "host" | "domain" | "any";

export type ScopeReason = "depth" | "extension" | "scope" | "host-not-allowed" | "url-denied" | "url-not-allowed";

/** The policy fields the filter reads. */
export type ScopeSettings = Pick<PolicyConfig, "scope" | "maxDepth" | "allowHosts" | "allowUrls" | "denyUrls" | "denyExtensions">;

/** What the filter judges of a URL. */
export interface ScopeCandidate {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Its host key. */
  readonly host: string;
  /** Links from a seed. */
  readonly depth: number;
  readonly isSeed?: boolean;
  /** "media": a media file a page named (--fetch-media); absent: a page. */
  readonly kind?: UrlKind;
}

export interface ScopeRejection {
  readonly reason: ScopeReason;
  /** What the rule found, for `url explain`. */
  readonly detail: string;
}

/** The counter a rejection is counted under. */
export function scopeCounterName(reason: ScopeReason): string {
  return `admission.rejected.${reason}`;
}

export class ScopeFilter {
  private readonly mode: ScopeMode;
  private readonly maxDepth: number;
  private readonly extensions: ReadonlySet<string>;
  private readonly allowHosts: HostNameSet;
  private readonly allowUrls: UrlPatterns;
  private readonly denyUrls: UrlPatterns;

  constructor(
    settings: ScopeSettings,
    readonly roots: ScopeRoots = new ScopeRoots(),
  ) {
    this.mode = settings.scope;
    this.maxDepth = settings.maxDepth;
    this.extensions = new Set(settings.denyExtensions);
    this.allowHosts = new HostNameSet(settings.allowHosts);
    this.allowUrls = new UrlPatterns(settings.allowUrls);
    this.denyUrls = new UrlPatterns(settings.denyUrls);
  }

  /** The first rule the URL breaks, or undefined when it passes them all. On the path of every link. */
  reject(u: ScopeCandidate): ScopeReason | undefined {
    if (!u.isSeed && u.depth > this.maxDepth) return "depth";
    if (this.extensions.size > 0 && u.kind !== "media") {
      const ext = extensionOf(u.url);
      if (ext !== undefined && this.extensions.has(ext)) return "extension";
    }
    if (!u.isSeed && !this.inScope(u.host)) return "scope";
    if (this.allowHosts.size > 0 && this.allowHosts.match(u.host) === undefined) return "host-not-allowed";
    if (this.denyUrls.size > 0 && this.denyUrls.test(u.url)) return "url-denied";
    if (this.allowUrls.size > 0 && !this.allowUrls.test(u.url)) return "url-not-allowed";
    return undefined;
  }

  /** `reject` with the reason in words: which limit, extension, host or pattern decided. */
  explain(u: ScopeCandidate): ScopeRejection | undefined {
    const reason = this.reject(u);
    if (reason === undefined) return undefined;
    return { reason, detail: this.describe(reason, u) };
  }

  private inScope(host: string): boolean {
    if (this.mode === "any") return true;
    return this.mode === "host" ? this.roots.hasHost(host) : this.roots.hasDomainOf(host);
  }

  private describe(reason: ScopeReason, u: ScopeCandidate): string {
    switch (reason) {
      case "depth":
        return `depth ${u.depth} is beyond --max-depth ${this.maxDepth}`;
      case "extension":
        return `.${extensionOf(u.url)} is on the extension deny-list`;
      case "scope":
        return this.mode === "host"
          ? `host ${u.host} is not the host of a seed (--scope host)`
          : `domain ${this.roots.domainOfHost(u.host)} is not the domain of a seed (--scope domain)`;
      case "host-not-allowed":
        return `host ${u.host} is not under any --allow-hosts entry`;
      case "url-denied":
        return `matches the --deny-urls pattern ${this.denyUrls.which(u.url)}`;
      case "url-not-allowed":
        return "matches no --allow-urls pattern";
    }
  }
}

/**
 * Scope and filters: which discovered URLs a crawl may queue at all, judged in the frontier before the
 * seen-set, the same way in `crawl` and in every frontier node. `ScopeFilter` applies the rules (depth,
 * extension, scope, host allow-list, URL patterns); `ScopeRoots` holds the seeds' hosts and registrable
 * domains that `--scope host|domain` compares with; `parseScopeFile` reads `--scope-file`. Pure: no I/O.
 */
export { DomainMemo, hostnameOf, registrableDomain } from "./domain.ts";
export { canonicalExtension, DEFAULT_DENIED_EXTENSIONS, extensionOf } from "./extensions.ts";
export {
  ScopeFilter,
  scopeCounterName,
  type ScopeCandidate,
  type ScopeMode,
  type ScopeReason,
  type ScopeRejection,
  type ScopeSettings,
} from "./filter.ts";
export { HostNameSet } from "./host-names.ts";
export { ScopeRoots } from "./roots.ts";
export { parseScopeFile, ScopeFileError, type ScopeFileLists } from "./scope-file.ts";
export { checkUrlPattern, UrlPatterns } from "./url-patterns.ts";

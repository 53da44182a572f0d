/**
 * `--scope-file`: its entries (core/scope's parser) added to the policy's lists: allow-host to
 * `allowHosts`, deny-host to the address policy's `denyHosts`, allow-url and deny-url to the URL pattern
 * lists, deny-extension to `denyExtensions`, render-host and render-url to `renderRules`. The file is read through `read` (the process's own file
 * access; core does no I/O); a file that cannot be read or holds a bad line is a ScopeFileConfigError
 * naming each problem, so the process exits 2 before it crawls anything.
 */
import { parseScopeFile, ScopeFileError } from "../scope/index.ts";
import { ConfigError } from "./config-error.ts";
import type { PolicyConfig } from "./policy-defaults.ts";

/** The scope file cannot be used (fatal): fix the listed lines. */
export class ScopeFileConfigError extends ConfigError.titled("invalid --scope-file") {}

const merged = (a: readonly string[], b: readonly string[]) => Object.freeze([...new Set([...a, ...b])]);

/** The policy with the scope file's entries added; the policy itself when it names no file. */
export function applyScopeFile(policy: PolicyConfig, read: (path: string) => string): PolicyConfig {
  if (policy.scopeFile === "") return policy;
  let text: string;
  try {
    text = read(policy.scopeFile);
  } catch (error) {
    throw new ScopeFileConfigError([`cannot read ${policy.scopeFile}: ${(error as Error).message}`]);
  }
  try {
    const lists = parseScopeFile(text, policy.scopeFile);
    return Object.freeze({
      ...policy,
      allowHosts: merged(policy.allowHosts, lists.allowHosts),
      denyHosts: merged(policy.denyHosts, lists.denyHosts),
      allowUrls: merged(policy.allowUrls, lists.allowUrls),
      denyUrls: merged(policy.denyUrls, lists.denyUrls),
      denyExtensions: merged(policy.denyExtensions, lists.denyExtensions),
      renderRules: merged(policy.renderRules, lists.renderRules),
    });
  } catch (error) {
    if (error instanceof ScopeFileError) throw new ScopeFileConfigError(error.problems);
    throw error;
  }
}

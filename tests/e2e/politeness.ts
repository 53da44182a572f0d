/**
 * Every end-to-end crawl is judged for politeness, whatever else its test checks: the harnesses note the
 * gap rule each crawl was told (its `--min-gap` and `--gap-fetch-multiplier`, else the policy defaults),
 * and after the test they run the test web's strict checker (no tolerance, robots.txt counted as a
 * request) over the web's whole log, shutdown included, and fail the test on any violation. A web crawled
 * by several runs with different rules is judged by the loosest of them.
 */
import { DEFAULT_POLICY, parseDecimal, parseDuration } from "../../core/config/index.ts";
import type { TestWeb } from "../testweb/index.ts";

/** The part of the policy the checker needs: gap >= max(minGapMs, gapMultiplier x fetch time). */
export interface GapPolicy {
  minGapMs: number;
  gapMultiplier: number;
}

/** The gap rule a role was started with, read from its flags (`--flag value` or `--flag=value`). */
export function gapPolicyOf(args: readonly string[]): GapPolicy {
  const flag = (name: string): string | undefined => {
    let value: string | undefined;
    args.forEach((a, i) => {
      if (a === name) value = args[i + 1];
      else if (a.startsWith(`${name}=`)) value = a.slice(name.length + 1);
    });
    return value;
  };
  const minGap = flag("--min-gap");
  const multiplier = flag("--gap-fetch-multiplier");
  return {
    minGapMs: minGap === undefined ? DEFAULT_POLICY.minGapMs : parseDuration(minGap),
    gapMultiplier: multiplier === undefined ? DEFAULT_POLICY.gapFetchMultiplier : parseDecimal(multiplier),
  };
}

/**
 * Throws, listing every violation, when `web`'s log breaks the loosest of `policies`; does nothing when
 * no crawl was pointed at it.
 */
export function assertPolite(web: TestWeb, policies: readonly GapPolicy[]): void {
  if (policies.length === 0) return;
  const policy = {
    minGapMs: Math.min(...policies.map((p) => p.minGapMs)),
    gapMultiplier: Math.min(...policies.map((p) => p.gapMultiplier)),
  };
  const found = web.violations(policy);
  if (found.length === 0) return;
  const shown = found.slice(0, 20).map((v) => `  ${v.message}`);
  throw new Error(
    `the crawl was impolite (${found.length} violation(s) of min gap ${policy.minGapMs} ms, multiplier ${policy.gapMultiplier}, ` +
      `in ${web.requests.length} requests):\n${shown.join("\n")}${found.length > shown.length ? "\n  ..." : ""}`,
  );
}

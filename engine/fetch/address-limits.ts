/**
 * The limits of the cap per server address (core/ports AddressGate) from the policy, one way for `crawl` and
 * the fetch nodes. The gap gets the margin every per-host wait gets (--gap-margin): a pass reaches its
 * request a little after the gate gave it, by an amount that differs between requests (between fetch nodes
 * most of all), so without it two requests could reach a server a fraction of a millisecond closer than
 * the gap.
 *
 * With `--politeness-key ip` the address is the politeness key (core/politeness/politeness-key.ts): one
 * request at a time to it, and the gap the larger of --address-gap and --min-gap, counted from the end of
 * one response to the start of the next (the fetch path leaves the pass at the end: addressGapFromEnd).
 * The frontier still keeps each host's own gap (with its Crawl-delay and 10 x fetch time) above it.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { AddressGateLimits } from "../../core/ports/index.ts";

export function addressGateLimits(
  policy: Pick<PolicyConfig, "maxPerAddress" | "addressGapMs" | "gapMarginMs" | "politenessKey" | "minGapMs">,
): AddressGateLimits {
  if (policy.politenessKey === "ip") {
    return { maxInFlight: 1, gapMs: Math.ceil(Math.max(policy.addressGapMs, policy.minGapMs) + policy.gapMarginMs) };
  }
  const gapMs = policy.addressGapMs > 0 ? Math.ceil(policy.addressGapMs + policy.gapMarginMs) : 0;
  return { maxInFlight: policy.maxPerAddress, gapMs };
}

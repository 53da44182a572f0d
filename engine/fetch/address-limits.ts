/**
 * The limits of the cap per server address (core/ports AddressGate) from the policy, one way for `crawl` and
 * the fetch nodes. The gap gets the margin every per-host wait gets (--gap-margin): a pass reaches its
 * request a little after the gate gave it, by an amount that differs between requests (between fetch nodes
 * most of all), so without it two requests could reach a server a fraction of a millisecond closer than
 * the gap.
 */
import type { PolicyConfig } from "../../core/config/index.ts";
import type { AddressGateLimits } from "../../core/ports/index.ts";

export function addressGateLimits(policy: Pick<PolicyConfig, "maxPerAddress" | "addressGapMs" | "gapMarginMs">): AddressGateLimits {
  const gapMs = policy.addressGapMs > 0 ? Math.ceil(policy.addressGapMs + policy.gapMarginMs) : 0;
  return { maxInFlight: policy.maxPerAddress, gapMs };
}

import { expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../../core/config/index.ts";
import { addressGateLimits } from "./address-limits.ts";

test("address limits - the cap and gap as given, with the margin, for the host and domain keys", () => {
  for (const politenessKey of ["host", "domain"] as const) {
    const policy = { ...DEFAULT_POLICY, politenessKey, maxPerAddress: 3, addressGapMs: 250, minGapMs: 1000, gapMarginMs: 5 };
    expect(addressGateLimits(policy)).toEqual({ maxInFlight: 3, gapMs: 255 });
  }
});

test("address limits - the ip key: one request at a time per address, the larger of the address gap and the min gap", () => {
  const policy = { ...DEFAULT_POLICY, politenessKey: "ip" as const, maxPerAddress: 3, gapMarginMs: 5 };
  expect(addressGateLimits({ ...policy, addressGapMs: 250, minGapMs: 1000 })).toEqual({ maxInFlight: 1, gapMs: 1005 });
  expect(addressGateLimits({ ...policy, addressGapMs: 2000, minGapMs: 1000 })).toEqual({ maxInFlight: 1, gapMs: 2005 });
  // Even with no gap asked for, one at a time.
  expect(addressGateLimits({ ...policy, addressGapMs: 0, minGapMs: 0, gapMarginMs: 0 })).toEqual({ maxInFlight: 1, gapMs: 0 });
});

/**
 * Tests of the tracking-parameter rule: which names count as trackers and which only look like them.
 */
import { describe, expect, test } from "bun:test";
import { isTrackingParam } from "./tracking-params.ts";

describe("isTrackingParam", () => {
  test("matches every utm_ name, including utm_ alone", () => {
    for (const name of ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id", "utm_"]) {
      expect(isTrackingParam(name)).toBe(true);
    }
  });

  test("matches the listed click and campaign identifiers", () => {
    for (const name of ["gclid", "fbclid", "msclkid", "dclid", "yclid", "mc_cid", "mc_eid", "_ga", "igshid"]) {
      expect(isTrackingParam(name)).toBe(true);
    }
  });

  test("ignores case", () => {
    expect(isTrackingParam("UTM_SOURCE")).toBe(true);
    expect(isTrackingParam("Utm_Term")).toBe(true);
    expect(isTrackingParam("GCLID")).toBe(true);
    expect(isTrackingParam("_GA")).toBe(true);
  });

  test("does not match names that merely resemble them", () => {
    for (const name of ["", "utm", "utmsource", "xutm_source", "gclid_", "_gat", "ga", "fbclid2", "id", "q", "utm-source"]) {
      expect(isTrackingParam(name)).toBe(false);
    }
  });
});

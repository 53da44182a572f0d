import { describe, expect, test } from "bun:test";
import { parseRegionRules, regionOf, regionsOf } from "./regions.ts";

describe("region rules", () => {
  const rules = parseRegionRules("eu=.de,.fr;apac=.jp;uk=example.co.uk", "us");
  test("regions - a TLD rule sends its hosts to its region", () => {
    expect(regionOf("shop.example.de", rules)).toBe("eu");
    expect(regionOf("a.jp:8080", rules)).toBe("apac");
  });
  test("regions - the longest suffix wins and a port does not matter", () => {
    expect(regionOf("www.example.co.uk:81", rules)).toBe("uk");
  });
  test("regions - hosts no rule matches go to the default region", () => {
    expect(regionOf("example.com", rules)).toBe("us");
    expect(regionOf("notde", rules)).toBe("us");
  });
  test("regions - every named region is listed, the default first", () => {
    const regions = regionsOf(rules);
    expect(regions[0]).toBe("us");
    expect([...regions].sort()).toEqual(["apac", "eu", "uk", "us"]);
  });
  test("regions - a malformed rule is refused with a message", () => {
    expect(() => parseRegionRules("eu", "us")).toThrow(/region=/);
    expect(() => parseRegionRules("EU=.de", "us")).toThrow(/a-z/);
  });
});

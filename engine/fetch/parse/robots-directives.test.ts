import { describe, expect, test } from "bun:test";
import { parseXRobotsTag } from "./robots-directives.ts";

describe("parseXRobotsTag", () => {
  test("x-robots-tag - allows everything when the header is absent or empty", () => {
    expect(parseXRobotsTag(undefined)).toEqual({ noindex: false, nofollow: false });
    expect(parseXRobotsTag("")).toEqual({ noindex: false, nofollow: false });
  });

  test("x-robots-tag - reads noindex, nofollow in any case and spacing", () => {
    expect(parseXRobotsTag("noindex, nofollow")).toEqual({ noindex: true, nofollow: true });
    expect(parseXRobotsTag("NOINDEX")).toEqual({ noindex: true, nofollow: false });
    expect(parseXRobotsTag(" nofollow ")).toEqual({ noindex: false, nofollow: true });
  });

  test("x-robots-tag - treats none as both", () => {
    expect(parseXRobotsTag("none")).toEqual({ noindex: true, nofollow: true });
  });

  test("x-robots-tag - applies agent-scoped directives only to that agent", () => {
    expect(parseXRobotsTag("googlebot: noindex")).toEqual({ noindex: false, nofollow: false });
    expect(parseXRobotsTag("googlebot: noindex", "Googlebot")).toEqual({ noindex: true, nofollow: false });
    expect(parseXRobotsTag("googlebot: noindex", "mycrawler")).toEqual({ noindex: false, nofollow: false });
  });

  test("x-robots-tag - carries an agent scope to the directives after it, up to the next agent", () => {
    const header = "googlebot: noindex, nofollow, mycrawler: nofollow";
    expect(parseXRobotsTag(header, "mycrawler")).toEqual({ noindex: false, nofollow: true });
    expect(parseXRobotsTag(header, "googlebot")).toEqual({ noindex: true, nofollow: true });
  });

  test("x-robots-tag - applies unscoped directives before any agent to everyone", () => {
    expect(parseXRobotsTag("noindex, otherbot: nofollow", "mycrawler")).toEqual({ noindex: true, nofollow: false });
  });

  test("x-robots-tag - does not mistake valued directives for agent names", () => {
    expect(parseXRobotsTag("max-snippet: 20, noindex")).toEqual({ noindex: true, nofollow: false });
    expect(parseXRobotsTag("unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow")).toEqual({
      noindex: false,
      nofollow: true,
    });
  });

  test("x-robots-tag - ignores index, follow, all and unknown directives", () => {
    expect(parseXRobotsTag("index, follow, all, noarchive, nosnippet")).toEqual({ noindex: false, nofollow: false });
  });
});

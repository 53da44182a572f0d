import { describe, expect, test } from "bun:test";
import {
  ROBOTS_DISALLOW_MAX_AGE_MS,
  ROBOTS_MAX_AGE_MS,
  robotsExpiresAt,
  robotsVerdict,
  type RobotsFetchStep,
  type RobotsVerdict,
} from "./verdict.ts";

const table: [RobotsFetchStep[], RobotsVerdict, string][] = [
  [[200], "parse", "a 2xx body is parsed"],
  [[204], "parse", "any 2xx is a successful access, even with no body"],
  [[304], "parse", "304 means the cached body still stands"],
  [[301, 302, 200], "parse", "redirects are followed to the file"],
  [[301, 302, 303, 307, 308, 200], "parse", "five redirects are followed"],
  [[301, 301, 301, 301, 301, 301, 200], "allow-all", "a sixth redirect makes robots.txt unavailable"],
  [[301, 301, 301, 301, 301, 301], "allow-all", "a sixth redirect alone is unavailable"],
  [[301], "allow-all", "a redirect never followed to a file reaches no file"],
  [["redirect-loop"], "allow-all", "a redirect loop is unavailable"],
  [[301, "redirect-loop"], "allow-all", "a loop found after a redirect is unavailable"],
  [[404], "allow-all", "404 is unavailable"],
  [[401], "allow-all", "401 is in the 4xx range: unavailable"],
  [[403], "allow-all", "403 is in the 4xx range: unavailable"],
  [[410], "allow-all", "410 is unavailable"],
  [[429], "allow-all", "429 is in the 4xx range: unavailable (politeness slows the host)"],
  [[301, 404], "allow-all", "a redirect to a 4xx is unavailable"],
  [[500], "disallow-all", "5xx is unreachable"],
  [[503], "disallow-all", "503 is unreachable"],
  [[599], "disallow-all", "the top of the 5xx range is unreachable"],
  [[302, 502], "disallow-all", "a redirect to a 5xx is unreachable"],
  [["unreachable"], "disallow-all", "a network error is unreachable"],
  [[301, "unreachable"], "disallow-all", "a network error after a redirect is unreachable"],
  [[], "disallow-all", "no answer at all is treated as unreachable"],
  [[100], "disallow-all", "a 1xx final status is not a usable answer"],
  [[600], "disallow-all", "a status past 599 is not a usable answer"],
  [[99], "disallow-all", "a status below 100 is not a usable answer"],
  [[200.5], "disallow-all", "a fractional status is not a usable answer"],
  [[200, 500], "parse", "steps after the first final status are ignored"],
];

describe("robots verdict", () => {
  for (const [chain, verdict, why] of table) {
    test(`${why}: ${JSON.stringify(chain)} is ${verdict}`, () => {
      expect(robotsVerdict(chain)).toBe(verdict);
    });
  }
});

describe("robots cache expiry", () => {
  const t0 = 1_700_000_000_000;

  test("keeps a parsed file 24 hours by default", () => {
    expect(robotsExpiresAt(t0, "parse")).toBe(t0 + ROBOTS_MAX_AGE_MS);
    expect(ROBOTS_MAX_AGE_MS).toBe(24 * 3600 * 1000);
  });

  test("honours a shorter max-age from the server", () => {
    expect(robotsExpiresAt(t0, "parse", 600_000)).toBe(t0 + 600_000);
  });

  test("never keeps a verdict more than 24 hours, whatever the server says", () => {
    expect(robotsExpiresAt(t0, "allow-all", 7 * 24 * 3600 * 1000)).toBe(t0 + ROBOTS_MAX_AGE_MS);
  });

  test("keeps a disallow-all at most one hour so an outage does not block a host for a day", () => {
    expect(robotsExpiresAt(t0, "disallow-all")).toBe(t0 + ROBOTS_DISALLOW_MAX_AGE_MS);
    expect(robotsExpiresAt(t0, "disallow-all", ROBOTS_MAX_AGE_MS)).toBe(t0 + ROBOTS_DISALLOW_MAX_AGE_MS);
  });

  test("expires at once for a negative or NaN max-age", () => {
    expect(robotsExpiresAt(t0, "parse", -5)).toBe(t0);
    expect(robotsExpiresAt(t0, "parse", Number.NaN)).toBe(t0);
  });

  test("reads an infinite max-age as the cap", () => {
    expect(robotsExpiresAt(t0, "parse", Number.POSITIVE_INFINITY)).toBe(t0 + ROBOTS_MAX_AGE_MS);
  });
});

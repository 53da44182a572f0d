import { describe, expect, test } from "bun:test";
import { parseRobots } from "./parse.ts";
import { isAllowed, policyFor } from "./policy.ts";

const FILE = `User-agent: *
Crawl-delay: 4
Disallow: /private/
Allow: /private/open

User-agent: slowbot
Crawl-delay: 2
Disallow: /a

User-agent: slowbot
Crawl-delay: 9
`;

describe("robots policy", () => {
  test("takes the Crawl-delay of the selected group only", () => {
    const rules = parseRobots(FILE);
    expect(policyFor(rules, "otherbot").crawlDelayMs).toBe(4000);
  });

  test("takes the largest Crawl-delay of the merged groups of an agent", () => {
    expect(policyFor(parseRobots(FILE), "SlowBot/1.0").crawlDelayMs).toBe(9000);
  });

  test("has no Crawl-delay when the selected groups give none", () => {
    expect(policyFor(parseRobots("User-agent: *\nDisallow: /x\n"), "bot").crawlDelayMs).toBeUndefined();
    expect(policyFor(parseRobots(""), "bot").crawlDelayMs).toBeUndefined();
  });

  test("explains a decision with the rule that made it", () => {
    const policy = policyFor(parseRobots(FILE), "otherbot");
    expect(policy.explain("/private/open/x")).toEqual({ allowed: true, rule: { allow: true, pattern: "/private/open" } });
    expect(policy.explain("/private/x")).toEqual({ allowed: false, rule: { allow: false, pattern: "/private/" } });
    expect(policy.explain("/public")).toEqual({ allowed: true });
  });

  test("explains /robots.txt as allowed by no rule", () => {
    expect(policyFor(parseRobots("User-agent: *\nDisallow: /\n"), "bot").explain("/robots.txt")).toEqual({ allowed: true });
  });

  test("allows everything when the selected rules are all Allow", () => {
    const policy = policyFor(parseRobots("User-agent: *\nAllow: /a\nAllow: /b\n"), "bot");
    expect(policy.isAllowed("/a")).toBe(true);
    expect(policy.isAllowed("/zzz")).toBe(true);
  });

  test("accepts absolute URLs as well as paths", () => {
    const policy = policyFor(parseRobots(FILE), "otherbot");
    expect(policy.isAllowed("https://example.com/private/x")).toBe(false);
    expect(policy.isAllowed("https://example.com/private/open")).toBe(true);
    expect(isAllowed(parseRobots(FILE), "otherbot", "http://example.com/private/#frag")).toBe(false);
  });

  test("ignores a fragment in a path", () => {
    expect(policyFor(parseRobots(FILE), "otherbot").isAllowed("/public#/private/")).toBe(true);
  });

  test("agrees with explain on every path (isAllowed stops early, explain does not)", () => {
    const policy = policyFor(
      parseRobots("User-agent: *\nDisallow: /a\nAllow: /a/b\nAllow: /zzzzzzzzzz\nDisallow: /*.x$\nAllow: /\n"),
      "bot",
    );
    for (const path of ["/", "/a", "/a/b", "/a/b.x", "/c.x", "/zzzzzzzzzz.x", "/q"]) {
      expect(policy.isAllowed(path)).toBe(policy.explain(path).allowed);
    }
  });

  test("ignores blanks around the agent string", () => {
    expect(policyFor(parseRobots("User-agent: bot\nDisallow: /\n"), "  Bot/2 ").isAllowed("/")).toBe(false);
  });
});

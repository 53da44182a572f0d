import { describe, expect, test } from "bun:test";
import { isAllowed, matches, parseRobots, verdictFor } from "./robots.ts";
import { SITE_ROBOTS } from "./site.ts";

describe("robots oracle", () => {
  test("picks the * group when no group names the agent", () => {
    const g = parseRobots(SITE_ROBOTS);
    expect(isAllowed(g, "/")).toBe(true);
    expect(isAllowed(g, "/page/3")).toBe(true);
    expect(isAllowed(g, "/private/3")).toBe(false);
  });

  test("picks the agent's own group over *, case-insensitively", () => {
    const g = parseRobots(SITE_ROBOTS, "EvilBot");
    expect(isAllowed(g, "/page/3")).toBe(false);
  });

  test("lets the longest match win and Allow win a tie", () => {
    const g = parseRobots(SITE_ROBOTS);
    expect(isAllowed(g, "/private/public-notes")).toBe(true);
    const tie = parseRobots("User-agent: *\nDisallow: /x\nAllow: /x\n");
    expect(isAllowed(tie, "/x/1")).toBe(true);
  });

  test("supports * wildcards and the $ anchor", () => {
    expect(matches("/*.pdf$", "/docs/1.pdf")).toBe(true);
    expect(matches("/*.pdf$", "/docs/1.pdf?x=1")).toBe(false);
    expect(matches("/*.pdf", "/docs/1.pdf.html")).toBe(true);
    expect(matches("/a*b*c", "/a-x-b-y-c-z")).toBe(true);
    expect(matches("/a*b*c$", "/a-x-b-y-c-z")).toBe(false);
    expect(matches("/a*c$", "/abcabc")).toBe(true);
    expect(matches("/", "/anything")).toBe(true);
  });

  test("shares rules between consecutive user-agent lines and ignores comments and unknown keys", () => {
    const text = "User-agent: a\nUser-agent: * # everyone\nSitemap: http://x/s.xml\nDisallow: /no # not here\n";
    expect(isAllowed(parseRobots(text), "/no/1")).toBe(false);
    expect(isAllowed(parseRobots(text, "a"), "/no/1")).toBe(false);
  });

  test("always allows robots.txt itself and ignores an empty Disallow", () => {
    const g = parseRobots("User-agent: *\nDisallow: /\n");
    expect(isAllowed(g, "/robots.txt")).toBe(true);
    expect(isAllowed(parseRobots("User-agent: *\nDisallow:\n"), "/x")).toBe(true);
  });

  test("reads Crawl-delay into the verdict", () => {
    const v = verdictFor({ kind: "rules", text: "User-agent: *\nCrawl-delay: 2\n" });
    expect(v.crawlDelayMs).toBe(2000);
  });

  test("treats a failed robots.txt as disallowing everything but itself", () => {
    const v = verdictFor({ kind: "disallow-all", why: "500" });
    expect(v.unavailable).toBe(true);
    expect(v.allowed("/")).toBe(false);
    expect(v.allowed("/robots.txt")).toBe(true);
    expect(verdictFor({ kind: "allow-all", why: "404" }).allowed("/private/1")).toBe(true);
  });
});

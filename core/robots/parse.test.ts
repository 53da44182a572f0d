import { describe, expect, test } from "bun:test";
import { parseRobots, productToken, ROBOTS_MAX_BYTES, sitemaps } from "./parse.ts";

describe("robots parse", () => {
  test("groups consecutive user-agent lines and stores lower-cased tokens", () => {
    const rules = parseRobots("User-agent: FooBot/1.0\nUser-agent: BAR\nDisallow: /x\n");
    expect(rules.groups).toEqual([{ agents: ["foobot", "bar"], rules: [{ allow: false, pattern: "/x" }] }]);
  });

  test("stores patterns percent-normalized with the end anchor kept", () => {
    const rules = parseRobots("User-agent: *\nAllow: /%7ea/ツ*.gif$\nDisallow: /a$b\n");
    expect(rules.groups[0]?.rules).toEqual([
      { allow: true, pattern: "/~a/%E3%83%84*.gif$" },
      { allow: false, pattern: "/a%24b" },
    ]);
  });

  test("keeps a named group with no rules", () => {
    expect(parseRobots("User-agent: quxbot\n").groups).toEqual([{ agents: ["quxbot"], rules: [] }]);
  });

  test("collects sitemaps from anywhere in the file, in order, without duplicates", () => {
    const rules = parseRobots(
      "Sitemap: https://a.example/1.xml\nUser-agent: *\nsitemap:https://a.example/2.xml\n" +
        "Site-map: https://a.example/1.xml\nSitemap:\nSitemap: https://a.example/ツ.xml # comment\n",
    );
    expect(sitemaps(rules)).toEqual(["https://a.example/1.xml", "https://a.example/2.xml", "https://a.example/ツ.xml"]);
  });

  test("returns a copy of the sitemaps that callers may change", () => {
    const rules = parseRobots("Sitemap: https://a.example/s.xml\n");
    sitemaps(rules).push("x");
    expect(sitemaps(rules)).toEqual(["https://a.example/s.xml"]);
  });

  test("reads Crawl-delay in seconds, fractions allowed", () => {
    expect(parseRobots("User-agent: *\nCrawl-delay: 2.5\n").groups[0]?.crawlDelayMs).toBe(2500);
    expect(parseRobots("User-agent: *\nCrawl-delay: .5\n").groups[0]?.crawlDelayMs).toBe(500);
    expect(parseRobots("User-agent: *\nCrawl-delay: 0\n").groups[0]?.crawlDelayMs).toBe(0);
  });

  test("caps Crawl-delay at 60 seconds", () => {
    expect(parseRobots("User-agent: *\nCrawl-delay: 86400\n").groups[0]?.crawlDelayMs).toBe(60_000);
  });

  test("ignores a Crawl-delay that is not a plain non-negative number", () => {
    for (const v of ["ten", "-1", "5s", "1e3", "", "0x10", "Infinity"]) {
      expect(parseRobots(`User-agent: *\nCrawl-delay: ${v}\n`).groups[0]?.crawlDelayMs).toBeUndefined();
    }
  });

  test("keeps the largest Crawl-delay of a group", () => {
    const rules = parseRobots("User-agent: *\nCrawl-delay: 3\nCrawl-delay: 7\nCrawl-delay: 1\n");
    expect(rules.groups[0]?.crawlDelayMs).toBe(7000);
  });

  test("ignores a Crawl-delay before any user-agent line", () => {
    expect(parseRobots("Crawl-delay: 9\nUser-agent: *\n").groups[0]?.crawlDelayMs).toBeUndefined();
  });

  test("reads octets that are not valid UTF-8 as single octets", () => {
    const bytes = new Uint8Array([...new TextEncoder().encode("User-agent: *\nDisallow: /caf"), 0xe9, 0x0a]);
    expect(parseRobots(bytes).groups[0]?.rules[0]?.pattern).toBe("/caf%E9");
  });

  test("does not trim a 0xA0 octet that ends a UTF-8 character", () => {
    // "à" is C3 A0 in UTF-8; String.trim would cut the A0.
    expect(parseRobots("User-agent: *\nDisallow: /à\n").groups[0]?.rules[0]?.pattern).toBe("/%C3%A0");
  });

  test("skips a byte order mark given as bytes", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("User-agent: *\nDisallow: /x")]);
    expect(parseRobots(bytes).groups).toHaveLength(1);
  });

  test("parses a file of 500 KiB to its last line", () => {
    let text = "User-agent: *\n";
    let i = 0;
    while (text.length < 500 * 1024 - 40) text += `Disallow: /path/${i++}/\n`;
    text += "Disallow: /last-rule\n";
    const rules = parseRobots(text);
    expect(rules.truncated).toBe(false);
    expect(rules.groups[0]?.rules.at(-1)?.pattern).toBe("/last-rule");
  });

  test("stops at 512 KiB and drops the line the limit cuts", () => {
    const line = "Disallow: /abcdefghij\n"; // 22 octets: the limit falls inside a line
    const text = "User-agent: *\n" + line.repeat(Math.ceil(ROBOTS_MAX_BYTES / line.length) + 10);
    const rules = parseRobots(text);
    expect(rules.truncated).toBe(true);
    const kept = rules.groups[0]?.rules ?? [];
    expect(kept.every((r) => r.pattern === "/abcdefghij")).toBe(true);
    expect(kept.length).toBe(Math.floor((ROBOTS_MAX_BYTES - 14) / line.length));
  });

  test("counts the limit in octets for a non-ASCII string", () => {
    const text = "User-agent: *\n" + "Disallow: /ツ\n".repeat(50_000); // 15 octets per line, 750 KB
    const rules = parseRobots(text);
    expect(rules.truncated).toBe(true);
    expect(rules.groups[0]?.rules.length).toBe(Math.floor((ROBOTS_MAX_BYTES - 14) / 15));
  });

  test("reads nothing but whole lines when the limit falls on a line break", () => {
    const head = "User-agent: *\n";
    const filler = "#".repeat(ROBOTS_MAX_BYTES - head.length - 1) + "\n";
    const rules = parseRobots(head + filler + "Disallow: /beyond\n");
    expect(rules.truncated).toBe(true);
    expect(rules.groups[0]?.rules).toEqual([]);
  });
});

describe("robots productToken", () => {
  test("takes the leading run of letters, - and _ and lower-cases it", () => {
    expect(productToken("MyCrawler/1.0 (+https://crawler.example/info)")).toBe("mycrawler");
    expect(productToken("Googlebot-News")).toBe("googlebot-news");
    expect(productToken("my_bot2")).toBe("my_bot");
    expect(productToken("/x")).toBe("");
  });
});

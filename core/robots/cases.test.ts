/**
 * The robots.txt case suite: a table of (robots.txt, agent, URL, expected) rows written from the text
 * and examples of RFC 9309, each with the reason it holds. It drives only the public face (index.ts),
 * once through `isAllowed` and once through a compiled policy, so both entry points stay in step.
 */
import { describe, expect, test } from "bun:test";
import { isAllowed, parseRobots, policyFor } from "./index.ts";

type Expected = "allowed" | "disallowed";
interface Case {
  robots: string;
  agent: string;
  url: string;
  expected: Expected;
  why: string;
}

const A: Expected = "allowed";
const D: Expected = "disallowed";

/** Builds rows sharing one robots.txt: [agent, url, expected, why]. */
function rows(robots: string, list: [string, string, Expected, string][]): Case[] {
  return list.map(([agent, url, expected, why]) => ({ robots, agent, url, expected, why }));
}

// RFC 9309 section 5.1, the simple example.
const SIMPLE = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`;

// RFC 9309 section 5.2, longest match.
const LONGEST = `User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
`;

const cases: Case[] = [
  ...rows(SIMPLE, [
    ["foobot", "/example/page.html", A, "a longer Allow beats Disallow: / in the named group"],
    ["foobot", "/example/allowed.gif", A, "the named group replaces the * group, so *.gif$ does not apply"],
    ["foobot", "/example/other.html", D, "only Disallow: / matches in foobot's group"],
    ["foobot", "/", D, "Disallow: / covers the root"],
    ["FooBot/2.0", "/example/page.html", A, "groups match on the product token, case-insensitively"],
    ["foobot", "/robots.txt", A, "/robots.txt is implicitly allowed even under Disallow: /"],
    ["barbot", "/example/page.html", D, "barbot shares the group opened by two user-agent lines"],
    ["bazbot", "/example/page.html", D, "bazbot is the second agent of that shared group"],
    ["barbot", "/example/", A, "barbot's own group replaces the * group's Disallow: /example/"],
    ["bazbot", "/image.gif", A, "the * group's *.gif$ does not apply to a named agent"],
    ["quxbot", "/example/page.html", A, "a named agent with an empty group has no rules at all"],
    ["quxbot", "/anything.gif", A, "the empty named group still replaces the * group"],
    ["otherbot", "/image.gif", D, "an unnamed agent falls back to the * group and its *.gif$"],
    ["otherbot", "/image.gif?x=1", A, "the $ anchor needs the path to end right after .gif"],
    ["otherbot", "/example/", D, "the * group disallows /example/"],
    ["otherbot", "/publications/", A, "the * group allows /publications/"],
    ["otherbot", "/publications/cover.gif", A, "Allow: /publications/ (14 octets) beats *.gif$ (6)"],
    ["otherbot", "/example/cover.gif", D, "Disallow: /example/ and *.gif$ both disallow"],
    ["otherbot", "/elsewhere.html", A, "no rule matches, so the path is allowed"],
  ]),
  ...rows(LONGEST, [
    ["foobot", "/example/page/", A, "only the Allow matches the directory itself"],
    ["foobot", "/example/page/disallowed.gif", D, "the Disallow is the longer match"],
    ["foobot", "/example/page/disallowed.gif.bak", D, "rules match as prefixes"],
    ["foobot", "/example/page/other.gif", A, "only the shorter Allow matches"],
    ["foobot", "/example/", A, "no rule matches a shorter path"],
  ]),
  ...rows("User-agent: *\nDisallow: /\n\nUser-agent: ExampleBot\nDisallow: /private\n", [
    ["examplebot", "/public", A, "the named group replaces the * group's Disallow: /"],
    ["examplebot", "/private/x", D, "the named group's own rule applies"],
    ["ExampleBot-News", "/public", D, "a different product token does not match ExampleBot"],
    ["EXAMPLEBOT/3.1 (+https://bot.example/info)", "/public", A, "a full agent string is reduced to its token"],
    ["", "/public", D, "an empty agent has no token and gets the * group"],
    ["Mozilla/5.0 (compatible; ExampleBot/1.0)", "/public", D, "the token is the leading word, Mozilla"],
  ]),
  ...rows("User-agent: a\nDisallow: /one\n\nUser-agent: b\nDisallow: /two\n\nUser-agent: a\nDisallow: /three\n", [
    ["a", "/one", D, "the first group for a applies"],
    ["a", "/three", D, "a second group for the same agent is merged into the first"],
    ["a", "/two", A, "b's group does not apply to a"],
    ["b", "/three", A, "a's later group does not apply to b"],
  ]),
  ...rows("User-agent: a\n\nUser-agent: b\nDisallow: /x\n", [
    ["a", "/x", D, "blank lines between user-agent lines do not split the group"],
    ["b", "/x", D, "the last user-agent line of the run gets the rules too"],
  ]),
  ...rows(
    "User-agent: a\nDisallow: /one\nSitemap: https://e.example/s.xml\nDisallow: /two\nCrawl-delay: 5\n" +
      "Disallow: /three\nFoo: bar\nthis line has no colon\nDisallow: /four\n",
    [
      ["a", "/one", D, "the rule before the sitemap line applies"],
      ["a", "/two", D, "a Sitemap line does not end a group"],
      ["a", "/three", D, "a Crawl-delay line does not end a group"],
      ["a", "/four", D, "unknown keys and lines without a colon do not end a group"],
      ["a", "/five", A, "paths no rule names stay allowed"],
    ],
  ),
  ...rows("User-agent: a\nSitemap: https://e.example/s.xml\nUser-agent: b\nDisallow: /x\n", [
    ["a", "/x", D, "a Sitemap line between user-agent lines does not break their run"],
    ["b", "/x", D, "b is in the same group as a"],
  ]),
  ...rows("User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n", [
    ["a", "/y", A, "a user-agent line after a rule starts a new group"],
    ["b", "/x", A, "b's group does not inherit a's rules"],
    ["b", "/y", D, "b's group has its own rule"],
  ]),
  ...rows("Disallow: /early\nAllow: /\nUser-agent: *\nDisallow: /late\n", [
    ["anybot", "/early", A, "rules before any user-agent line belong to no group"],
    ["anybot", "/late", D, "rules after the user-agent line apply"],
  ]),
  ...rows("User-agent: *\nDisallow:\n", [["anybot", "/anything", A, "an empty Disallow disallows nothing"]]),
  ...rows("User-agent: *\nDisallow:\nDisallow: /x\n", [["anybot", "/x", D, "an empty Disallow does not cancel other rules"]]),
  ...rows("", [["anybot", "/x", A, "an empty file has no rules"]]),
  ...rows("# nothing but a comment\n\n", [["anybot", "/x", A, "a file of comments has no rules"]]),
  ...rows("User-agent: a\nDisallow: /\n", [
    ["b", "/", A, "no matching group and no * group means no rules apply"],
    ["a", "/", D, "the named agent is disallowed"],
  ]),
  ...rows("User-agent: *\nAllow: /p\nDisallow: /\n", [
    ["anybot", "/page", A, "Allow: /p is longer than Disallow: /"],
    ["anybot", "/", D, "Allow: /p does not match the root"],
  ]),
  ...rows("User-agent: *\nDisallow: /folder\nAllow: /folder\n", [
    ["anybot", "/folder/x", A, "equal-length Allow and Disallow: Allow wins"],
  ]),
  ...rows("User-agent: *\nAllow: /folder\nDisallow: /folder\n", [
    ["anybot", "/folder", A, "the tie goes to Allow whatever the order of the lines"],
  ]),
  ...rows("User-agent: *\nAllow: /page\nDisallow: /*.html\n", [
    ["anybot", "/page.html", D, "/*.html (7 octets) is longer than /page (5); * counts as an octet"],
    ["anybot", "/page.php", A, "only the Allow matches"],
  ]),
  ...rows("User-agent: *\nAllow: /$\nDisallow: /\n", [
    ["anybot", "/", A, "/$ matches exactly the root and is longer than /"],
    ["anybot", "/index.html", D, "/$ does not match a longer path"],
    ["anybot", "/?q=1", D, "the query is part of the path matched against /$"],
  ]),
  ...rows("User-agent: *\nDisallow: /*/private/\nDisallow: /fish*.php\nDisallow: /*?sessionid=\nDisallow: /a*b*c*d\n", [
    ["anybot", "/x/private/y", D, "* spans the first directory"],
    ["anybot", "/private/y", A, "/*/private/ needs a segment before /private/"],
    ["anybot", "/fish.php", D, "* may match nothing"],
    ["anybot", "/fishheads/catfish.php?parameters", D, "* may span slashes"],
    ["anybot", "/Fish.PHP", A, "path matching is case-sensitive"],
    ["anybot", "/page?sessionid=abc", D, "a wildcard rule can target a query parameter"],
    ["anybot", "/page?id=1&sessionid=abc", A, "the pattern names ?sessionid=, not &sessionid="],
    ["anybot", "/axxbyyczzd", D, "several wildcards match their literals in order"],
    ["anybot", "/adcb", A, "the literals must appear in the pattern's order"],
    ["anybot", "/abcd", D, "each * may match nothing"],
  ]),
  ...rows("User-agent: *\nDisallow: /*.php$\nDisallow: /exact$\n", [
    ["anybot", "/index.php", D, "$ anchors the pattern at the end of the path"],
    ["anybot", "/index.php?x=1", A, "a query after .php defeats the anchor"],
    ["anybot", "/index.php5", A, "an octet after .php defeats the anchor"],
    ["anybot", "/exact", D, "an anchored literal matches only itself"],
    ["anybot", "/exact/", A, "an anchored literal does not match as a prefix"],
    ["anybot", "/dir/a.php", D, "* before the anchored suffix spans directories"],
  ]),
  ...rows("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b$\n", [
    ["anybot", "/" + "a".repeat(200), A, "a pattern full of * is matched without backtracking and fails"],
    ["anybot", "/" + "a".repeat(50) + "b", D, "the same pattern matches when the anchored b is there"],
  ]),
  ...rows("User-agent: *\nDisallow: /a$b\n", [
    ["anybot", "/a$b", D, "a $ inside a pattern is a literal character"],
    ["anybot", "/a%24b", D, "a literal $ also matches its percent-encoded form"],
    ["anybot", "/ab", A, "the literal $ is required"],
  ]),
  ...rows(
    "User-agent: *\nDisallow: /%7Euser/\nDisallow: /caf%C3%A9\nDisallow: /ツ\nDisallow: /foo/bar/%62%61%7A\n" +
      "Disallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\nDisallow: /a%2fb\nDisallow: /sp ace\n" +
      "Disallow: /~joe\n",
    [
      ["anybot", "/~user/x", D, "%7E in a rule equals ~ in the URL"],
      ["anybot", "/%7euser/x", D, "percent-encoding hex is case-insensitive"],
      ["anybot", "/%7Euser/x", D, "the same escape on both sides matches"],
      ["anybot", "/café", D, "a non-ASCII URL is compared as its UTF-8 octets, percent-encoded"],
      ["anybot", "/caf%c3%a9", D, "lower-case escapes of the UTF-8 octets match too"],
      ["anybot", "/%E3%83%84", D, "a raw non-ASCII rule equals its percent-encoded UTF-8 form"],
      ["anybot", "/ツ/x", D, "a raw non-ASCII rule matches a raw non-ASCII URL"],
      ["anybot", "/foo/bar/baz", D, "the RFC's /foo/bar/%62%61%7A rule matches /foo/bar/baz"],
      ["anybot", "/foo/bar/%62az", D, "partly encoded unreserved characters match too"],
      ["anybot", "/path/file-with-a-*.html", D, "%2A in a rule is a literal *"],
      ["anybot", "/path/file-with-a-x.html", A, "%2A is not a wildcard"],
      ["anybot", "/path/foo-$", D, "%24 in a rule is a literal $"],
      ["anybot", "/path/foo-%24", D, "%24 in a rule matches an encoded $ in the URL"],
      ["anybot", "/path/foo-", A, "%24 is not an end anchor"],
      ["anybot", "/a%2Fb", D, "an encoded reserved character matches its encoding, any hex case"],
      ["anybot", "/a/b", A, "an encoded / is not the same as a path separator"],
      ["anybot", "/sp%20ace", D, "a raw space in a rule equals %20"],
      ["anybot", "/sp ace", D, "a raw space in the URL equals a raw space in the rule"],
      ["anybot", "/%7Ejoe/", D, "an encoded ~ in the URL equals a raw ~ in the rule"],
    ],
  ),
  ...rows("User-agent: *\nDisallow: /\n", [
    ["anybot", "/robots.txt", A, "/robots.txt is always allowed"],
    ["anybot", "/robots.txt?x=1", A, "/robots.txt with a query is still robots.txt"],
    ["anybot", "/robots.txt.bak", D, "only /robots.txt itself is exempt"],
    ["anybot", "/%72obots.txt", A, "the exemption applies after percent-normalization"],
  ]),
  ...rows("\uFEFFUser-agent: *\nDisallow: /x\n", [["anybot", "/x", D, "a leading byte order mark is skipped"]]),
  ...rows("User-agent: *\r\nDisallow: /x\r\n", [
    ["anybot", "/x", D, "CRLF ends lines"],
    ["anybot", "/y", A, "CRLF does not leak into patterns"],
  ]),
  ...rows("User-agent: *\rDisallow: /x\r", [["anybot", "/x", D, "a lone CR ends lines"]]),
  ...rows("User-agent: a\r\nDisallow: /x\rUser-agent: b\nDisallow: /y", [
    ["b", "/x", A, "mixed line endings still separate the groups"],
    ["b", "/y", D, "the last line needs no line ending"],
  ]),
  ...rows("User-agent: * # every crawler\nDisallow: /x # not x\n# Disallow: /y\nDisallow: /a#b\n", [
    ["anybot", "/x", D, "a comment after a value is dropped"],
    ["anybot", "/y", A, "a commented-out rule is ignored"],
    ["anybot", "/abc", D, "# starts a comment inside a pattern too, leaving /a"],
  ]),
  ...rows("  User-agent  :   *  \n\tDisallow\t:\t/x\t\n", [["anybot", "/x", D, "blanks and tabs around keys and values are ignored"]]),
  ...rows("USER-AGENT: *\nDISALLOW: /x\n", [["anybot", "/x", D, "keys are case-insensitive"]]),
  ...rows("useragent: *\ndissallow: /x\n", [["anybot", "/x", D, "useragent and dissallow are accepted typos"]]),
  ...rows("user agent: *\ndisalow: /x\n", [["anybot", "/x", D, "user agent and disalow are accepted typos"]]),
  ...rows("User-agent: *\nDisallow: /X\n", [["anybot", "/x", A, "values are case-sensitive"]]),
  ...rows("User-agent *\nDisallow: /x\n", [["anybot", "/x", A, "a user-agent line without a colon opens no group"]]),
  ...rows("User-agent: *\nDisallow /x\n", [["anybot", "/x", A, "a rule without a colon is ignored"]]),
  ...rows("User-agent: FooBot/2.1\nDisallow: /\n", [["foobot", "/", D, "a user-agent value is reduced to its product token"]]),
  ...rows("User-agent: * extra words\nDisallow: /\n", [["anybot", "/", D, "* followed by blanks is still the global group"]]),
  ...rows("User-agent: *bot\nDisallow: /\n", [["xbot", "/", A, "*bot is not a wildcard and names no crawler"]]),
  ...rows("User-agent: foo bar\nDisallow: /\n", [["foo", "/", D, "the token ends at the first blank"]]),
  ...rows("User-agent: my_bot-2\nDisallow: /\n", [["My_Bot-9", "/", D, "tokens are letters, - and _; both reduce to my_bot-"]]),
  ...rows("User-agent: *\nDisallow: /x\n", [
    ["anybot", "https://example.com/x?y", D, "an absolute URL is matched by its path and query"],
    ["anybot", "https://example.com", A, "an absolute URL with no path is the root"],
    ["anybot", "https://example.com/y#/x", A, "the fragment is dropped before matching"],
    ["anybot", "http://user@example.com:8080/x", D, "userinfo and port are part of the authority"],
  ]),
  ...rows("User-agent: *\nDisallow: /search?\nDisallow: /*?\n", [
    ["anybot", "/search?q=1", D, "a rule may include the query separator"],
    ["anybot", "/search", A, "the ? in the rule needs a query"],
    ["anybot", "/a?b", D, "/*? disallows every URL with a query"],
    ["anybot", "/a", A, "/*? does not touch URLs without a query"],
  ]),
  ...rows("User-agent: *\nAllow: /%7Ea\nDisallow: /~ab\n", [
    ["anybot", "/~abc", D, "length is measured after normalization: /~a (3) loses to /~ab (4)"],
    ["anybot", "/~a", A, "only the normalized Allow matches"],
  ]),
  ...rows("User-agent: *\nAllow: /é\nDisallow: /%C3\n", [
    ["anybot", "/é", A, "length is in octets: /é is /%C3%A9 (7) and beats /%C3 (4)"],
    ["anybot", "/%C3x", D, "only the shorter Disallow matches here"],
  ]),
  ...rows("User-agent: *\nDisallow: /foo/bar?baz=quest\n", [
    ["anybot", "/foo/bar?baz=quest", D, "a rule with a query matches the same path and query"],
    ["anybot", "/foo/bar?baz=other", A, "a different query value does not match"],
  ]),
  ...rows("User-agent: *\nDisallow: private/\n", [
    ["anybot", "/private/x", A, "a pattern that starts with neither / nor * matches no path"],
  ]),
];

describe("robots - RFC 9309 case suite", () => {
  test("the suite holds at least 100 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  cases.forEach((c, i) => {
    test(`case ${i + 1}: ${c.why} (${JSON.stringify(c.agent)} ${c.url} is ${c.expected})`, () => {
      const rules = parseRobots(c.robots);
      const want = c.expected === "allowed";
      expect(isAllowed(rules, c.agent, c.url)).toBe(want);
      expect(policyFor(rules, c.agent).isAllowed(c.url)).toBe(want);
      // The same bytes as a Uint8Array must read the same way.
      expect(isAllowed(parseRobots(new TextEncoder().encode(c.robots)), c.agent, c.url)).toBe(want);
    });
  });
});

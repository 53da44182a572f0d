import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY, resolvePolicy } from "../config/index.ts";
import { extensionOf } from "./extensions.ts";
import { HostNameSet } from "./host-names.ts";
import { parseScopeFile, ScopeFileError } from "./scope-file.ts";

describe("scope lists", () => {
  test("the extension is the last path segment's, lower-cased, query and fragment aside", () => {
    expect(extensionOf("http://a.test/x/y.ZIP")).toBe("zip");
    expect(extensionOf("http://a.test/a.tar.gz?dl=1")).toBe("gz");
    expect(extensionOf("http://a.test/a.b/page")).toBeUndefined();
    expect(extensionOf("http://a.test/")).toBeUndefined();
    expect(extensionOf("http://a.test")).toBeUndefined();
    expect(extensionOf("http://a.test/.htaccess")).toBeUndefined();
    expect(extensionOf("http://a.test/trailing.")).toBeUndefined();
    expect(extensionOf("http://a.test/download?file=a.zip")).toBeUndefined();
    expect(extensionOf("http://a.test/v1.2.3-beta")).toBeUndefined();
  });

  test("a host list matches a name and the names under it, not names that merely end alike", () => {
    const set = new HostNameSet([".Example.com", "docs.example.org"]);
    expect(set.match("example.com")).toBe("example.com");
    expect(set.match("a.b.example.com:8080")).toBe("example.com");
    expect(set.match("badexample.com")).toBeUndefined();
    expect(set.match("example.org")).toBeUndefined();
    expect(() => new HostNameSet(["exa mple.com"])).toThrow("is not a host name");
  });

  test("the policy reads the lists from flags and env vars, and +ext adds to the default extensions", () => {
    const policy = resolvePolicy(
      { "--scope": "domain", "--allow-hosts": "a.test, b.test", "--deny-urls": "*/print/* re:^x{1,2}$", "--deny-extensions": "+PDF,.docx" },
      { CRAWL_ALLOW_URLS: "http://a.test/*" },
    );
    expect(policy.scope).toBe("domain");
    expect(policy.allowHosts).toEqual(["a.test", "b.test"]);
    expect(policy.denyUrls).toEqual(["*/print/*", "re:^x{1,2}$"]);
    expect(policy.allowUrls).toEqual(["http://a.test/*"]);
    expect(policy.denyExtensions).toEqual([...DEFAULT_POLICY.denyExtensions, "pdf", "docx"]);
    expect(resolvePolicy({ "--deny-extensions": "" }, {}).denyExtensions).toEqual([]);
    expect(() => resolvePolicy({ "--deny-urls": "re:(" }, {})).toThrow("is not a valid regular expression");
    expect(() => resolvePolicy({ "--scope": "planet" }, {})).toThrow('expected host or domain or any, got "planet"');
  });

  test("a scope file adds entries by key, and names every bad line", () => {
    const lists = parseScopeFile(
      [
        "# lists",
        "allow-host Example.com",
        "deny-url re:[?&]s=\\d{2,}",
        "",
        "deny-extension .PDF",
        "allow-url http://a.test/x y/*",
        "deny-host ads.test",
        "render-host always App.Example.com",
        "render-url never https://example.com/static/*",
      ].join("\n"),
      "scope.txt",
    );
    expect(lists).toEqual({
      allowHosts: ["example.com"],
      denyHosts: ["ads.test"],
      allowUrls: ["http://a.test/x y/*"],
      denyUrls: ["re:[?&]s=\\d{2,}"],
      denyExtensions: ["pdf"],
      renderRules: ["always:app.example.com", "never:https://example.com/static/*"],
    });
    let error: unknown;
    try {
      parseScopeFile("allow-host ok.test\nallowhost x\ndeny-url re:(\n", "s.txt");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScopeFileError);
    const problems = (error as ScopeFileError).problems;
    expect(problems.length).toBe(2);
    expect(problems[0]).toBe(
      's.txt:2: expected "<allow-host|deny-host|allow-url|deny-url|deny-extension|render-host|render-url> <value>", got "allowhost x"',
    );
    expect(problems[1]).toStartWith('s.txt:3: "re:(" is not a valid regular expression: ');
  });
});

test("scope lists - a render line names its mode and a target of its own kind", () => {
  const bad = (line: string) => {
    try {
      parseScopeFile(line, "s.txt");
    } catch (error) {
      return (error as ScopeFileError).problems[0];
    }
    return undefined;
  };
  expect(bad("render-host sometimes example.com")).toContain('expected "<never|auto|always> <host>"');
  expect(bad("render-url always example.com")).toContain("is not a URL pattern");
  expect(bad("render-host always https://example.com/*")).toContain("is not a host name");
  expect(bad("render-url never re:(")).toContain("regular expression");
});

import { describe, expect, test } from "bun:test";
import { DEFAULT_POLICY } from "../config/index.ts";
import { ScopeFilter, type ScopeCandidate, type ScopeSettings } from "./filter.ts";
import { ScopeRoots } from "./roots.ts";

function filter(settings: Partial<ScopeSettings> = {}, seeds: string[] = []): ScopeFilter {
  const roots = new ScopeRoots();
  roots.add(seeds);
  return new ScopeFilter({ ...DEFAULT_POLICY, ...settings }, roots);
}

function link(url: string, depth = 1, isSeed = false): ScopeCandidate {
  const host = url.split("/")[2]!;
  return { url, host, depth, isSeed };
}

describe("scope filter", () => {
  test("with the defaults, any host passes and archives, images, video, audio, executables and fonts do not", () => {
    const f = filter();
    for (const url of ["http://a.test/", "http://b.test/page?x=1", "http://b.test/doc.pdf", "http://b.test/download?file=a.zip"])
      expect(f.reject(link(url))).toBeUndefined();
    for (const url of [
      "http://a.test/x.zip",
      "http://a.test/p/IMG.JPG",
      "http://a.test/v.mp4?t=3",
      "http://a.test/s.mp3",
      "http://a.test/setup.exe",
      "http://a.test/f.woff2",
      "http://a.test/a.tar.gz",
    ])
      expect(f.reject(link(url))).toBe("extension");
  });

  test("the depth limit counts links from a seed, and a seed always passes it", () => {
    const f = filter({ maxDepth: 2 });
    expect(f.reject(link("http://a.test/p", 2))).toBeUndefined();
    expect(f.explain(link("http://a.test/p", 3))).toEqual({ reason: "depth", detail: "depth 3 is beyond --max-depth 2" });
    expect(f.reject(link("http://a.test/p", 3, true))).toBeUndefined();
  });

  test("--scope host keeps the seeds' hosts, on any port, and nothing else", () => {
    const f = filter({ scope: "host" }, ["www.shop.test"]);
    expect(f.reject(link("http://www.shop.test/a"))).toBeUndefined();
    expect(f.reject(link("http://www.shop.test:8080/a"))).toBeUndefined();
    expect(f.explain(link("http://blog.shop.test/a"))).toEqual({
      reason: "scope",
      detail: "host blog.shop.test is not the host of a seed (--scope host)",
    });
    expect(f.reject(link("http://other.test/", 1, true))).toBeUndefined(); // a seed defines scope, it is never out of it
  });

  test("--scope domain keeps the seeds' registrable domains, by the Public Suffix List", () => {
    const f = filter({ scope: "domain" }, ["www.example.co.uk", "alice.github.io", "127.0.0.1:8080"]);
    expect(f.reject(link("http://shop.example.co.uk/"))).toBeUndefined();
    expect(f.reject(link("http://example.co.uk/"))).toBeUndefined();
    expect(f.explain(link("http://other.co.uk/"))).toEqual({
      reason: "scope",
      detail: "domain other.co.uk is not the domain of a seed (--scope domain)",
    });
    // github.io is a public suffix (private section): bob's pages are someone else's domain.
    expect(f.reject(link("http://alice.github.io/x"))).toBeUndefined();
    expect(f.reject(link("http://bob.github.io/x"))).toBe("scope");
    // An address is its own domain.
    expect(f.reject(link("http://127.0.0.1/x"))).toBeUndefined();
    expect(f.reject(link("http://127.0.0.2/x"))).toBe("scope");
  });

  test("roots added later widen the scope", () => {
    const f = filter({ scope: "host" }, ["a.test"]);
    expect(f.reject(link("http://b.test/"))).toBe("scope");
    expect(f.roots.add(["b.test", "a.test"])).toEqual(["b.test"]);
    expect(f.reject(link("http://b.test/"))).toBeUndefined();
  });

  test("--allow-hosts admits the listed names and the names under them only", () => {
    const f = filter({ allowHosts: ["example.com"] });
    expect(f.reject(link("http://example.com/"))).toBeUndefined();
    expect(f.reject(link("http://www.example.com/"))).toBeUndefined();
    expect(f.explain(link("http://badexample.com/"))).toEqual({
      reason: "host-not-allowed",
      detail: "host badexample.com is not under any --allow-hosts entry",
    });
  });

  test("--deny-urls wins over --allow-urls; globs match the whole URL, re: anywhere", () => {
    const f = filter({
      allowUrls: ["http://a.test/docs/*", "re:^http://b\\.test/(en|fr)/"],
      denyUrls: ["*/print/*", "re:[?&]session=\\d{1,3}"],
    });
    expect(f.reject(link("http://a.test/docs/x"))).toBeUndefined();
    expect(f.reject(link("http://b.test/fr/page"))).toBeUndefined();
    expect(f.explain(link("http://a.test/docs/print/x"))).toEqual({
      reason: "url-denied",
      detail: "matches the --deny-urls pattern */print/*",
    });
    expect(f.explain(link("http://a.test/docs/x?session=12"))?.detail).toBe("matches the --deny-urls pattern re:[?&]session=\\d{1,3}");
    expect(f.reject(link("http://a.test/blog/x"))).toBe("url-not-allowed");
    expect(f.reject(link("http://b.test/de/page"))).toBe("url-not-allowed");
    // Glob metacharacters of regular expressions are literal in a glob.
    expect(filter({ allowUrls: ["http://a.test/a+b(1).html"] }).reject(link("http://a.test/a+b(1).html"))).toBeUndefined();
    expect(filter({ allowUrls: ["http://a.test/?"] }).reject(link("http://a.test/x"))).toBeUndefined();
    expect(filter({ allowUrls: ["http://a.test/?"] }).reject(link("http://a.test/xy"))).toBe("url-not-allowed");
  });

  test("filters apply to seeds too: a seed on the deny-list is refused", () => {
    expect(filter({ denyUrls: ["*/private/*"] }).reject(link("http://a.test/private/x", 0, true))).toBe("url-denied");
    expect(filter().reject(link("http://a.test/file.zip", 0, true))).toBe("extension");
  });
});

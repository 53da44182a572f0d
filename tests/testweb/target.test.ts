import { describe, expect, test } from "bun:test";
import { parseTarget } from "./target.ts";

describe("request target", () => {
  test("takes host and path from an absolute-form (proxy) target", () => {
    expect(parseTarget("http://SITE12.test:80/page/3?x=1", "ignored")).toEqual({ host: "site12.test", path: "/page/3?x=1", via: "proxy" });
  });

  test("gives an absolute-form target without a path the root path", () => {
    expect(parseTarget("http://site1.test", undefined)).toEqual({ host: "site1.test", path: "/", via: "proxy" });
    expect(parseTarget("http://site1.test?q", undefined)).toEqual({ host: "site1.test", path: "/?q", via: "proxy" });
  });

  test("takes the host from the Host header for an origin-form target", () => {
    expect(parseTarget("/a/b", "Site3.Test:8080")).toEqual({ host: "site3.test", path: "/a/b", via: "direct" });
  });

  test("drops userinfo, a trailing dot and keeps IPv6 brackets", () => {
    expect(parseTarget("http://u:p@site1.test./x", undefined)?.host).toBe("site1.test");
    expect(parseTarget("/", "[::1]:80")?.host).toBe("[::1]");
  });

  test("rejects an origin-form target without a Host header", () => {
    expect(parseTarget("/x", undefined)).toBeUndefined();
  });
});

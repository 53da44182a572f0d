/**
 * Tests of isHomePage on normalized URLs and on strings that are not.
 */
import { describe, expect, test } from "bun:test";
import { isHomePage, normalizeUrl } from "./index.ts";

function normalized(input: string): string {
  const result = normalizeUrl(input);
  if (!result.ok) throw new Error(result.reason);
  return result.url;
}

describe("isHomePage", () => {
  test("is true for the root path without a query", () => {
    expect(isHomePage("http://example.com/")).toBe(true);
    expect(isHomePage("https://user:pw@example.com:8443/")).toBe(true);
    expect(isHomePage("http://[::1]:8080/")).toBe(true);
  });

  test("is true for URLs that only normalize to the root", () => {
    expect(isHomePage(normalized("HTTP://Example.com"))).toBe(true);
    expect(isHomePage(normalized("http://example.com/?utm_source=x#top"))).toBe(true);
    expect(isHomePage(normalized("http://example.com/a/.."))).toBe(true);
  });

  test("is false when the path is longer than /", () => {
    expect(isHomePage("http://example.com/a")).toBe(false);
    expect(isHomePage("http://example.com//")).toBe(false);
    expect(isHomePage("http://example.com/index.html")).toBe(false);
  });

  test("is false when there is a query", () => {
    expect(isHomePage("http://example.com/?lang=en")).toBe(false);
    expect(isHomePage("http://example.com/?")).toBe(false);
  });

  test("is false for strings that are not URLs", () => {
    expect(isHomePage("")).toBe(false);
    expect(isHomePage("/")).toBe(false);
    expect(isHomePage("example.com/")).toBe(false);
    expect(isHomePage("http://example.com")).toBe(false);
  });
});

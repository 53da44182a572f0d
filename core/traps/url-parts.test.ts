import { expect, test } from "bun:test";
import { pathSegments, urlPath, urlPathAndQuery } from "./url-parts.ts";

test("url parts - splits path and query from a normalized URL", () => {
  expect(urlPath("https://example.com/a/b?x=1#top")).toBe("/a/b");
  expect(urlPathAndQuery("https://example.com/a/b?x=1#top")).toBe("/a/b?x=1");
});

test("url parts - a URL without a path has the root path", () => {
  expect(urlPath("https://example.com")).toBe("/");
  expect(urlPath("https://example.com?x=1")).toBe("/");
  expect(urlPathAndQuery("https://example.com?x=1")).toBe("/?x=1");
});

test("url parts - a slash inside the query is not mistaken for the path", () => {
  expect(urlPath("https://example.com?next=/a/b")).toBe("/");
  expect(urlPath("https://example.com/p?next=/a/b")).toBe("/p");
});

test("url parts - path segments skip empty ones", () => {
  expect(pathSegments("https://example.com//a/b/")).toEqual(["a", "b"]);
  expect(pathSegments("https://example.com/")).toEqual([]);
});

/**
 * Tests of query normalization on raw query text: sorting, tracker removal, empty queries and what must stay as written.
 */
import { describe, expect, test } from "bun:test";
import { normalizeQuery } from "./query.ts";

describe("normalizeQuery", () => {
  test("returns an empty string for no query or a lone ?", () => {
    expect(normalizeQuery("")).toBe("");
    expect(normalizeQuery("?")).toBe("");
  });

  test("keeps a single parameter with its ?", () => {
    expect(normalizeQuery("?q=1")).toBe("?q=1");
  });

  test("sorts parameters stably by name", () => {
    expect(normalizeQuery("?z=1&a=2&m=3&a=1")).toBe("?a=2&a=1&m=3&z=1");
  });

  test("orders a name before a longer name that starts with it", () => {
    expect(normalizeQuery("?ab=1&a=2&a-=3")).toBe("?a=2&a-=3&ab=1");
  });

  test("sorts names by code unit, not by locale", () => {
    expect(normalizeQuery("?b&a&B&%C3%A9&_&1")).toBe("?%C3%A9&1&B&_&a&b");
  });

  test("compares names only, so a value never changes the order", () => {
    expect(normalizeQuery("?a=2&a=1&a")).toBe("?a=2&a=1&a");
  });

  test("drops tracking parameters and returns nothing when only they were there", () => {
    expect(normalizeQuery("?utm_source=a&utm_medium=b")).toBe("");
    expect(normalizeQuery("?utm_source=a&id=1")).toBe("?id=1");
  });

  test("splits on & only, leaving + and escapes of separators alone", () => {
    expect(normalizeQuery("?a=1%26b%3D2&c=x+y")).toBe("?a=1%26b%3D2&c=x+y");
  });

  test("keeps a name containing = in its value as written", () => {
    expect(normalizeQuery("?b=c=d&a==")).toBe("?a==&b=c=d");
  });
});

import { describe, expect, test } from "bun:test";
import { bytesToOctets, normalizeOctets, normalizeUrlPath, pathAndQueryOf, utf8Octets } from "./normalize.ts";

describe("robots normalize", () => {
  test("leaves an ordinary path untouched", () => {
    const path = "/a/b-c_d.e~f?x=1&y=(2)";
    expect(normalizeUrlPath(path)).toBe(path);
  });

  test("decodes escapes of unreserved characters and upper-cases the others", () => {
    expect(normalizeUrlPath("/%7euser/%41%2f%3a")).toBe("/~user/A%2F%3A");
  });

  test("encodes non-ASCII characters as percent-encoded UTF-8", () => {
    expect(normalizeUrlPath("/café/ツ")).toBe("/caf%C3%A9/%E3%83%84");
    expect(normalizeUrlPath("/😀")).toBe("/%F0%9F%98%80");
  });

  test("encodes characters a URI may not carry raw", () => {
    expect(normalizeUrlPath('/a b"<>\\^`{|}')).toBe("/a%20b%22%3C%3E%5C%5E%60%7B%7C%7D");
  });

  test("writes a URL's * and $ as %2A and %24 but keeps a pattern's * as a wildcard", () => {
    expect(normalizeUrlPath("/a*b$c")).toBe("/a%2Ab%24c");
    expect(normalizeOctets("/a*b$c", true)).toBe("/a*b%24c");
  });

  test("keeps %2A and %24 encoded, so they stay literal in a pattern", () => {
    expect(normalizeOctets("/%2a%24", true)).toBe("/%2A%24");
  });

  test("encodes a stray percent sign", () => {
    expect(normalizeUrlPath("/100%")).toBe("/100%25");
    expect(normalizeUrlPath("/%zz%4")).toBe("/%25zz%254");
  });

  test("treats octets above 0x7F as single octets in an octet string", () => {
    expect(normalizeOctets("/caf\xe9", true)).toBe("/caf%E9");
  });

  test("encodes lone surrogates as U+FFFD like TextEncoder", () => {
    expect(utf8Octets("\ud800x")).toBe(bytesToOctets(new TextEncoder().encode("\ud800x")));
  });

  test("converts long byte arrays without overflowing the stack", () => {
    const bytes = new Uint8Array(600_000).fill(0x41);
    expect(bytesToOctets(bytes).length).toBe(600_000);
  });

  test("is idempotent on random strings (property)", () => {
    const alphabet = ["a", "/", "%", "2", "A", "f", "7", "E", "*", "$", " ", "é", "~", "?"];
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    for (let i = 0; i < 2000; i++) {
      let s = "/";
      for (let j = rnd(12); j > 0; j--) s += alphabet[rnd(alphabet.length)];
      const once = normalizeUrlPath(s);
      expect(normalizeUrlPath(once)).toBe(once);
    }
  });

  test("gives the same form to a path and any encoding of its unreserved characters (property)", () => {
    const chars = "abcXYZ019-._~";
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    for (let i = 0; i < 1000; i++) {
      let plain = "/";
      let encoded = "/";
      for (let j = rnd(10); j > 0; j--) {
        const c = chars[rnd(chars.length)] as string;
        plain += c;
        const hex = c.charCodeAt(0).toString(16);
        encoded += rnd(2) === 0 ? c : "%" + (rnd(2) === 0 ? hex : hex.toUpperCase());
      }
      expect(normalizeUrlPath(encoded)).toBe(normalizeUrlPath(plain));
    }
  });
});

describe("robots pathAndQueryOf", () => {
  test("returns a path with its query as is", () => {
    expect(pathAndQueryOf("/a/b?c=d")).toBe("/a/b?c=d");
  });

  test("drops scheme, authority and fragment of an absolute URL", () => {
    expect(pathAndQueryOf("https://user@example.com:8443/a?b#c")).toBe("/a?b");
  });

  test("reads an absolute URL without a path as the root", () => {
    expect(pathAndQueryOf("https://example.com")).toBe("/");
    expect(pathAndQueryOf("https://example.com?q")).toBe("/?q");
    expect(pathAndQueryOf("https://example.com#top")).toBe("/");
  });

  test("keeps a path that starts with two slashes as a path", () => {
    expect(pathAndQueryOf("//a/b")).toBe("//a/b");
  });

  test("reads a reference without a leading slash from the root", () => {
    expect(pathAndQueryOf("a/b")).toBe("/a/b");
    expect(pathAndQueryOf("")).toBe("/");
  });
});

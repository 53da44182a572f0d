import { describe, expect, test } from "bun:test";
import { hostKeyOf, originOf } from "./host-key.ts";

describe("host key", () => {
  test("host key - is the host alone when the port is the default one", () => {
    expect(hostKeyOf("http://example.com/a/b?c=1")).toBe("example.com");
  });
  test("host key - keeps a non-default port, since robots.txt is per port", () => {
    expect(hostKeyOf("http://example.com:8080/")).toBe("example.com:8080");
  });
  test("host key - drops userinfo, which names no other server", () => {
    expect(hostKeyOf("https://user:pw@example.com/x")).toBe("example.com");
  });
  test("host key - works for an IPv6 literal and a URL with no path", () => {
    expect(hostKeyOf("http://[::1]:81")).toBe("[::1]:81");
  });
  test("origin - joins scheme and host key for the robots.txt address", () => {
    expect(originOf("https://a.example:444/x?y")).toBe("https://a.example:444");
  });
});

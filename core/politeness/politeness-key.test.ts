import { describe, expect, test } from "bun:test";
import { FrontierKeys, frontierKeyOf } from "./politeness-key.ts";

describe("politeness key", () => {
  test("politeness key - domain: the registrable domain by the Public Suffix List, port dropped", () => {
    expect(frontierKeyOf("a.blog.example.co.uk", "domain")).toBe("example.co.uk");
    expect(frontierKeyOf("b.blog.example.co.uk:8080", "domain")).toBe("example.co.uk");
    expect(frontierKeyOf("www.example.com:443", "domain")).toBe("example.com");
    // The private section: two people's sites on one platform are two domains.
    expect(frontierKeyOf("alice.github.io", "domain")).toBe("alice.github.io");
    expect(frontierKeyOf("x.alice.github.io", "domain")).toBe("alice.github.io");
  });

  test("politeness key - domain: an IP literal or a name with no registrable domain is its own key, by name", () => {
    expect(frontierKeyOf("127.0.0.1:8080", "domain")).toBe("127.0.0.1");
    expect(frontierKeyOf("127.0.0.1", "domain")).toBe("127.0.0.1");
    expect(frontierKeyOf("[::1]:8080", "domain")).toBe("[::1]");
    expect(frontierKeyOf("localhost:3000", "domain")).toBe("localhost");
  });

  test("politeness key - host and ip: the frontier keys by the host key itself, port kept", () => {
    for (const mode of ["host", "ip"] as const) {
      expect(frontierKeyOf("a.blog.example.co.uk", mode)).toBe("a.blog.example.co.uk");
      expect(frontierKeyOf("a.blog.example.co.uk:8080", mode)).toBe("a.blog.example.co.uk:8080");
      expect(new FrontierKeys(mode).shared).toBe(false);
      expect(new FrontierKeys(mode).of("x.test:81")).toBe("x.test:81");
    }
  });

  test("politeness key - FrontierKeys answers as frontierKeyOf, with a memo for domains", () => {
    const keys = new FrontierKeys("domain");
    expect(keys.shared).toBe(true);
    expect(keys.of("a.blog.example.co.uk")).toBe("example.co.uk");
    expect(keys.of("a.blog.example.co.uk")).toBe("example.co.uk");
  });
});

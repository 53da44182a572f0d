import { expect, test } from "bun:test";
import { formatHost, formatHostPort, parseHostPort } from "./index.ts";

test("host:port - a name, an IPv4 address or a bracketed IPv6 address, then a port up to 65535", () => {
  expect(parseHostPort("127.0.0.1:7400")).toEqual({ host: "127.0.0.1", port: 7400 });
  expect(parseHostPort(" node-1.internal:0 ")).toEqual({ host: "node-1.internal", port: 0 });
  expect(parseHostPort("[::1]:80")).toEqual({ host: "::1", port: 80 });
  expect(parseHostPort("[fe80::1%eth0]:9102")).toEqual({ host: "fe80::1%eth0", port: 9102 });
  expect(parseHostPort("[::ffff:10.0.0.1]:65535")).toEqual({ host: "::ffff:10.0.0.1", port: 65535 });
});

test("host:port - a missing port, a port above 65535, an unbracketed IPv6 address or a space is refused", () => {
  for (const bad of ["127.0.0.1", "host:", "host:65536", "::1:80", "[::1]", "a b:80", "", ":80", "host:80x", "http://h:80"]) {
    expect({ bad, parsed: parseHostPort(bad) }).toEqual({ bad, parsed: undefined });
  }
});

test("host:port - an IPv6 host is written in brackets, and what is written reads back the same", () => {
  expect(formatHostPort("::1", 7400)).toBe("[::1]:7400");
  expect(formatHostPort("127.0.0.1", 0)).toBe("127.0.0.1:0");
  expect(formatHost("[::1]")).toBe("[::1]");
  expect(formatHost("example.com")).toBe("example.com");
  for (const text of ["[::1]:1", "10.1.2.3:8080", "localhost:0"]) {
    const parsed = parseHostPort(text)!;
    expect(formatHostPort(parsed.host, parsed.port)).toBe(text);
  }
});

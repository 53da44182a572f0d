import { expect, test } from "bun:test";
import { InvalidArgumentError } from "../errors/index.ts";
import { hostKeyOfArgument } from "./index.ts";

test("addressing - a host argument is a host key or a URL", () => {
  expect(hostKeyOfArgument("Example.COM")).toBe("example.com");
  expect(hostKeyOfArgument("example.com:8080")).toBe("example.com:8080");
  expect(hostKeyOfArgument("https://example.com:443/x")).toBe("example.com");
  expect(() => hostKeyOfArgument("")).toThrow(InvalidArgumentError);
  expect(() => hostKeyOfArgument("a b")).toThrow(InvalidArgumentError);
});

test("addressing - a host argument that is no host says what to give instead", () => {
  expect(hostKeyOfArgument("  http://Example.com:80/a?b  ")).toBe("example.com");
  expect(hostKeyOfArgument("example.com:80")).toBe("example.com");
  expect(() => hostKeyOfArgument("   ")).toThrow("host: must not be empty");
  expect(() => hostKeyOfArgument("example.com/path")).toThrow(/is not a host name \(give example\.com or example\.com:8080\)/);
  expect(() => hostKeyOfArgument("user@example.com")).toThrow(InvalidArgumentError);
  expect(() => hostKeyOfArgument("ftp://example.com/")).toThrow(/^host: /);
});

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

test("addressing - a host name longer than 253 characters is refused without quoting it whole", () => {
  for (const input of ["a".repeat(5_000), `${"a.".repeat(127)}com`, `http://${"a".repeat(300)}.com/`]) {
    let message = "";
    try {
      hostKeyOfArgument(input);
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidArgumentError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/longer than 253 characters/);
    expect(message.length).toBeLessThan(100);
  }
  expect(hostKeyOfArgument(`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}:8080`)).toMatch(/:8080$/);
});

import { expect, test } from "bun:test";
import { bearerToken, TokenSet, tokenListKind } from "./bearer-tokens.ts";

const OLD = "old-token-0123456789abcdef";
const NEW = "new-token-0123456789abcdef";

test("tokens - two tokens are valid at once, so one can replace the other without an outage", () => {
  const set = new TokenSet([NEW, OLD]);
  expect(set.matches(NEW)).toBe(true);
  expect(set.matches(OLD)).toBe(true);
  expect(set.matches("new-token-0123456789abcdeg")).toBe(false);
  expect(set.matches(NEW.slice(0, -1))).toBe(false);
  expect(set.matches(`${NEW}x`)).toBe(false);
  expect(set.matches("")).toBe(false);
  expect(set.matches("x".repeat(10_000))).toBe(false);
  expect(new TokenSet([]).matches("")).toBe(false);
});

test("tokens - the bearer token of an Authorization header", () => {
  expect(bearerToken(`Bearer ${NEW}`)).toBe(NEW);
  expect(bearerToken(`bearer   ${NEW} `)).toBe(NEW);
  expect(bearerToken(`Basic ${NEW}`)).toBeUndefined();
  expect(bearerToken("Bearer a b")).toBeUndefined();
  expect(bearerToken(undefined)).toBeUndefined();
});

test("tokens - a token list setting reads comma-separated tokens and refuses short or odd ones", () => {
  const kind = tokenListKind();
  expect(kind.parse(` ${NEW} , ${OLD},`)).toEqual([NEW, OLD]);
  expect(kind.check([NEW, OLD])).toBeUndefined();
  expect(kind.check([])).toBeUndefined();
  expect(tokenListKind(false).check([])).toMatch(/at least one/);
  expect(kind.check([NEW, "short"])).toMatch(/16-256/);
  expect(kind.check(["has space in it 0123456"])).toMatch(/16-256/);
});

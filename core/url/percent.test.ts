/**
 * Tests of the percent-escape pass: which escapes are decoded, which only get upper-case hex, and the stray-percent cases that must not be decoded twice.
 */
import { describe, expect, test } from "bun:test";
import { normalizePercentEscapes } from "./percent.ts";

describe("normalizePercentEscapes", () => {
  test("returns text without escapes unchanged", () => {
    expect(normalizePercentEscapes("/a/b?c=d")).toBe("/a/b?c=d");
  });

  test("decodes every unreserved character", () => {
    const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";
    const encoded = [...unreserved].map((c) => "%" + c.charCodeAt(0).toString(16)).join("");
    expect(normalizePercentEscapes(encoded)).toBe(unreserved);
    expect(normalizePercentEscapes(encoded.toUpperCase())).toBe(unreserved);
  });

  test("keeps every reserved or other ASCII character encoded, with upper-case hex", () => {
    for (let code = 0; code < 128; code++) {
      const ch = String.fromCharCode(code);
      if (/[A-Za-z0-9\-._~]/.test(ch)) continue;
      const hex = code.toString(16).padStart(2, "0");
      expect(normalizePercentEscapes("%" + hex)).toBe("%" + hex.toUpperCase());
    }
  });

  test("keeps escapes of non-ASCII bytes, with upper-case hex", () => {
    expect(normalizePercentEscapes("%c3%a9%Ff")).toBe("%C3%A9%FF");
  });

  test("never decodes twice", () => {
    expect(normalizePercentEscapes("%2541")).toBe("%2541");
    expect(normalizePercentEscapes("%25%34%31")).toBe("%2541");
  });

  test("keeps a percent sign that starts no escape", () => {
    expect(normalizePercentEscapes("%")).toBe("%");
    expect(normalizePercentEscapes("a%")).toBe("a%");
    expect(normalizePercentEscapes("%4")).toBe("%4");
    expect(normalizePercentEscapes("%zz%g1%1g")).toBe("%zz%g1%1g");
  });

  test("keeps encoded a digit that would complete an escape right after a stray percent sign", () => {
    expect(normalizePercentEscapes("%%34")).toBe("%%34");
    expect(normalizePercentEscapes("%%34%31")).toBe("%%341");
  });

  test("keeps encoded a digit that would complete an escape one character after a stray percent sign", () => {
    expect(normalizePercentEscapes("%4%31")).toBe("%4%31");
    expect(normalizePercentEscapes("%a%62")).toBe("%a%62");
  });

  test("decodes a digit after a stray percent sign when no escape can form", () => {
    expect(normalizePercentEscapes("%g%41")).toBe("%gA");
    expect(normalizePercentEscapes("%%6A")).toBe("%j");
    expect(normalizePercentEscapes("%%6d")).toBe("%m");
    expect(normalizePercentEscapes("%%7e")).toBe("%~");
  });

  test("is idempotent on mixes of stray percent signs and escapes", () => {
    const parts = ["%", "%4", "%41", "%34", "%2e", "%25", "4", "a", "g", "%%", "%7e", "%zz"];
    for (const a of parts)
      for (const b of parts)
        for (const c of parts) {
          const once = normalizePercentEscapes(a + b + c);
          expect(normalizePercentEscapes(once)).toBe(once);
        }
  });
});

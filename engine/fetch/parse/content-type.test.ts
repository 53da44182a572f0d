import { describe, expect, test } from "bun:test";
import { isHtmlContentType, mimeEssence } from "./content-type.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("isHtmlContentType", () => {
  test("content-type - accepts text/html and xhtml with parameters and any case", () => {
    expect(isHtmlContentType("text/html")).toBe(true);
    expect(isHtmlContentType("Text/HTML; charset=ISO-8859-1")).toBe(true);
    expect(isHtmlContentType(" application/xhtml+xml ")).toBe(true);
  });

  test("content-type - rejects declared non-HTML types even when the body looks like HTML", () => {
    for (const ct of ["text/plain", "application/json", "image/png", "application/octet-stream", "text/css"]) {
      expect(isHtmlContentType(ct, bytes("<html><body>"))).toBe(false);
    }
  });

  test("content-type - sniffs a missing or unknown type", () => {
    expect(isHtmlContentType(undefined, bytes("<!DOCTYPE html><html>"))).toBe(true);
    expect(isHtmlContentType("", bytes("\n\t <HTML lang=en>"))).toBe(true);
    expect(isHtmlContentType("unknown/unknown", bytes("<pre>hi"))).toBe(false); // "<p" must end at a space or ">"
    expect(isHtmlContentType("application/unknown", bytes("<p>hi"))).toBe(true);
    expect(isHtmlContentType(undefined, bytes("\uFEFF<!-- c --><html>"))).toBe(true);
    expect(isHtmlContentType(undefined, bytes("<body>"))).toBe(true);
  });

  test("content-type - does not sniff non-HTML bodies as HTML", () => {
    expect(isHtmlContentType(undefined, bytes("%PDF-1.4"))).toBe(false);
    expect(isHtmlContentType(undefined, bytes("<?xml version='1.0'?><rss>"))).toBe(false);
    expect(isHtmlContentType(undefined, bytes("<abbr>"))).toBe(false);
    expect(isHtmlContentType(undefined, bytes("<htm"))).toBe(false);
    expect(isHtmlContentType(undefined, new Uint8Array())).toBe(false);
    expect(isHtmlContentType(undefined)).toBe(false);
  });

  test("content-type - strips parameters to the essence", () => {
    expect(mimeEssence("Text/Html ; Charset=UTF-8")).toBe("text/html");
    expect(mimeEssence(undefined)).toBe("");
  });
});

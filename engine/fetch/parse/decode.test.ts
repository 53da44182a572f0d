import { describe, expect, test } from "bun:test";
import { decodeBody, detectEncoding } from "./decode.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const latin = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe("decodeBody", () => {
  test("decode - defaults to UTF-8", () => {
    expect(decodeBody(utf8("<p>héllo €</p>"))).toBe("<p>héllo €</p>");
    expect(detectEncoding(utf8("<p>x</p>"), "text/html")).toBe("utf-8");
  });

  test("decode - uses the charset from the Content-Type header", () => {
    expect(decodeBody(latin("caf\xe9"), "text/html; charset=ISO-8859-1")).toBe("café");
    expect(decodeBody(latin("caf\xe9"), 'text/html; charset="windows-1252"')).toBe("café");
  });

  test("decode - maps iso-8859-1 to windows-1252 as browsers do", () => {
    // 0x93/0x94 are curly quotes in windows-1252 and C1 controls in strict Latin-1.
    expect(decodeBody(latin("\x93hi\x94"), "text/html; charset=iso-8859-1")).toBe("\u201chi\u201d");
    expect(detectEncoding(latin("x"), "text/html; charset=latin1")).toBe("windows-1252");
  });

  test("decode - sniffs meta charset when the header has none", () => {
    expect(decodeBody(latin(`<meta charset="windows-1252"><p>caf\xe9</p>`), "text/html")).toContain("café");
    expect(decodeBody(latin(`<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">\xe9`))).toContain("é");
  });

  test("decode - lets the header win over meta, and a BOM win over both", () => {
    const body = latin(`<meta charset="windows-1252">\xc3\xa9`);
    expect(decodeBody(body, "text/html; charset=utf-8")).toContain("é");
    expect(detectEncoding(Uint8Array.of(0xef, 0xbb, 0xbf, 0x41), "text/html; charset=windows-1252")).toBe("utf-8");
    expect(decodeBody(Uint8Array.of(0xff, 0xfe, 0x41, 0x00))).toBe("A");
  });

  test("decode - only prescans the first 1024 bytes for meta", () => {
    const body = latin(" ".repeat(1100) + `<meta charset="windows-1252">`);
    expect(detectEncoding(body, "text/html")).toBe("utf-8");
  });

  test("decode - reads a meta that claims UTF-16 as UTF-8", () => {
    expect(detectEncoding(utf8(`<meta charset="utf-16">`), "text/html")).toBe("utf-8");
  });

  test("decode - falls back to UTF-8 on unknown labels", () => {
    expect(detectEncoding(utf8("x"), "text/html; charset=klingon")).toBe("utf-8");
    expect(detectEncoding(utf8(`<meta charset="bogus-9">`))).toBe("utf-8");
  });

  test("decode - replaces invalid bytes instead of throwing", () => {
    expect(decodeBody(Uint8Array.of(0x61, 0xff, 0xfe, 0xc3, 0x62), "text/html; charset=utf-8")).toBe("a\ufffd\ufffd\ufffdb");
  });

  test("decode - handles other WHATWG encodings such as Shift_JIS", () => {
    expect(decodeBody(Uint8Array.of(0x82, 0xa0), "text/html; charset=shift_jis")).toBe("あ");
  });
});
